import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, SYNC_DELETE_GUARD, formatBytes, syncMessages } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { AWS_ID, WASABI_ID, findDialog, pick, selectedValue } from '../migration/migration-test-kit.ts';
import { CYCLE_ID, buildSyncCycle, buildSyncJob, stubSyncApi, syncProfiles } from './sync-factories.ts';

const { owner, admin, member } = syncProfiles;

const savedAnswer = {
  status: 201,
  body: { message: syncMessages.saved, job: buildSyncJob({ kind: 'replication' }) },
};

type User = ReturnType<typeof renderAt>['user'];

async function pickBuckets(user: User) {
  await pick(user, 'Source Account', 'Main AWS');
  await pick(user, 'Destination Account', 'Cold Wasabi');
  await waitFor(() => expect(selectedValue('Destination Bucket')).toBe('archive'));
}

/** A replication whose live cycle waits before deleting 500 objects of 1 000. */
const waitingJob = buildSyncJob(
  { kind: 'replication', allowDelete: true },
  {
    liveCycle: buildSyncCycle({
      status: 1,
      phase: 'awaiting_approval',
      approval: 'waiting',
      deleteCount: 500,
      deleteBytes: 500 * 4096,
    }),
  },
);
const waitingText = syncMessages.waitingApproval(500, formatBytes(500 * 4096));

describe('Replication page /replication (fetch stubbed with vi.stubGlobal)', () => {
  beforeAll(async () => {
    await import('./ReplicationPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('creates a replication with the saveSyncWasabi payload, and opens the replication history', async () => {
    const calls = stubSyncApi([], { 'POST /api/sync/insert': savedAnswer }, owner);
    const { user, location } = renderAt('/replication');
    expect(await screen.findByRole('heading', { name: 'Create Replication Job' })).toBeInTheDocument();
    expect(screen.getByText(syncMessages.anyProvider)).toBeInTheDocument();
    expect(screen.getByRole('table', { name: 'Scheduled Replication Jobs' })).toBeInTheDocument();
    await pickBuckets(user);
    await user.click(screen.getByRole('button', { name: 'Confirm Sync' }));

    expect(await screen.findByText(syncMessages.saved)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/insert')?.body).toEqual({
      sourceCloudAccountId: AWS_ID,
      sourceBucket: 'photos',
      destinationCloudAccountId: WASABI_ID,
      destinationBucket: 'archive',
      operation: 1,
      allowDelete: false,
      active: true,
    });
    const listCall = calls.find((call) => call.path === '/api/sync/get_jobs');
    expect(new URLSearchParams(listCall?.search).get('kind')).toBe('replication');

    await user.click(screen.getByRole('button', { name: 'Replication History' }));
    await waitFor(() => expect(location()).toBe('/rboard?sync=true'));
  });

  it("with 'Sync Deleted objects!' sends the delete safeguards: quarantine and thresholds", async () => {
    const calls = stubSyncApi([], { 'POST /api/sync/insert': savedAnswer }, owner);
    const { user } = renderAt('/replication');
    await pickBuckets(user);
    expect(screen.queryByRole('button', { name: 'Delete safeguards' })).toBeNull();
    await user.click(screen.getByRole('checkbox', { name: 'Sync Deleted objects!' }));
    await user.click(screen.getByRole('button', { name: 'Delete safeguards' }));

    const count = screen.getByRole('spinbutton', { name: 'Ask for approval above this many deletes' });
    expect(count).toHaveValue('100');
    expect(
      screen.getByRole('spinbutton', { name: 'Ask for approval above this % of the destination' }),
    ).toHaveValue('10');
    await user.clear(count);
    await user.type(count, '50');
    await user.click(screen.getByRole('checkbox', { name: 'Move deleted objects to quarantine for' }));
    const days = screen.getByRole('spinbutton', { name: 'Quarantine days' });
    await user.clear(days);
    await user.type(days, '7');
    await user.click(screen.getByRole('button', { name: 'Confirm Sync' }));

    expect(await screen.findByText(syncMessages.saved)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/insert')?.body).toEqual({
      sourceCloudAccountId: AWS_ID,
      sourceBucket: 'photos',
      destinationCloudAccountId: WASABI_ID,
      destinationBucket: 'archive',
      operation: 1,
      allowDelete: true,
      active: true,
      quarantineDays: 7,
      deleteThresholdCount: 50,
      deleteThresholdPercent: 10,
    });
  });

  it('keeps role User within the default guardrail (the server refuses a looser one)', async () => {
    const calls = stubSyncApi([], { 'POST /api/sync/insert': savedAnswer }, member);
    const { user } = renderAt('/replication');
    await pickBuckets(user);
    await user.click(screen.getByRole('checkbox', { name: 'Sync Deleted objects!' }));
    await user.click(screen.getByRole('button', { name: 'Delete safeguards' }));
    const count = screen.getByRole('spinbutton', { name: 'Ask for approval above this many deletes' });
    const percent = screen.getByRole('spinbutton', {
      name: 'Ask for approval above this % of the destination',
    });
    await user.clear(count);
    await user.type(count, '5000');
    await user.clear(percent);
    await user.type(percent, '90');
    await user.click(screen.getByRole('button', { name: 'Confirm Sync' }));

    expect(await screen.findByText(syncMessages.saved)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/insert')?.body).toMatchObject({
      allowDelete: true,
      deleteThresholdCount: SYNC_DELETE_GUARD.count,
      deleteThresholdPercent: SYNC_DELETE_GUARD.percent,
    });
  });

  it('shows the server refusal of a job whose destination lies in its source', async () => {
    stubSyncApi(
      [],
      {
        'POST /api/sync/insert': { status: 400, body: { message: syncMessages.nestedDestination } },
      },
      owner,
    );
    const { user } = renderAt('/replication');
    await pickBuckets(user);
    await user.click(screen.getByRole('button', { name: 'Confirm Sync' }));
    expect(await screen.findByText(syncMessages.nestedDestination)).toBeInTheDocument();
  });

  it.each([
    ['Owner', owner],
    ['Admin', admin],
  ])('lets an %s approve the deletes a cycle waits on', async (_role, profile) => {
    const calls = stubSyncApi(
      [waitingJob],
      {
        'POST /api/sync/decide': {
          status: 200,
          body: {
            message: syncMessages.approved,
            cycle: buildSyncCycle({ phase: 'deleting', status: 1, approval: 'approved' }),
          },
        },
      },
      profile,
    );
    const { user } = renderAt('/replication');
    const banner = await screen.findByRole('region', {
      name: 'Approval for Main AWS/photos to Cold Wasabi/archive',
    });
    expect(within(banner).getByText(waitingText)).toBeInTheDocument();
    await user.click(await within(banner).findByRole('button', { name: 'Approve' }));
    expect(await screen.findByText(syncMessages.approved)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/decide')?.body).toEqual({
      cycleId: CYCLE_ID,
      approve: true,
    });
  });

  it('lets an Owner reject them', async () => {
    const calls = stubSyncApi(
      [waitingJob],
      {
        'POST /api/sync/decide': {
          status: 200,
          body: {
            message: syncMessages.rejected,
            cycle: buildSyncCycle({ phase: 'finished', status: 2, approval: 'rejected' }),
          },
        },
      },
      owner,
    );
    const { user } = renderAt('/replication');
    const banner = await screen.findByRole('region', {
      name: 'Approval for Main AWS/photos to Cold Wasabi/archive',
    });
    await user.click(await within(banner).findByRole('button', { name: 'Reject' }));
    expect(await screen.findByText(syncMessages.rejected)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/decide')?.body).toEqual({
      cycleId: CYCLE_ID,
      approve: false,
    });
  });

  it('shows role User the waiting deletes without the Approve and Reject buttons', async () => {
    stubSyncApi([waitingJob], {}, member);
    renderAt('/replication');
    const banner = await screen.findByRole('region', {
      name: 'Approval for Main AWS/photos to Cold Wasabi/archive',
    });
    expect(within(banner).getByText(waitingText)).toBeInTheDocument();
    // The profile has arrived once the header greets the user: the buttons would be there by now.
    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    expect(within(banner).queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(within(banner).queryByRole('button', { name: 'Reject' })).toBeNull();
  });

  it("lets an Owner change a replication's delete safeguards", async () => {
    const job = buildSyncJob({ kind: 'replication', allowDelete: true });
    const calls = stubSyncApi(
      [job],
      {
        'PUT /api/sync/options': { status: 200, body: { message: syncMessages.saved, job } },
      },
      owner,
    );
    const { user } = renderAt('/replication');
    const table = await screen.findByRole('table', { name: 'Scheduled Replication Jobs' });
    await user.click(await within(table).findByRole('button', { name: 'Safeguards' }));
    const dialog = await findDialog('Delete safeguards: Main AWS/photos to Cold Wasabi/archive');
    await user.click(
      within(dialog).getByRole('checkbox', { name: 'Move deleted objects to quarantine for' }),
    );
    const count = within(dialog).getByRole('spinbutton', {
      name: 'Ask for approval above this many deletes',
    });
    await user.clear(count);
    await user.type(count, '250');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Delete safeguards saved.')).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/options')?.body).toEqual({
      id: job.info.id,
      quarantineDays: 30,
      deleteThresholdCount: 250,
      deleteThresholdPercent: job.info.deleteThresholdPercent,
    });
  });

  it('offers no safeguards editor to role User (the server refuses it too)', async () => {
    stubSyncApi([buildSyncJob({ kind: 'replication', allowDelete: true })], {}, member);
    renderAt('/replication');
    const table = await screen.findByRole('table', { name: 'Scheduled Replication Jobs' });
    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    expect(await within(table).findByRole('button', { name: 'History' })).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: 'Safeguards' })).toBeNull();
  });
});

import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  SYNC_DEFAULT_ERROR,
  SYNC_EVENTS,
  formatBytes,
  syncMessages,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { HubSocket, hubSends } from '../../test/fake-hub.ts';
import { buildProfile } from '../../test/factories.ts';
import { AWS_ID, WASABI_ID, findDialog, pick, selectedValue } from '../migration/migration-test-kit.ts';
import { CYCLE_ID, JOB_ID, buildSyncCycle, buildSyncJob, stubSyncApi } from './sync-factories.ts';

const jobRow = async (text: string) => (await screen.findByText(text)).closest('tr') as HTMLElement;

describe('Sync page /Sync (fetch stubbed with vi.stubGlobal, hub played by a fake WebSocket)', () => {
  beforeAll(async () => {
    await import('./SyncPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('creates a weekly sync with the saveSync payload and says any provider may be the source', async () => {
    const calls = stubSyncApi([], {
      'POST /api/sync/insert': {
        status: 201,
        body: { message: syncMessages.saved, job: buildSyncJob({ frequency: 2 }) },
      },
    });
    const { user } = renderAt('/Sync');
    expect(await screen.findByRole('heading', { name: 'Sync' })).toBeInTheDocument();
    expect(screen.getByText(syncMessages.anyProvider)).toBeInTheDocument();
    const confirm = screen.getByRole('button', { name: 'Confirm Sync' });
    expect(confirm).toBeDisabled();

    await pick(user, 'Source Account', 'Main AWS');
    await pick(user, 'Destination Account', 'Cold Wasabi');
    await waitFor(() => expect(selectedValue('Destination Bucket')).toBe('archive'));
    await pick(user, 'Source Bucket', 'backup');
    expect(selectedValue('Sync Frequency')).toBe('Every Day');
    await pick(user, 'Sync Frequency', 'Every Week');
    await user.click(confirm);

    expect(await screen.findByText(syncMessages.saved)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/insert')?.body).toEqual({
      frequency: 2,
      source_cloud: AWS_ID,
      source_bucket: 'backup',
      destination_cloud: WASABI_ID,
      destination_bucket: 'archive',
    });
    const listCall = calls.find((call) => call.path === '/api/sync/get_jobs');
    expect(new URLSearchParams(listCall?.search).get('kind')).toBe('sync');
  });

  it('asks for the transfer charge confirmation first, like a transfer, and sends nothing', async () => {
    const calls = stubSyncApi([], {}, buildProfile());
    const { user } = renderAt('/sync');
    await pick(user, 'Source Account', 'Main AWS');
    await pick(user, 'Destination Account', 'Cold Wasabi');
    await waitFor(() => expect(selectedValue('Destination Bucket')).toBe('archive'));
    await user.click(screen.getByRole('button', { name: 'Confirm Sync' }));
    expect(await findDialog('Cloud To Cloud Transfer')).toBeInTheDocument();
    expect(calls.some((call) => call.path === '/api/sync/insert')).toBe(false);
  });

  it('shows the columns of the list with the frequency and the last cycle date', async () => {
    stubSyncApi([
      buildSyncJob({ frequency: 3 }, { lastCycle: { id: CYCLE_ID, date: '2025-06-03T09:30:00', status: 2 } }),
    ]);
    renderAt('/Sync');
    const table = await screen.findByRole('table', { name: 'Sync Jobs' });
    for (const title of ['Source', 'Destination', 'Sync Frequency', 'Sync Date/Time', 'Actions']) {
      expect(within(table).getByRole('columnheader', { name: title })).toBeInTheDocument();
    }
    const row = await jobRow('Main AWS');
    expect(within(row).getByText('Every Month')).toBeInTheDocument();
    expect(within(row).getByText('06/03/2025 - 09:30')).toBeInTheDocument();
    expect(within(row).getByRole('img', { name: 'Completed' })).toBeInTheDocument();
  });

  it('asks before deactivating, then says so in a toast', async () => {
    const calls = stubSyncApi([buildSyncJob()], {
      'POST /api/sync/activate': { status: 200, body: { message: syncMessages.deactivated } },
    });
    const { user } = renderAt('/Sync');
    const row = await jobRow('Main AWS');
    await user.click(within(row).getByRole('switch', { name: 'Active' }));

    const text = syncMessages.confirmToggle(false, 'Main AWS/photos', 'Cold Wasabi/archive');
    const dialog = await findDialog(text);
    await user.click(within(dialog).getByRole('button', { name: 'Yes' }));
    expect(await screen.findByText(syncMessages.deactivated)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/activate')?.body).toEqual({
      id: JOB_ID,
      active: false,
    });
  });

  it('lets role User toggle, run and remove only the jobs they created, and dry-run any', async () => {
    const member = buildProfile({
      organization: { ...buildProfile().organization, confirmed_c2c: true },
      role: { id: 3, title: 'User' },
    });
    const others = buildSyncJob({ id: 'job-of-owner', sourceBucket: 'owners', createdBy: 'the-owner' });
    const own = buildSyncJob({ id: 'job-of-member', sourceBucket: 'mine', createdBy: member.id });
    stubSyncApi([others, own], {}, member);
    renderAt('/Sync');
    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    const othersRow = await jobRow('owners');
    const ownRow = await jobRow('mine');

    expect(within(othersRow).getByRole('switch', { name: 'Active' })).toBeDisabled();
    expect(within(othersRow).getByRole('button', { name: 'Run now' })).toBeDisabled();
    expect(within(othersRow).getByRole('button', { name: 'Delete' })).toBeDisabled();
    expect(within(othersRow).getByRole('button', { name: 'Dry run' })).toBeEnabled();
    expect(within(ownRow).getByRole('switch', { name: 'Active' })).toBeEnabled();
    expect(within(ownRow).getByRole('button', { name: 'Run now' })).toBeEnabled();
    expect(within(ownRow).getByRole('button', { name: 'Delete' })).toBeEnabled();
  });

  it('shows the failure toast when the toggle fails', async () => {
    stubSyncApi([buildSyncJob({ active: false })], {
      'POST /api/sync/activate': { status: 500, body: { message: 'database down' } },
    });
    const { user } = renderAt('/Sync');
    const row = await jobRow('Main AWS');
    await user.click(within(row).getByRole('switch', { name: 'Active' }));
    const dialog = await findDialog(
      syncMessages.confirmToggle(true, 'Main AWS/photos', 'Cold Wasabi/archive'),
    );
    await user.click(within(dialog).getByRole('button', { name: 'Yes' }));
    expect(await screen.findByText(syncMessages.failed)).toBeInTheDocument();
  });

  it('asks before removing a sync, notes that no object is deleted, and confirms with a toast', async () => {
    const calls = stubSyncApi([buildSyncJob()], {
      'DELETE /api/sync/delete': { status: 200, body: { message: syncMessages.deleted } },
    });
    const { user } = renderAt('/Sync');
    const row = await jobRow('Main AWS');
    await user.click(within(row).getByRole('button', { name: 'Delete' }));

    const dialog = await findDialog(syncMessages.confirmDelete('Main AWS/photos to Cold Wasabi/archive'));
    expect(within(dialog).getByText(syncMessages.deleteNote)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText(syncMessages.deleted)).toBeInTheDocument();
    const call = calls.find((candidate) => candidate.path === '/api/sync/delete');
    expect(call?.method).toBe('DELETE');
    expect(new URLSearchParams(call?.search).get('id')).toBe(JOB_ID);
  });

  it('shows the delete failure toast', async () => {
    stubSyncApi([buildSyncJob()], {
      'DELETE /api/sync/delete': { status: 500, body: { message: 'database down' } },
    });
    const { user } = renderAt('/Sync');
    const row = await jobRow('Main AWS');
    await user.click(within(row).getByRole('button', { name: 'Delete' }));
    const dialog = await findDialog(syncMessages.confirmDelete('Main AWS/photos to Cold Wasabi/archive'));
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText(syncMessages.deleteFailed)).toBeInTheDocument();
  });

  it("shows a Faulted cycle's last error in the tooltip, and 'Error' when it has none", async () => {
    const faulted = { id: CYCLE_ID, date: '2025-06-03T09:30:00.000Z', status: 8 };
    stubSyncApi([
      buildSyncJob({}, { lastCycle: faulted, lastError: 'Access Denied: s3:ListBucket' }),
      buildSyncJob(
        { id: '1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d', sourceBucket: 'backup' },
        { lastCycle: faulted, lastError: null },
      ),
    ]);
    const { user } = renderAt('/Sync');

    await user.hover(within(await jobRow('photos')).getByRole('img', { name: 'Faulted' }));
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Access Denied: s3:ListBucket');
    await user.unhover(within(await jobRow('photos')).getByRole('img', { name: 'Faulted' }));

    await user.hover(within(await jobRow('backup')).getByRole('img', { name: 'Faulted' }));
    await waitFor(() =>
      expect(screen.getAllByRole('tooltip').some((tip) => tip.textContent === SYNC_DEFAULT_ERROR)).toBe(true),
    );
  });

  it('runs a cycle now and shows its live phase from the sync.cycle messages', async () => {
    vi.stubGlobal('WebSocket', HubSocket);
    const running = buildSyncCycle();
    const calls = stubSyncApi([buildSyncJob()], {
      'POST /api/sync/TriggerWasabiSync': {
        status: 201,
        body: { message: syncMessages.runStarted, cycle: running },
      },
    });
    const { user, queryClient } = renderAt('/Sync');
    const row = await jobRow('Main AWS');
    await user.click(within(row).getByRole('button', { name: 'Run now' }));
    expect(await screen.findByText(syncMessages.runStarted)).toBeInTheDocument();
    expect(
      new URLSearchParams(calls.find((call) => call.path === '/api/sync/TriggerWasabiSync')?.search).get(
        'syncInfoId',
      ),
    ).toBe(JOB_ID);

    // The list re-read after the run answers first; the hub's message then comes on top of it.
    await waitFor(() => expect(queryClient.isFetching()).toBe(0));
    await waitFor(() => expect(HubSocket.opened.at(-1)?.onmessage).toBeTruthy());
    hubSends({
      type: SYNC_EVENTS.cycle,
      data: buildSyncCycle({ status: 1, phase: 'copying', copyCount: 5, copyBytes: 5 * 1024 }),
    });
    expect(
      await within(await jobRow('Main AWS')).findByText(`Copying 5 objects (${formatBytes(5 * 1024)})`),
    ).toBeInTheDocument();
  });

  it('shows what a dry run would copy and delete once its cycle finishes', async () => {
    vi.stubGlobal('WebSocket', HubSocket);
    const started = buildSyncCycle({ id: 'c0ffee00-1111-4222-8333-444455556666', dryRun: true });
    const calls = stubSyncApi([buildSyncJob()], {
      'POST /api/sync/dry_run': {
        status: 201,
        body: { message: syncMessages.dryRunStarted, cycle: started },
      },
      'GET /api/sync/cycles': { status: 200, body: { data: [started] } },
    });
    const { user } = renderAt('/Sync');
    const row = await jobRow('Main AWS');
    await user.click(within(row).getByRole('button', { name: 'Dry run' }));

    const dialog = await findDialog('Dry run: Main AWS/photos to Cold Wasabi/archive');
    expect(within(dialog).getByText('Listing both sides: nothing is copied or deleted.')).toBeInTheDocument();
    expect(
      new URLSearchParams(calls.find((call) => call.path === '/api/sync/dry_run')?.search).get('id'),
    ).toBe(JOB_ID);

    await waitFor(() => expect(HubSocket.opened.at(-1)?.onmessage).toBeTruthy());
    hubSends({
      type: SYNC_EVENTS.cycle,
      data: {
        ...started,
        status: 2,
        phase: 'finished',
        copyCount: 5,
        copyBytes: 5 * 4096,
        deleteCount: 2,
        deleteBytes: 2048,
        unchangedCount: 993,
        sample: {
          copy: [
            { key: 'a/new-1.txt', size: 4096 },
            { key: 'a/new-2.txt', size: 4096 },
          ],
          delete: [
            { key: 'old/gone-1.txt', size: 1024 },
            { key: 'old/gone-2.txt', size: 1024 },
          ],
        },
        finishedAt: '2025-06-03T09:31:00.000Z',
      },
    });

    expect(await within(dialog).findByText(`5 objects (${formatBytes(5 * 4096)})`)).toBeInTheDocument();
    expect(within(dialog).getByText(`2 objects (${formatBytes(2048)})`)).toBeInTheDocument();
    expect(within(dialog).getByText('993 objects')).toBeInTheDocument();
    const copies = within(dialog).getByRole('region', { name: 'Would copy' });
    expect(within(copies).getByText('(the first 2 of 5)')).toBeInTheDocument();
    expect(within(copies).getByText('a/new-2.txt')).toBeInTheDocument();
    const deletes = within(dialog).getByRole('region', { name: 'Would delete' });
    expect(within(deletes).getByText('old/gone-1.txt')).toBeInTheDocument();
    expect(within(deletes).getByText('old/gone-2.txt')).toBeInTheDocument();
  });
});

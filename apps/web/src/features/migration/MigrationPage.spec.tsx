import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, agentMessages, transferMessages, type UserProfile } from '@cumulo/contract';
import { forgetAgentKey } from '../agent/use-agent.ts';
import { fakeAgent, stubApiAndAgent } from './ftx-test-kit.ts';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { migrationTexts } from './migration-texts.ts';
import {
  AWS_ID,
  WASABI_ID,
  accounts,
  contentPath,
  findDialog,
  listingHandlers,
  pick,
  queryDialog,
  selectedValue,
  startedAnswer,
} from './migration-test-kit.ts';

type Handler = FakeReply | ((call: RecordedCall) => FakeReply);

const withOrganization = (
  flags: Partial<UserProfile['organization']>,
  overrides: Partial<UserProfile> = {},
) => buildProfile({ ...overrides, organization: { ...buildProfile().organization, ...flags } });

function stubMigration(profile: UserProfile, extra: Record<string, Handler> = {}) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: profile },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    ...listingHandlers(),
    'POST /api/transfer/transfer': { status: 201, body: startedAnswer() },
    ...extra,
  });
}

type User = ReturnType<typeof renderAt>['user'];

async function pickBuckets(user: User) {
  await pick(user, 'Source Account', 'Main AWS');
  await pick(user, 'Destination Account', 'Cold Wasabi');
  await waitFor(() => expect(selectedValue('Destination Bucket')).toBe('archive'));
}

describe('Migration page /migration (fetch stubbed with vi.stubGlobal)', () => {
  beforeAll(async () => {
    await import('./MigrationPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('enables the prefix field only when ticked, lists the objects under it and copies using the prefix', async () => {
    const calls = stubMigration(withOrganization({ confirmed_c2c: true }));
    const { user } = renderAt('/migration');
    expect(await screen.findByText('1 Select Source')).toBeInTheDocument();
    expect(screen.getByText('2 Select Destination')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: migrationTexts.chargesLink })).toHaveAttribute('href', '/calc');
    await pickBuckets(user);
    expect(selectedValue('Source Bucket')).toBe('photos');

    const prefix = screen.getByRole('textbox', { name: 'Prefix' });
    const copyUsingPrefix = screen.getByRole('button', { name: 'Copy Using Prefix' });
    expect(prefix).toBeDisabled();
    expect(copyUsingPrefix).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Use a prefix' }));
    expect(prefix).toBeEnabled();
    await user.type(prefix, 'docs/in');
    expect(copyUsingPrefix).toBeEnabled();

    // A prefix is a prefix (issue 21): 'docs/in' lists the keys starting with it, not a folder 'docs/in/'.
    await user.click(screen.getByRole('button', { name: 'List Objects' }));
    const objects = await screen.findByRole('region', { name: 'Objects' });
    expect(await within(objects).findByText('inner.txt')).toBeInTheDocument();
    const listCall = calls.find((call) => call.path === contentPath(AWS_ID, 'photos'));
    expect(Object.fromEntries(new URLSearchParams(listCall?.search))).toMatchObject({
      path: 'docs/in',
      match: 'prefix',
    });

    await user.click(screen.getByRole('checkbox', { name: 'Skip Existing Files' }));
    await user.click(copyUsingPrefix);
    expect(await screen.findByText(transferMessages.enqueued)).toBeInTheDocument();
    const popup = await findDialog(transferMessages.started);
    expect(within(popup).getByRole('button', { name: 'Transfer Status' })).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/transfer/transfer')?.body).toEqual({
      sourceCloudAccountId: AWS_ID,
      sourceBucket: 'photos',
      sourcePath: 'docs/in',
      destinationCloudAccountId: WASABI_ID,
      destinationBucket: 'archive',
      destinationPath: 'docs/',
      transferType: 1,
      allowSkip: true,
      operation: 'copy',
    });

    // Unticking disables the field again.
    await user.click(screen.getByRole('checkbox', { name: 'Use a prefix' }));
    expect(prefix).toBeDisabled();
    expect(copyUsingPrefix).toBeDisabled();
  });

  it('copies entire buckets, and shows the server message when the enqueue fails', async () => {
    const calls = stubMigration(withOrganization({ is_cbs: true }), {
      'POST /api/transfer/transfer': {
        status: 400,
        body: { message: transferMessages.sameBucket },
      },
    });
    const { user } = renderAt('/migration');
    await pickBuckets(user);
    await user.click(screen.getByRole('button', { name: 'Copy Entire Buckets' }));
    expect(await screen.findByText(transferMessages.sameBucket)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/transfer/transfer')?.body).toMatchObject({
      sourcePath: '',
      allowSkip: false,
    });
    expect(queryDialog(transferMessages.started)).toBeNull();
  });

  it('sends an optional bandwidth limit in bytes per second, and waits for a rate when the box is ticked', async () => {
    const calls = stubMigration(withOrganization({ confirmed_c2c: true }));
    const { user } = renderAt('/migration');
    await pickBuckets(user);
    const rate = screen.getByRole('spinbutton', { name: 'Bandwidth limit (MiB/s)' });
    const copyAll = screen.getByRole('button', { name: 'Copy Entire Buckets' });
    expect(rate).toBeDisabled();
    expect(screen.queryByText(migrationTexts.bandwidthHint)).toBeNull();

    await user.click(screen.getByRole('checkbox', { name: 'Limit bandwidth' }));
    expect(rate).toBeEnabled();
    expect(screen.getByText(migrationTexts.bandwidthHint)).toBeInTheDocument();
    await user.clear(rate);
    expect(copyAll).toBeDisabled();
    await user.type(rate, '2');
    expect(copyAll).toBeEnabled();

    await user.click(copyAll);
    await findDialog(transferMessages.started);
    expect(calls.find((call) => call.path === '/api/transfer/transfer')?.body).toMatchObject({
      sourcePath: '',
      bandwidthLimit: 2 * 1024 * 1024,
    });
  });

  it('copies a nested prefix into the same folder, so the keys keep their names', async () => {
    const calls = stubMigration(withOrganization({ confirmed_c2c: true }));
    const { user } = renderAt('/migration');
    await pickBuckets(user);
    await user.click(screen.getByRole('checkbox', { name: 'Use a prefix' }));
    await user.type(screen.getByRole('textbox', { name: 'Prefix' }), 'docs/deep/in');
    await user.click(screen.getByRole('button', { name: 'Copy Using Prefix' }));
    await findDialog(transferMessages.started);
    expect(calls.find((call) => call.path === '/api/transfer/transfer')?.body).toMatchObject({
      sourcePath: 'docs/deep/in',
      destinationPath: 'docs/deep/',
    });
  });

  it('asks the Owner to confirm the charge first; with a card on file Confirm sets confirmed_c2c', async () => {
    let profileReads = 0;
    const calls = stubMigration(withOrganization({ confirmed_c2c: false }), {
      'GET /api/users/_me': () => {
        profileReads += 1;
        return {
          status: 200,
          body: withOrganization({ confirmed_c2c: profileReads > 1 }, { has_billing_info: true }),
        };
      },
      'PUT /api/organizations/_me': {
        status: 200,
        body: { is_cbs: false, confirmed_c2c: true, confirmed_ftx: false, confirmed_wasabi: false },
      },
    });
    const { user } = renderAt('/migration');
    await pickBuckets(user);
    await user.click(screen.getByRole('button', { name: 'Copy Entire Buckets' }));

    const modal = await findDialog('Cloud To Cloud Transfer');
    expect(modal).toHaveStyle({ width: '700px' });
    expect(within(modal).getByText(migrationTexts.chargeRate)).toHaveTextContent('$0.15 per GB');
    expect(within(modal).getByText(migrationTexts.chargeBulk)).toBeInTheDocument();
    expect(within(modal).queryByText(migrationTexts.chargeNoBilling)).toBeNull();
    expect(calls.some((call) => call.path === '/api/transfer/transfer')).toBe(false);

    await user.click(within(modal).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText(migrationTexts.chargeConfirmed)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({ confirmed_c2c: true });
    expect(calls.some((call) => call.path === '/api/billing/payment_profiles')).toBe(false);
    await waitFor(() => expect(profileReads).toBeGreaterThan(1));

    await user.click(screen.getByRole('button', { name: 'Copy Entire Buckets' }));
    expect(await findDialog(transferMessages.started)).toBeInTheDocument();
  });

  it('without a card, Confirm opens the card form in the modal: the card is added, then the flag is set', async () => {
    const calls = stubMigration(withOrganization({ confirmed_c2c: false }), {
      'POST /api/billing/payment_profiles': { status: 201, body: {} },
      'PUT /api/organizations/_me': {
        status: 200,
        body: { is_cbs: false, confirmed_c2c: true, confirmed_ftx: false, confirmed_wasabi: false },
      },
    });
    const { user } = renderAt('/migration');
    await pickBuckets(user);
    await user.click(screen.getByRole('button', { name: 'Copy Entire Buckets' }));

    const modal = await findDialog('Cloud To Cloud Transfer');
    expect(within(modal).getByText(migrationTexts.chargeNoBilling)).toBeInTheDocument();
    await user.click(within(modal).getByRole('button', { name: 'Confirm' }));
    await user.type(within(modal).getByLabelText('Card Number'), '4242 4242 4242 4242');
    await user.type(within(modal).getByLabelText('Name on Card'), 'Ada Lovelace');
    await user.type(within(modal).getByLabelText('Expiry'), '12 / 40');
    await user.type(within(modal).getByLabelText('CVC'), '123');
    await user.click(within(modal).getByRole('button', { name: 'Add Card and Confirm' }));

    expect(await screen.findByText(migrationTexts.chargeConfirmed)).toBeInTheDocument();
    const writes = calls.filter((call) => call.method !== 'GET').map((call) => call.path);
    expect(writes).toEqual(['/api/billing/payment_profiles', '/api/organizations/_me']);
    expect(calls.find((call) => call.path === '/api/billing/payment_profiles')?.body).toMatchObject({
      credit_card_attributes: {
        full_number: '4242424242424242',
        expiration_month: 12,
        expiration_year: 2040,
      },
    });
  });

  it('tells a User that the Owner must confirm, with no Confirm button', async () => {
    const calls = stubMigration(
      withOrganization({ confirmed_c2c: false }, { role: { id: 3, title: 'User' } }),
    );
    const { user } = renderAt('/migration');
    await pickBuckets(user);
    await user.click(screen.getByRole('button', { name: 'Copy Entire Buckets' }));

    const modal = await findDialog('Cloud To Cloud Transfer');
    expect(within(modal).getByText(transferMessages.ownerConfirms)).toBeInTheDocument();
    expect(within(modal).queryByRole('button', { name: 'Confirm' })).toBeNull();
    expect(within(modal).queryByText(migrationTexts.chargeNoBilling)).toBeNull();
    expect(calls.some((call) => call.method === 'PUT')).toBe(false);
  });

  // The agent on 127.0.0.1 is a fetch stand-in here (ftx-test-kit.ts); the real agent process is tested in
  // apps/agent and in the e2e.
  it("with ftX the source is the agent's local files: the bucket copies are off, and the chosen files are copied by the agent", async () => {
    forgetAgentKey();
    const calls = stubApiAndAgent(
      {
        'GET /api/users/_me': {
          status: 200,
          body: withOrganization({ confirmed_c2c: true, confirmed_ftx: true }),
        },
        'GET /api/cloud_accounts/': { status: 200, body: accounts },
        ...listingHandlers(),
      },
      fakeAgent(),
    );
    const { user, location } = renderAt('/migration');
    await pickBuckets(user);
    expect(screen.getByRole('button', { name: 'Copy Entire Buckets' })).toBeEnabled();
    await pick(user, 'Transfer Type', 'ftX');

    // Spec 001 §4: switching to ftX clears the source account.
    await waitFor(() => expect(selectedValue('Source Account')).toBeNull());
    expect(screen.queryByText(/only supported on windows/i)).toBeNull();
    expect(screen.getByRole('button', { name: 'Copy Entire Buckets' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Copy Using Prefix' })).toBeDisabled();
    expect(screen.getByText(migrationTexts.ftxBucketCopies)).toBeInTheDocument();

    const local = await screen.findByRole('region', { name: 'Source files' });
    await user.click(await within(local).findByRole('button', { name: /Photos/ }));
    await user.click(await within(local).findByRole('checkbox', { name: 'Select beach.jpg' }));
    await user.click(screen.getByRole('button', { name: 'Copy to Destination' }));

    const popup = await findDialog(transferMessages.started);
    expect(calls.agent.find((call) => call.path === '/upload')?.body).toEqual({
      paths: ['/Photos/beach.jpg'],
      remoteDirectory: { cloud_account_id: WASABI_ID, bucket_name: 'archive', path: '' },
    });
    expect(calls.api.some((call) => call.path === '/api/transfer/transfer')).toBe(false);
    await user.click(within(popup).getByRole('button', { name: 'Transfer Status' }));
    await waitFor(() => expect(location()).toBe('/ftx'));
  });

  it('with ftX and the agent not running, says so and offers Launch and Download; choosing a source account goes back to Direct', async () => {
    forgetAgentKey();
    stubApiAndAgent(
      {
        'GET /api/users/_me': { status: 200, body: withOrganization({ confirmed_c2c: true }) },
        'GET /api/cloud_accounts/': { status: 200, body: accounts },
        ...listingHandlers(),
      },
      fakeAgent({ running: false }),
    );
    const { user } = renderAt('/migration');
    await pickBuckets(user);
    await pick(user, 'Transfer Type', 'ftX');
    expect(await screen.findByText(agentMessages.ftxNotRunning)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: agentMessages.launchFtx })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: agentMessages.downloadFtx })).toHaveAttribute('href', '/desktop');

    await pick(user, 'Source Account', 'Main AWS');
    await waitFor(() => expect(selectedValue('Transfer Type')).toBe('Direct'));
    expect(screen.queryByText(agentMessages.ftxNotRunning)).toBeNull();
    expect(screen.getByRole('button', { name: 'Copy Entire Buckets' })).toBeEnabled();
  });
});

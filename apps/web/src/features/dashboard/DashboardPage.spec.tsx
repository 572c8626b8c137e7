import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  DASHBOARD_WIDGETS,
  DASHBOARD_WIDGET_IDS,
  PROVIDER_NAMES,
  analyticsReadMessages,
  dashboardMessages,
  syncMessages,
  type CloudAccountView,
  type DashboardWidgetId,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { GB, buildBucket, buildCloudAccount } from '../accounts/account-factories.ts';
import { buildBatch } from '../transfers/transfer-factories.ts';
import { buildSyncJob } from '../sync/sync-factories.ts';

const owner = buildProfile();
const member = buildProfile({ role: { id: 3, title: 'User' } });

const awsAccount = buildCloudAccount({
  id: 'aws-1',
  name: 'Main archive',
  provider: 'aws',
  storages: [
    buildBucket({
      name: 'logs',
      cloud_account_id: 'aws-1',
      region: 'us-east-1',
      creationDate: '2024-01-15T12:00:00.000Z',
      size: 3 * GB,
      object_count: 1200,
      cost: 0.07,
    }),
    buildBucket({
      name: 'photos',
      cloud_account_id: 'aws-1',
      region: 'eu-west-1',
      creationDate: '2024-06-20T12:00:00.000Z',
      size: 7 * GB,
      object_count: 300,
      cost: 0.16,
      inventory_status: 'running',
    }),
  ],
});
const azureAccount = buildCloudAccount({
  id: 'azure-1',
  name: 'Blob store',
  provider: 'azure',
  cloudType: 4,
  storages: [
    buildBucket({
      name: 'media',
      cloud_account_id: 'azure-1',
      region: 'westeurope',
      inventory_status: 'failed',
    }),
  ],
});
const wasabiAccount = buildCloudAccount({
  id: 'wasabi-1',
  name: 'Cold storage',
  provider: 'wasabi',
  cloudType: 2,
  storages: [buildBucket({ name: 'backup', cloud_account_id: 'wasabi-1' })],
});
const accounts = [awsAccount, azureAccount, wasabiAccount];

function stubDashboard(
  options: { profile?: typeof owner; accounts?: CloudAccountView[] | FakeReply } = {},
  extra: Parameters<typeof stubApi>[0] = {},
) {
  const list = options.accounts ?? accounts;
  return stubApi({
    'GET /api/users/_me': { status: 200, body: options.profile ?? owner },
    'GET /api/cloud_accounts/': Array.isArray(list) ? { status: 200, body: list } : list,
    'GET /api/cloud_accounts/access_info': { status: 200, body: { userType: 4, providers: PROVIDER_NAMES } },
    'GET /api/transfer/get_all': { status: 200, body: { items: [], total: 0, page: 1, pagesize: 20 } },
    'GET /api/sync/get_jobs': { status: 200, body: { data: [] } },
    ...extra,
  });
}

const accountRow = (name: string) => screen.getByRole('button', { name }).closest('tr') as HTMLElement;

describe('Dashboard (GET /api/cloud_accounts/ stubbed)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('lists the accounts, expands one at a time and collapses the open one on a second click', async () => {
    stubDashboard();
    const { user } = renderAt('/dashboard');

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Main archive' })).toBeInTheDocument();
    const awsRow = accountRow('Main archive');
    expect(within(awsRow).getByText('10 GB')).toBeInTheDocument();
    expect(within(awsRow).getByText('2 buckets · $0.23/month est.')).toBeInTheDocument();
    for (const title of ['Name', 'Storage', 'Actions']) {
      expect(screen.getByRole('columnheader', { name: title })).toBeInTheDocument();
    }

    await user.click(screen.getByRole('button', { name: 'Main archive' }));
    const buckets = await screen.findByRole('table', { name: 'Buckets of Main archive' });
    for (const title of ['Name', 'Region', 'Created', 'Size', 'Objects', 'Est. cost/month']) {
      expect(within(buckets).getByRole('columnheader', { name: title })).toBeInTheDocument();
    }
    const logs = within(buckets).getByText('logs').closest('tr') as HTMLElement;
    expect(within(logs).getByText('us-east-1')).toBeInTheDocument();
    expect(within(logs).getByText('01/15/2024')).toBeInTheDocument();
    expect(within(logs).getByText('3 GB')).toBeInTheDocument();
    expect(within(logs).getByText('1,200')).toBeInTheDocument();
    expect(within(logs).getByText('$0.07')).toBeInTheDocument();
    const photos = within(buckets).getByText('photos').closest('tr') as HTMLElement;
    expect(within(photos).getByText('Counting')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Blob store' }));
    expect(await screen.findByRole('table', { name: 'Buckets of Blob store' })).toBeInTheDocument();
    expect(screen.getByText('Count failed')).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.queryByRole('table', { name: 'Buckets of Main archive' })).not.toBeInTheDocument(),
    );

    await user.click(screen.getByRole('button', { name: 'Blob store' }));
    await waitFor(() =>
      expect(screen.queryByRole('table', { name: 'Buckets of Blob store' })).not.toBeInTheDocument(),
    );
    expect(screen.getByRole('button', { name: 'Blob store' })).toHaveAttribute('aria-expanded', 'false');
  });

  it('lists the 20 newest migrations in Recent Transfers (GET /transfer/get_all stubbed)', async () => {
    const newest = buildBatch({
      id: 'batch-0',
      sourceCloudAccount: { id: 'aws-1', name: 'Main archive' },
      sourceBucket: 'logs',
      destinationCloudAccount: { id: 'azure-1', name: 'Blob store' },
      destinationBucket: 'logs-copy',
      totalSize: 3 * GB,
      transferredSize: 2 * GB,
      requestDate: '2025-05-01T12:00:00.000Z',
      transferred: 1200,
      skipped: 30,
      failed: 4,
    });
    const older = Array.from({ length: 20 }, (_, index) =>
      buildBatch({ id: `batch-${index + 1}`, sourceBucket: `older-${index + 1}` }),
    );
    const calls = stubDashboard(
      {},
      {
        'GET /api/transfer/get_all': {
          status: 200,
          body: { items: [newest, ...older], total: 21, page: 1, pagesize: 20 },
        },
      },
    );
    renderAt('/dashboard');

    // With a fixed scroll height antd draws the header and the body as two tables: read them together.
    const [headerTable] = await screen.findAllByRole('table', { name: 'Recent Transfers' });
    const table = headerTable?.closest('.ant-table') as HTMLElement;
    for (const title of [
      'Source',
      'Destination',
      'Total size',
      'Transferred size',
      'Requested',
      'Transferred',
      'Skipped',
      'Failed',
    ]) {
      expect(within(table).getByRole('columnheader', { name: title })).toBeInTheDocument();
    }
    const row = (await within(table).findByText('logs')).closest('tr') as HTMLElement;
    for (const text of [
      'Main archive',
      'Blob store',
      'logs-copy',
      '3 GB',
      '2 GB',
      'May-01-25',
      '1,200',
      '30',
      '4',
    ]) {
      expect(within(row).getByText(text)).toBeInTheDocument();
    }
    // At most 20 rows, even if the answer held more.
    expect(within(table).getByText('older-19')).toBeInTheDocument();
    expect(within(table).queryByText('older-20')).toBeNull();
    const request = calls.find((call) => call.path === '/api/transfer/get_all');
    expect(request?.search).toBe('?type=1&pagesize=20&page=1');
  });

  it('lists every sync and replication job, and activates one after the confirmation', async () => {
    const replication = buildSyncJob(
      {
        id: 'b5e0c1d2-3f4a-4b5c-8d6e-7f8091a2b3c4',
        kind: 'replication',
        sourceBucket: 'media',
        active: false,
      },
      { lastCycle: { id: 'c-1', date: '2025-06-03T09:30:00.000Z', status: 8 }, lastError: 'Quota exceeded' },
    );
    const calls = stubDashboard(
      {},
      {
        'GET /api/sync/get_jobs': { status: 200, body: { data: [buildSyncJob(), replication] } },
        'POST /api/sync/activate': { status: 200, body: { message: syncMessages.activated } },
      },
    );
    const { user } = renderAt('/dashboard');

    const table = await screen.findByRole('table', { name: 'Sync Jobs' });
    const row = (await within(table).findByText('media')).closest('tr') as HTMLElement;
    expect(within(table).getByText('photos')).toBeInTheDocument();
    expect(within(row).getByRole('img', { name: 'Faulted' })).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/get_jobs')?.search).toBe('');

    await user.click(within(row).getByRole('switch', { name: 'Active' }));
    const text = syncMessages.confirmToggle(true, 'Main AWS/media', 'Cold Wasabi/archive');
    const dialog = await waitFor(() => {
      const found = screen.getAllByRole('dialog').find((candidate) => within(candidate).queryByText(text));
      if (!found) throw new Error('no confirmation');
      return found;
    });
    await user.click(within(dialog).getByRole('button', { name: 'Yes' }));
    expect(await screen.findByText(syncMessages.activated)).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/sync/activate')?.body).toEqual({
      id: replication.info.id,
      active: true,
    });
  });

  it('asks the exact confirmation, then deletes the account and shows the server message', async () => {
    let deleted = false;
    const calls = stubDashboard(
      { accounts: { status: 200, body: accounts } },
      {
        'GET /api/cloud_accounts/': () => ({
          status: 200,
          body: deleted ? [azureAccount, wasabiAccount] : accounts,
        }),
        'DELETE /api/cloudaccount/delete': () => {
          deleted = true;
          return { status: 200, body: { message: 'Main archive removed successfully' } };
        },
      },
    );
    const { user } = renderAt('/');

    await screen.findByRole('button', { name: 'Main archive' });
    await user.click(within(accountRow('Main archive')).getByRole('button', { name: 'Delete' }));

    const dialog = await screen.findByRole('dialog');
    expect(
      within(dialog).getByText('Do you want to remove the Main archive cloud account?'),
    ).toBeInTheDocument();
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));

    expect(await screen.findByText('Main archive removed successfully')).toBeInTheDocument();
    const deleteCall = calls.find((call) => call.method === 'DELETE');
    expect(deleteCall?.path).toBe('/api/cloudaccount/delete');
    expect(deleteCall?.search).toBe('?id=aws-1');
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Main archive' })).not.toBeInTheDocument(),
    );
  });

  it('offers Create bucket only on aws and wasabi accounts, and opens the create-bucket screen', async () => {
    stubDashboard();
    const { user, location } = renderAt('/dashboard');

    await screen.findByRole('button', { name: 'Main archive' });
    expect(
      within(accountRow('Main archive')).getByRole('button', { name: 'Create bucket' }),
    ).toBeInTheDocument();
    expect(
      within(accountRow('Cold storage')).getByRole('button', { name: 'Create bucket' }),
    ).toBeInTheDocument();
    expect(within(accountRow('Blob store')).queryByRole('button', { name: 'Create bucket' })).toBeNull();
    // Every account keeps its other actions.
    for (const action of ['Alerts', 'Edit', 'Refresh sizes', 'Compare prices', 'Delete']) {
      expect(within(accountRow('Blob store')).getByRole('button', { name: action })).toBeInTheDocument();
    }

    await user.click(within(accountRow('Cold storage')).getByRole('button', { name: 'Create bucket' }));
    await waitFor(() => expect(location()).toBe('/addBucket/wasabi/wasabi-1'));
  });

  it('leads from the row actions to alerts, edit, price comparison and a bucket alert', async () => {
    stubDashboard();
    const { user, location, router } = renderAt('/dashboard');

    await screen.findByRole('button', { name: 'Main archive' });
    const targets: Array<[string, string]> = [
      ['Alerts', '/setAlert/aws-1'],
      ['Edit', '/addProvider/aws/aws-1'],
      ['Compare prices', '/cloud-compare/aws-1'],
    ];
    for (const [action, path] of targets) {
      await user.click(within(accountRow('Main archive')).getByRole('button', { name: action }));
      await waitFor(() => expect(location()).toBe(path));
      await router.navigate('/dashboard');
      await screen.findByRole('button', { name: 'Main archive' });
    }

    await user.click(screen.getByRole('button', { name: 'Main archive' }));
    const buckets = await screen.findByRole('table', { name: 'Buckets of Main archive' });
    const photos = within(buckets).getByText('photos').closest('tr') as HTMLElement;
    await user.click(within(photos).getByRole('button', { name: 'Set alert' }));
    await waitFor(() => expect(location()).toBe('/setAlert/aws-1/photos'));
  });

  it('refreshes the sizes of an account and shows the answer', async () => {
    const calls = stubDashboard(
      {},
      {
        'POST /api/cloud_accounts/aws-1/inventory': {
          status: 202,
          body: { message: 'Refreshing the buckets of Main archive.' },
        },
      },
    );
    const { user } = renderAt('/dashboard');

    await screen.findByRole('button', { name: 'Main archive' });
    await user.click(within(accountRow('Main archive')).getByRole('button', { name: 'Refresh sizes' }));

    expect(await screen.findByText('Refreshing the buckets of Main archive.')).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/cloud_accounts/aws-1/inventory')).toHaveLength(1);
  });

  it('shows no manage actions to the role User', async () => {
    const calls = stubDashboard({ profile: member });
    const { user } = renderAt('/dashboard');

    await screen.findByRole('button', { name: 'Main archive' });
    for (const name of ['Main archive', 'Blob store', 'Cold storage']) {
      const row = accountRow(name);
      for (const action of ['Create bucket', 'Edit', 'Delete']) {
        expect(within(row).queryByRole('button', { name: action })).toBeNull();
      }
      expect(within(row).getByRole('button', { name: 'Alerts' })).toBeInTheDocument();
      expect(within(row).getByRole('button', { name: 'Compare prices' })).toBeInTheDocument();
    }
    expect(screen.queryByRole('button', { name: 'Add Your Cloud Account' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Main archive' }));
    expect(await screen.findByRole('table', { name: 'Buckets of Main archive' })).toBeInTheDocument();
    expect(calls.some((call) => call.path === '/api/cloud_accounts/access_info')).toBe(false);
  });

  it('offers Add Your Cloud Account with a provider dropdown to an Owner', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: owner },
      'GET /api/cloud_accounts/': { status: 200, body: accounts },
      'GET /api/cloud_accounts/access_info': {
        status: 200,
        body: { userType: 4, providers: ['aws', 'wasabi', 'azure', 'google'] },
      },
    });
    const { user, location } = renderAt('/dashboard');

    const chooser = await screen.findByRole('button', { name: 'Choose a provider to add' });
    await waitFor(() => expect(chooser).toBeEnabled());
    await user.click(chooser);
    const google = await screen.findByRole('link', { name: 'Google Cloud' });
    const menu = google.closest('[role="menu"]') as HTMLElement;
    const links = within(menu).getAllByRole('link');
    expect(links.map((link) => link.getAttribute('href'))).toEqual([
      '/addProvider/aws',
      '/addProvider/wasabi',
      '/addProvider/azure',
      '/addProvider/google',
    ]);
    expect(within(menu).getByRole('img', { name: 'Google Cloud' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Add Your Cloud Account' }));
    await waitFor(() => expect(location()).toBe('/addProvider/wasabi'));
  });

  it('sends an Owner without accounts to /addProvider', async () => {
    stubDashboard({ accounts: [] });
    const { location } = renderAt('/dashboard');
    await waitFor(() => expect(location()).toBe('/addProvider'));
  });

  it('does not send an Owner to /addProvider once they have gone on to another page', async () => {
    // A menu click while the list loads: the browser's entry has moved on while the dashboard is still on screen.
    window.history.replaceState({ key: 'the-next-page' }, '');
    try {
      const calls = stubDashboard({ accounts: [] });
      const { location } = renderAt('/dashboard');
      const asked = (path: string) => calls.some((call) => call.path === path);
      await waitFor(() => expect(asked('/api/cloud_accounts/') && asked('/api/users/_me')).toBe(true));
      // Both answers in and rendered (the test above is redirected by then): still here.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(location()).toBe('/dashboard');
    } finally {
      window.history.replaceState(null, '');
    }
  });

  it('tells a User without accounts that none is connected, and Refresh asks again', async () => {
    let answers = 0;
    const calls = stubDashboard(
      { profile: member },
      {
        'GET /api/cloud_accounts/': () => {
          answers += 1;
          return { status: 200, body: answers === 1 ? [] : [wasabiAccount] };
        },
      },
    );
    const { user, location } = renderAt('/dashboard');

    expect(await screen.findByText('You currently have no cloud accounts connected')).toBeInTheDocument();
    expect(location()).toBe('/dashboard');
    await user.click(screen.getByRole('button', { name: 'Refresh' }));

    expect(await screen.findByRole('button', { name: 'Cold storage' })).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/cloud_accounts/')).toHaveLength(2);
  });

  it('shows the empty text with the error when the list cannot be loaded', async () => {
    stubDashboard({ accounts: { status: 403, body: { message: 'You do not have permission to do this.' } } });
    renderAt('/dashboard');

    expect(await screen.findByText('You currently have no cloud accounts connected')).toBeInTheDocument();
    expect(screen.getByText('You do not have permission to do this.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeInTheDocument();
  });

  it('filters buckets by name, hides accounts without a match, and un-hides buckets on collapse', async () => {
    stubDashboard();
    const { user } = renderAt('/dashboard');

    await screen.findByRole('button', { name: 'Main archive' });
    await user.type(screen.getByLabelText('Bucket name'), 'PHOTO');

    await waitFor(() => expect(screen.queryByRole('button', { name: 'Blob store' })).not.toBeInTheDocument());
    expect(screen.queryByRole('button', { name: 'Cold storage' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Main archive' }));
    const buckets = await screen.findByRole('table', { name: 'Buckets of Main archive' });
    expect(within(buckets).getByText('photos')).toBeInTheDocument();
    expect(within(buckets).queryByText('logs')).toBeNull();
    expect(screen.getByText(/1 bucket is hidden by the filters\./)).toBeInTheDocument();

    // Collapsing the open account un-hides its buckets (spec 000 §2).
    await user.click(screen.getByRole('button', { name: 'Main archive' }));
    await user.click(screen.getByRole('button', { name: 'Main archive' }));
    const all = await screen.findByRole('table', { name: 'Buckets of Main archive' });
    expect(within(all).getByText('logs')).toBeInTheDocument();
    expect(within(all).getByText('photos')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(await screen.findByRole('button', { name: 'Blob store' })).toBeInTheDocument();
  });

  it('refetches the list when the hub reports an inventory, so new sizes show without reloading', async () => {
    const sockets: Array<{ onmessage: ((event: MessageEvent) => void) | null }> = [];
    vi.stubGlobal(
      'WebSocket',
      class {
        onopen = null;
        onmessage: ((event: MessageEvent) => void) | null = null;
        onclose = null;
        onerror = null;
        constructor() {
          sockets.push(this);
        }
        close(): void {}
      },
    );
    const counted = buildCloudAccount({
      ...wasabiAccount,
      storages: [buildBucket({ name: 'backup', cloud_account_id: 'wasabi-1', size: 5 * GB })],
      total_bytes_used: 5 * GB,
    });
    let inventoryDone = false;
    const calls = stubDashboard(
      {},
      {
        // No bucket is being counted in these lists, so the list is not polled: only the message refetches it.
        'GET /api/cloud_accounts/': () => ({ status: 200, body: [inventoryDone ? counted : wasabiAccount] }),
      },
    );
    renderAt('/dashboard');

    const row = () => screen.getByRole('button', { name: 'Cold storage' }).closest('tr') as HTMLElement;
    await screen.findByRole('button', { name: 'Cold storage' });
    expect(within(row()).getByText('0 Bytes')).toBeInTheDocument();

    inventoryDone = true;
    const hub = sockets.filter((socket) => socket.onmessage).at(-1);
    hub?.onmessage?.(
      new MessageEvent('message', {
        data: JSON.stringify({
          type: 'inventory',
          data: {
            cloud_account_id: 'wasabi-1',
            bucket_name: 'backup',
            status: 'done',
            object_count: 9,
            size: 5 * GB,
          },
        }),
      }),
    );

    await waitFor(() => expect(within(row()).getByText('5 GB')).toBeInTheDocument());
    expect(calls.filter((call) => call.path === '/api/cloud_accounts/')).toHaveLength(2);
  });
});

describe('Dashboard widgets per member (GET /api/dashboard and its changes stubbed)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  /** A fake of the server's layout store: the three changing calls edit it, GET answers it. */
  function layoutServer(initial: DashboardWidgetId[] | null) {
    let saved = initial;
    const current = () => saved ?? [...DASHBOARD_WIDGET_IDS];
    const answer = (message: string): FakeReply => ({
      status: 200,
      body: { message, customised: true, widgets: current().map((id, position) => ({ id, position })) },
    });
    return {
      saved: () => saved,
      handlers: {
        'GET /api/dashboard': () => ({
          status: 200,
          body: { customised: saved !== null, widgets: current().map((id, position) => ({ id, position })) },
        }),
        'PUT /api/dashboard/create': (call: RecordedCall) => {
          const { id } = call.body as { id: DashboardWidgetId };
          saved = [...current().filter((widget) => widget !== id), id];
          return answer(dashboardMessages.added(DASHBOARD_WIDGETS[id]));
        },
        'PUT /api/dashboard/createAll': (call: RecordedCall) => {
          saved = (call.body as { widgets: DashboardWidgetId[] }).widgets;
          return answer(dashboardMessages.saved);
        },
        'DELETE /api/dashboard': (call: RecordedCall) => {
          const id = new URLSearchParams(call.search).get('id') as DashboardWidgetId;
          saved = current().filter((widget) => widget !== id);
          return answer(dashboardMessages.removed(DASHBOARD_WIDGETS[id]));
        },
      },
    };
  }

  const titles: string[] = Object.values(DASHBOARD_WIDGETS);
  /** The widgets being arranged, in page order (other regions of the page left out). */
  const regionNames = () =>
    screen
      .getAllByRole('region')
      .map((region) => region.getAttribute('aria-label') ?? '')
      .filter((name) => titles.includes(name));

  it('shows a member their saved widgets in their order, and no others', async () => {
    const store = layoutServer(['recent_transfers', 'accounts']);
    stubDashboard({}, store.handlers);
    renderAt('/dashboard');

    await screen.findByRole('button', { name: 'Main archive' });
    await screen.findAllByRole('table', { name: 'Recent Transfers' });
    // Recent Transfers comes first, as saved.
    const [transfers] = screen.getAllByRole('table', { name: 'Recent Transfers' });
    const account = screen.getByRole('button', { name: 'Main archive' });
    expect(
      (transfers?.compareDocumentPosition(account) ?? 0) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
    expect(screen.queryByText('Storage used')).toBeNull();
    expect(screen.queryByText('No alerts')).toBeNull();
  });

  it('removes, moves and adds widgets; each change is saved and the layout is the same after a reload', async () => {
    const store = layoutServer(null);
    // One account keeps the page light: the test is about the layout, not the account table.
    const calls = stubDashboard({ accounts: [wasabiAccount] }, store.handlers);
    const first = renderAt('/dashboard');
    const { user } = first;

    await screen.findByRole('button', { name: 'Cold storage' });
    await user.click(screen.getByRole('button', { name: 'Arrange widgets' }));
    expect(regionNames()).toEqual(DASHBOARD_WIDGET_IDS.map((id) => DASHBOARD_WIDGETS[id]));
    expect(screen.getByRole('button', { name: 'Move Active Cloud Providers up' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Remove Usage' }));
    await waitFor(() => expect(regionNames()).not.toContain('Usage'));
    await user.click(screen.getByRole('button', { name: 'Move Alerts up' }));
    await waitFor(() =>
      expect(regionNames()).toEqual([
        'Active Cloud Providers',
        'Sync Jobs',
        'Alerts',
        'Recent Transfers',
        'Analytics',
      ]),
    );
    await waitFor(() =>
      expect(store.saved()).toEqual(['accounts', 'sync_jobs', 'alerts', 'recent_transfers', 'analytics']),
    );

    await user.click(screen.getByRole('combobox', { name: 'Add a widget' }));
    await user.click(await screen.findByTitle('Usage'));
    await waitFor(() =>
      expect(regionNames()).toEqual([
        'Active Cloud Providers',
        'Sync Jobs',
        'Alerts',
        'Recent Transfers',
        'Analytics',
        'Usage',
      ]),
    );
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('button', { name: 'Remove Usage' })).toBeNull();

    expect(calls.filter((call) => call.path.startsWith('/api/dashboard') && call.method !== 'GET')).toEqual([
      expect.objectContaining({ method: 'DELETE', search: '?id=usage' }),
      expect.objectContaining({
        method: 'PUT',
        path: '/api/dashboard/createAll',
        body: { widgets: ['accounts', 'sync_jobs', 'alerts', 'recent_transfers', 'analytics'] },
      }),
      expect.objectContaining({ method: 'PUT', path: '/api/dashboard/create', body: { id: 'usage' } }),
    ]);

    // A reload: a new page asks the server again and shows the saved order.
    first.unmount();
    const second = renderAt('/dashboard');
    await screen.findByRole('button', { name: 'Cold storage' });
    await second.user.click(screen.getByRole('button', { name: 'Arrange widgets' }));
    expect(regionNames()).toEqual([
      'Active Cloud Providers',
      'Sync Jobs',
      'Alerts',
      'Recent Transfers',
      'Analytics',
      'Usage',
    ]);
  });

  it('puts a refused change back and says why', async () => {
    const store = layoutServer(['accounts', 'alerts']);
    stubDashboard(
      { accounts: [wasabiAccount] },
      {
        ...store.handlers,
        'DELETE /api/dashboard': {
          status: 404,
          body: { message: dashboardMessages.notOnDashboard('Alerts') },
        },
      },
    );
    const { user } = renderAt('/dashboard');

    await screen.findByRole('button', { name: 'Cold storage' });
    await user.click(screen.getByRole('button', { name: 'Arrange widgets' }));
    await user.click(screen.getByRole('button', { name: 'Remove Alerts' }));
    expect(await screen.findByText(dashboardMessages.notOnDashboard('Alerts'))).toBeInTheDocument();
    await waitFor(() => expect(regionNames()).toEqual(['Active Cloud Providers', 'Alerts']));
  });

  it('sums the accounts in Usage and lists the newest notifications in Alerts', async () => {
    const store = layoutServer(['usage', 'alerts']);
    stubDashboard(
      {},
      {
        ...store.handlers,
        'GET /api/notifications': {
          status: 200,
          body: [
            {
              id: 'n-1',
              read: false,
              title: 'Size limit reached',
              description: 'logs is above 2 GB.',
              status: 'alerts',
              last_notified: new Date().toISOString(),
              avatar: null,
            },
          ],
        },
      },
    );
    renderAt('/dashboard');

    expect(await screen.findByText('Storage used')).toBeInTheDocument();
    const usage = screen.getByText('Storage used').closest('.ant-card') as HTMLElement;
    // 3 GB + 7 GB in Main archive; 2 + 1 + 1 buckets; 3 accounts; $0.07 + $0.16 estimated.
    const statistic = (title: string) =>
      within(usage).getByText(title).closest('.ant-statistic')?.querySelector('.ant-statistic-content')
        ?.textContent;
    expect(statistic('Storage used')).toBe('10 GB');
    expect(statistic('Buckets')).toBe('4');
    expect(statistic('Cloud accounts')).toBe('3');
    expect(statistic('Estimated monthly cost')).toBe('$0.23');
    expect(await screen.findByText('Size limit reached')).toBeInTheDocument();
    expect(screen.getByText('logs is above 2 GB.')).toBeInTheDocument();
  });

  it("calls Usage's cost a monthly cost, not an estimate, once an account's billing reports are in", async () => {
    const store = layoutServer(['usage']);
    stubDashboard(
      { accounts: [{ ...awsAccount, total_cost: 987.29, cost_month: '2026-10' }, wasabiAccount] },
      store.handlers,
    );
    renderAt('/dashboard');
    const usage = (await screen.findByText('Storage used')).closest('.ant-card') as HTMLElement;
    expect(within(usage).getByText('Monthly cost')).toBeInTheDocument();
    expect(within(usage).queryByText('Estimated monthly cost')).toBeNull();
    expect(
      within(usage).getByText('Billed where reports are ingested, estimated from storage otherwise'),
    ).toBeInTheDocument();
  });

  it('lists this month’s costliest analytics items for an organisation with the Analytics package', async () => {
    const store = layoutServer(['analytics']);
    stubDashboard(
      { profile: buildProfile({ packages: [{ title: 'Analytics' }] }) },
      {
        ...store.handlers,
        'GET /api/analytics/dashboard': {
          status: 200,
          body: [
            {
              cloud_account_id: '0b7d7c36-0000-4000-8000-000000000001',
              product_name: 'AmazonS3',
              usage_type: 'TimedStorage-ByteHrs',
              total_cost: 812.5,
              bucket_name: 'logs',
              database_name: null,
            },
            {
              cloud_account_id: '0b7d7c36-0000-4000-8000-000000000001',
              product_name: 'AmazonRDS',
              usage_type: 'InstanceUsage:db.t3.micro',
              total_cost: 40.25,
              bucket_name: null,
              database_name: 'orders-db',
            },
          ],
        },
      },
    );
    renderAt('/dashboard');

    const table = await screen.findByRole('table', { name: 'Costliest items this month' });
    const s3 = (await within(table).findByText('TimedStorage-ByteHrs')).closest('tr') as HTMLElement;
    expect(within(s3).getByText('S3')).toBeInTheDocument();
    expect(within(s3).getByText('logs')).toBeInTheDocument();
    expect(within(s3).getByText('$812.50')).toBeInTheDocument();
    const rds = within(table).getByText('InstanceUsage:db.t3.micro').closest('tr') as HTMLElement;
    expect(within(rds).getByText('Amazon RDS')).toBeInTheDocument();
    expect(within(rds).getByText('orders-db')).toBeInTheDocument();
    expect(within(rds).getByText('$40.25')).toBeInTheDocument();
  });

  it('offers the Analytics package instead, and asks for no analytics, without it', async () => {
    const store = layoutServer(['analytics']);
    const calls = stubDashboard({}, store.handlers);
    const { user } = renderAt('/dashboard');

    expect(await screen.findByText(analyticsReadMessages.packageRequired)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Subscribe to Analytics' }));
    expect(await screen.findByRole('dialog', { name: 'Subscribe to Analytics' })).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Costliest items this month' })).toBeNull();
    expect(calls.some((call) => call.path.startsWith('/api/analytics'))).toBe(false);
  });
});

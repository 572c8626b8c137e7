import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { alertMessages, AUTH_STORAGE_KEY, type AlertView, type CloudAccountView } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const ACCOUNT_ID = '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01';
const OTHER_ACCOUNT_ID = '0b8e4d2c-7a13-4f5e-8c9d-1e2f3a4b5c6d';

function buildStorage(bucketName: string, size: number, cost: number) {
  return {
    id: `${ACCOUNT_ID}/${bucketName}`,
    name: bucketName,
    bucket_name: bucketName,
    region: 'us-east-1',
    creationDate: '2025-01-10T08:00:00.000Z',
    size,
    object_count: 42,
    cost,
    cloud_account_id: ACCOUNT_ID,
    inventory_status: 'done',
    inventoried_at: '2025-06-01T08:00:00.000Z',
  };
}

function buildAccount(overrides: Partial<CloudAccountView> = {}): CloudAccountView {
  return {
    id: ACCOUNT_ID,
    name: 'Main AWS',
    project_name: 'Main AWS',
    provider: 'aws',
    cloudType: 1,
    account_type_id: 1,
    serviceUrl: null,
    endpoint: null,
    billing_bucket: null,
    total_cost: 0.5,
    total_bytes_used: 3 * 1024 ** 3,
    bucket_count: 2,
    storages: [buildStorage('photos', 2 * 1024 ** 3, 0.046), buildStorage('backups', 1024 ** 3, 0.023)],
    info: { access_key: 'AKIA••••WXYZ', secret_key: '••••', region: 'us-east-1', endpoint: null },
    created_at: '2025-01-01T08:00:00.000Z',
    ...overrides,
  };
}

function buildAlert(overrides: Partial<AlertView> = {}): AlertView {
  return {
    id: 'a1b2c3d4-0000-4000-8000-000000000001',
    type: 'SIZE',
    kind: 'SIZE',
    size_limit: 10 * 1024 ** 3,
    cost_limit: null,
    last_notified: null,
    bucket_name: null,
    cloud_account_id: ACCOUNT_ID,
    service: 'S3',
    created_at: '2025-05-01T08:00:00.000Z',
    ...overrides,
  };
}

const ACCOUNT_ALERT = buildAlert();
const BUCKET_ALERT = buildAlert({
  id: 'a1b2c3d4-0000-4000-8000-000000000002',
  type: 'COST',
  kind: 'COST',
  size_limit: null,
  cost_limit: 1.5,
  bucket_name: 'photos',
  last_notified: '2025-06-03T09:30:00.000Z',
});

const alertsPath = `/api/cloud_accounts/${ACCOUNT_ID}/notifications`;

function stubAlertsApi(extra: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)> = {}) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile() },
    'GET /api/cloud_accounts/': {
      status: 200,
      body: [buildAccount(), buildAccount({ id: OTHER_ACCOUNT_ID, name: 'Archive Wasabi', storages: [] })],
    },
    [`GET ${alertsPath}`]: { status: 200, body: [ACCOUNT_ALERT, BUCKET_ALERT] },
    'POST /api/notifications/': (call) => ({
      status: 201,
      body: buildAlert({ id: 'a1b2c3d4-0000-4000-8000-000000000003', ...(call.body as object) }),
    }),
    ...extra,
  });
}

const alertListCalls = (calls: RecordedCall[]) =>
  calls.filter((call) => call.method === 'GET' && call.path === alertsPath).length;

async function openNewAlertModal(user: ReturnType<typeof renderAt>['user']) {
  await user.click(await screen.findByText('set new alert'));
  return screen.findByRole('dialog', { name: 'Set new alert' });
}

describe('Alerts screen /setAlert (the network is stubbed with vi.stubGlobal fetch)', () => {
  // The route loads the page lazily; transforming its modules once up front keeps the first test's waits honest.
  beforeAll(async () => {
    await import('./AlertsPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it("lists the account's alerts with type, scope, limit and last notification, and the watched usage", async () => {
    stubAlertsApi();
    renderAt(`/setAlert/${ACCOUNT_ID}`);

    expect(
      await screen.findByRole('heading', { name: 'Set up notifications for Main AWS' }),
    ).toBeInTheDocument();
    expect(screen.getByText('Go back').closest('a')).toHaveAttribute('href', '/');
    expect(screen.getByText('3 GB')).toBeInTheDocument();
    expect(screen.getByText('$0.50000')).toBeInTheDocument();

    const accountRow = (await screen.findByText('Whole account')).closest('tr');
    const bucketRow = screen.getByText('photos').closest('tr');
    expect(accountRow).toHaveTextContent('SIZE');
    expect(accountRow).toHaveTextContent('10 GB');
    expect(accountRow).toHaveTextContent('Never');
    expect(bucketRow).toHaveTextContent('COST');
    expect(bucketRow).toHaveTextContent('$1.50000');
    expect(bucketRow).toHaveTextContent('06/03/2025');
  });

  it("names a billed account's cost as its month's bill, the figure its cost alerts compare", async () => {
    stubAlertsApi({
      'GET /api/cloud_accounts/': {
        status: 200,
        body: [buildAccount({ billing_bucket: 'cur', total_cost: 987.29195, cost_month: '2026-10' })],
      },
    });
    const { user } = renderAt(`/setAlert/${ACCOUNT_ID}`);
    expect(await screen.findByText('Billed cost, October 2026')).toBeInTheDocument();
    expect(screen.getByText('$987.29195')).toBeInTheDocument();
    expect(screen.queryByText('Estimated monthly cost')).not.toBeInTheDocument();
    const dialog = await openNewAlertModal(user);
    await user.click(within(dialog).getByText('COST'));
    expect(await within(dialog).findByText('Billed cost, October 2026: $987.29195')).toBeInTheDocument();
  });

  it('sends 5 GB as 5368709120 bytes for the whole account, toasts and reloads the list', async () => {
    const calls = stubAlertsApi();
    const { user } = renderAt(`/setAlert/${ACCOUNT_ID}`);
    await screen.findByText('10 GB');
    expect(alertListCalls(calls)).toBe(1);

    const dialog = await openNewAlertModal(user);
    expect(within(dialog).getByRole('radio', { name: 'SIZE' })).toBeChecked();
    await user.type(within(dialog).getByLabelText('Size limit'), '5');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText(alertMessages.created)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: null,
      size_limit: 5368709120,
      cost_limit: null,
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Set new alert' })).toBeNull());
    await waitFor(() => expect(alertListCalls(calls)).toBe(2));
  });

  it('converts 100 MB to 104857600 bytes', async () => {
    const calls = stubAlertsApi();
    const { user } = renderAt(`/setAlert/${ACCOUNT_ID}`);

    const dialog = await openNewAlertModal(user);
    await user.type(within(dialog).getByLabelText('Size limit'), '100');
    await user.click(within(dialog).getByRole('radio', { name: 'MB' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    await screen.findByText(alertMessages.created);
    expect(calls.find((call) => call.method === 'POST')?.body).toMatchObject({
      size_limit: 104857600,
      cost_limit: null,
    });
  });

  it('a COST alert sends cost_limit and a null size_limit, on the chosen bucket', async () => {
    const calls = stubAlertsApi();
    const { user } = renderAt(`/setAlert/${ACCOUNT_ID}`);

    const dialog = await openNewAlertModal(user);
    await user.click(within(dialog).getByRole('radio', { name: 'COST' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText(alertMessages.costRequired)).toBeInTheDocument();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);

    await user.type(within(dialog).getByLabelText('Cost limit (USD)'), '12.5');
    await user.click(within(dialog).getByLabelText('Bucket'));
    await user.click(await screen.findByTitle('backups'));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    await screen.findByText(alertMessages.created);
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: 'backups',
      size_limit: null,
      cost_limit: 12.5,
    });
  });

  it('with a bucket in the route: names it in the heading, lists its alerts only and sets alerts on it', async () => {
    const calls = stubAlertsApi();
    const { user } = renderAt(`/setAlert/${ACCOUNT_ID}/photos`);

    expect(
      await screen.findByRole('heading', { name: 'Set up notifications for photos (Main AWS)' }),
    ).toBeInTheDocument();
    expect(await screen.findByText('$1.50000')).toBeInTheDocument();
    expect(screen.queryByText('Whole account')).toBeNull();
    expect(screen.getByText('2 GB')).toBeInTheDocument();

    const dialog = await openNewAlertModal(user);
    expect(within(dialog).getByLabelText('Bucket')).toHaveValue('photos');
    await user.type(within(dialog).getByLabelText('Size limit'), '1');
    await user.click(within(dialog).getByRole('radio', { name: 'TB' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    await screen.findByText(alertMessages.created);
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      cloud_account_id: ACCOUNT_ID,
      bucket_name: 'photos',
      size_limit: 1024 ** 4,
      cost_limit: null,
    });
  });

  it('deletes an alert after confirmation and shows the toast', async () => {
    const calls = stubAlertsApi({
      [`DELETE /api/notifications/${ACCOUNT_ALERT.id}`]: {
        status: 200,
        body: { message: alertMessages.deleted },
      },
    });
    const { user } = renderAt(`/setAlert/${ACCOUNT_ID}`);

    const row = (await screen.findByText('Whole account')).closest('tr');
    if (!row) throw new Error('the account-level alert has no table row');
    await user.click(within(row).getByLabelText(/Delete the SIZE alert/));
    await screen.findByText('Delete this alert?');
    await user.click(screen.getByText('Yes'));

    expect(await screen.findByText(alertMessages.deleted)).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([
      `/api/notifications/${ACCOUNT_ALERT.id}`,
    ]);
    await waitFor(() => expect(alertListCalls(calls)).toBe(2));
  });

  it("shows the spec's error text when the alerts cannot be fetched", async () => {
    stubAlertsApi({ [`GET ${alertsPath}`]: { status: 500, body: { message: 'database down' } } });
    renderAt(`/setAlert/${ACCOUNT_ID}`);

    // A 5xx is retried twice (after 1 s and 2 s) before the screen gives up.
    expect(await screen.findByText(alertMessages.fetchFailed, {}, { timeout: 15_000 })).toBeInTheDocument();
  }, 20_000);

  it('lets a User see the alerts but neither create nor delete them', async () => {
    stubAlertsApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 3, title: 'User' } }) },
    });
    renderAt(`/setAlert/${ACCOUNT_ID}`);

    expect(await screen.findByText('10 GB')).toBeInTheDocument();
    expect(screen.queryByText('set new alert')).toBeNull();
    expect(screen.queryByLabelText(/Delete the/)).toBeNull();
  });

  it('says so when the account id is unknown', async () => {
    stubAlertsApi();
    renderAt('/setAlert/7d1e0c55-1111-4222-8333-444455556666');

    expect(await screen.findByText('Cloud account not found')).toBeInTheDocument();
  });

  it('without an account in the path, choosing one opens its alerts', async () => {
    stubAlertsApi();
    const { user, location } = renderAt('/setAlert');

    await user.click(await screen.findByLabelText('Cloud account'));
    await user.click(await screen.findByTitle('Archive Wasabi'));

    await waitFor(() => expect(location()).toBe(`/setAlert/${OTHER_ACCOUNT_ID}`));
    expect(
      await screen.findByRole('heading', { name: 'Set up notifications for Archive Wasabi' }),
    ).toBeInTheDocument();
  });
});

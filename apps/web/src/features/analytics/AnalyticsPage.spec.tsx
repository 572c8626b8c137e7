import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  BILLING_REPORT_DOCUMENTS,
  analyticsReadMessages,
  type AnalyticsInstance,
  type AnalyticsOverview,
  type AnalyticsRunView,
  type CloudAccountView,
  type RoleTitle,
  type StorageCostEstimate,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildCloudAccount } from '../accounts/account-factories.ts';

const ACCOUNT_ID = '5b0c3a1e-0000-4000-8000-00000000a001';
const RUN_ID = '5b0c3a1e-0000-4000-8000-00000000b001';

const awsAccount = (extra: Partial<CloudAccountView> = {}) =>
  buildCloudAccount({ id: ACCOUNT_ID, name: 'Production AWS', billing_bucket: 'cur-reports', ...extra });

const product = (label: string, name: string, monthly_actual: number) => ({ label, name, monthly_actual });

/** A month as GET /analytics answers it: two categories, a credit and a tax apart from usage. */
const overview: AnalyticsOverview = {
  month: '2026-11',
  categories: [
    {
      name: 'Compute',
      monthly_actual: 120.5,
      size: 2,
      products: [product('EC2', 'AmazonEC2', 100.25), product('AWSLambda', 'AWSLambda', 20.25)],
    },
    {
      name: 'Storage',
      monthly_actual: 45.75,
      size: 2,
      products: [product('S3', 'AmazonS3', 40.5), product('EFS', 'AmazonEFS', 5.25)],
    },
  ],
  monthly_actual: 166.25,
  monthly_forecast: 310.4,
  compute_cost: 120.5,
  storage_cost: 45.75,
  line_item_types: [
    { line_item_type: 'Usage', cost: 170.25 },
    { line_item_type: 'Credit', cost: -10 },
    { line_item_type: 'Tax', cost: 6 },
  ],
  trend: Array.from({ length: 12 }, (_, i) => ({
    month: `2025-${String(i + 1).padStart(2, '0')}`,
    monthly_actual: i * 10,
  })),
  data_through: '2026-11-25',
  ingested_at: '2026-11-26T06:41:00.000Z',
};

const emptyMonth: AnalyticsOverview = {
  ...overview,
  categories: [],
  monthly_actual: 0,
  monthly_forecast: 0,
  compute_cost: 0,
  storage_cost: 0,
  line_item_types: [],
  data_through: null,
};

const run = (extra: Partial<AnalyticsRunView>): AnalyticsRunView => ({
  id: RUN_ID,
  cloud_account_id: ACCOUNT_ID,
  trigger: 'schedule',
  state: 'succeeded',
  queued_at: '2026-11-26T06:41:00.000Z',
  started_at: '2026-11-26T06:41:01.000Z',
  finished_at: '2026-11-26T06:42:00.000Z',
  periods_seen: 12,
  periods_replaced: 2,
  periods_skipped: 10,
  rows: 48210,
  error: null,
  ...extra,
});

const estimate = (extra: Partial<StorageCostEstimate>): StorageCostEstimate => ({
  cloud_account_id: ACCOUNT_ID,
  account_name: 'Production AWS',
  provider: 'aws',
  bucket_name: 'media',
  region: 'us-east-1',
  size: 1024 ** 4,
  estimated_cost: 23.55,
  billed_cost: 24.75,
  difference: 1.2,
  ...extra,
});

const instance = (name: string, state: AnalyticsInstance['state'], cost: number): AnalyticsInstance => ({
  id: `i-${name}`,
  name,
  monthly_actual: cost,
  state,
  state_source: 'report',
  products: [product('BoxUsage', 'BoxUsage', cost)],
});

interface World {
  role?: RoleTitle;
  accounts?: CloudAccountView[];
  runs?: AnalyticsRunView[];
  extra?: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)>;
}

/** The analytics screen's calls stubbed as the server answers them; `extra` adds or replaces any of them. */
function stubAnalytics({
  role = 'Owner',
  accounts = [awsAccount()],
  runs = [run({})],
  extra = {},
}: World = {}) {
  return stubApi({
    'GET /api/users/_me': {
      status: 200,
      body: buildProfile({ role: { id: 1, title: role }, packages: [{ title: 'Analytics' }] }),
    },
    'GET /api/cloud_accounts/': { status: 200, body: accounts },
    'GET /api/analytics': { status: 200, body: overview },
    'GET /api/analytics/runs': { status: 200, body: runs },
    'GET /api/analytics/periods': {
      status: 200,
      body: {
        months: [{ month: '2026-10', cost: 1234.5, ingested_at: null }],
        usage_accounts: ['111122223333'],
      },
    },
    'GET /api/analytics/transfers/usage': {
      status: 200,
      body: [{ service: 'c2c', usage: 3 * 1024 ** 3, total: 10 * 1024 ** 3 }],
    },
    'GET /api/analytics/transfers/history': {
      status: 200,
      body: [
        { id: 't1', cost: 0.01234, size: 5 * 1024 ** 3, ended: '2026-11-20T10:00:00.000Z', cloud: 'Wasabi' },
      ],
    },
    ...extra,
  });
}

const region = (name: string) => screen.findByRole('region', { name });
const figure = (name: string) => screen.findByRole('group', { name });

describe('/analytics, the new version (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeAll(async () => {
    // Load the lazy route's modules once up front, so the first test does not spend its wait on transforming them.
    await Promise.all([
      import('./AnalyticsPage.tsx'),
      import('./AnalyticsCharts.tsx'),
      import('../../app/AppLayout.tsx'),
    ]);
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it("shows the overview's figures on the cards, line-item types apart, services usage and transfer costs", async () => {
    const calls = stubAnalytics();
    renderAt('/analytics');

    expect(await screen.findByRole('heading', { name: 'Analytics' })).toBeInTheDocument();
    expect(await figure('Compute Cost')).toHaveTextContent('$120.50');
    expect(await figure('Storage Cost')).toHaveTextContent('$45.75');
    expect(await figure('Total Cost')).toHaveTextContent('$166.25');
    expect(await figure('Forecast')).toHaveTextContent('$310.40');
    expect(calls.some((c) => c.path === '/api/analytics' && c.search.includes(`cloudId=${ACCOUNT_ID}`))).toBe(
      true,
    );

    const types = within(await region('By line-item type'));
    expect(types.getByText('Credit').closest('li')).toHaveTextContent('-$10.00');
    expect(types.getByText('Tax').closest('li')).toHaveTextContent('$6.00');

    const usage = await screen.findByRole('group', { name: 'Cloud to cloud transfers' });
    expect(usage).toHaveTextContent('3 GB of 10 GB');
    expect(within(usage).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '30');

    const transfers = within(await region('Transfer Costs'));
    expect(await transfers.findByText('Wasabi')).toBeInTheDocument();
    // Spec 000 §9: transfer costs to 5 decimals.
    expect(transfers.getByText('$0.01234')).toBeInTheDocument();
    expect(transfers.getByText('5 GB')).toBeInTheDocument();
  });

  it("drills the Total Cost Chart down into a category's products, and Back returns to the categories", async () => {
    stubAnalytics();
    const { user } = renderAt('/analytics');

    const chart = within(await region('Total Cost Chart'));
    const categories = chart.getByRole('list', { name: 'Categories' });
    expect(within(categories).getByRole('button', { name: 'Compute' })).toBeInTheDocument();
    expect(chart.queryByRole('button', { name: /Back/ })).toBeNull();

    await user.click(within(categories).getByRole('button', { name: 'Storage' }));
    const products = chart.getByRole('list', { name: 'Storage products' });
    expect(within(products).getByText('S3').closest('li')).toHaveTextContent('$40.50');
    expect(within(products).getByText('EFS').closest('li')).toHaveTextContent('$5.25');
    expect(within(products).queryByText('EC2')).toBeNull();

    await user.click(chart.getByRole('button', { name: /Back/ }));
    expect(chart.getByRole('list', { name: 'Categories' })).toBeInTheDocument();
    expect(chart.queryByRole('list', { name: 'Storage products' })).toBeNull();
  });

  it('without a cloud account offers to add one', async () => {
    stubAnalytics({ accounts: [] });
    renderAt('/analytics');
    expect(await screen.findByText(analyticsReadMessages.noAccount)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add a cloud account' })).toHaveAttribute('href', '/addProvider');
  });

  it('without an account with a billing bucket links to the Hybrid page (azure and wasabi do not count)', async () => {
    stubAnalytics({
      accounts: [
        awsAccount({ billing_bucket: null }),
        buildCloudAccount({ id: 'w-1', name: 'Wasabi', provider: 'wasabi', billing_bucket: 'cur' }),
      ],
      extra: { 'GET /api/analytics/estimates': { status: 200, body: [] } },
    });
    const { user } = renderAt('/analytics');
    expect(await screen.findByText(analyticsReadMessages.noBillingBucket)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the Hybrid page' })).toHaveAttribute('href', '/');
    expect(screen.queryByRole('group', { name: 'Total Cost' })).toBeNull();
    // No reports to ask about: the months list says nothing of them, rather than "no report" against every month.
    await user.click(screen.getByRole('combobox', { name: 'Month' }));
    expect(await screen.findByTitle('March')).toBeInTheDocument();
    expect(screen.queryByText('no report')).toBeNull();
  });

  it('says a month without data has none', async () => {
    stubAnalytics({ extra: { 'GET /api/analytics': { status: 200, body: emptyMonth } } });
    renderAt('/analytics?month=1');
    expect(await screen.findByText(analyticsReadMessages.noData)).toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Total Cost' })).toBeNull();
  });

  it('narrows every figure to one linked account of a consolidated bill, and marks the months the reports hold', async () => {
    const calls = stubAnalytics({
      extra: {
        'GET /api/analytics/periods': (call) => {
          const member = call.search.includes('awsAccountId=444455556666');
          return {
            status: 200,
            body: {
              months: [
                { month: '2026-11', cost: member ? 40.5 : 166.25, ingested_at: '2026-11-26T06:41:00.000Z' },
                { month: '2026-10', cost: member ? 34.5 : 1234.5, ingested_at: '2026-11-02T06:41:00.000Z' },
              ],
              usage_accounts: ['111122223333', '444455556666'],
            },
          };
        },
        // The member account's share of the month.
        'GET /api/analytics': (call) => ({
          status: 200,
          body: call.search.includes('awsAccountId=444455556666')
            ? { ...overview, monthly_actual: 40.5, storage_cost: 40.5, compute_cost: 0 }
            : overview,
        }),
      },
    });
    const { user, location } = renderAt(`/analytics?account=${ACCOUNT_ID}&year=2026&month=11`);
    expect(await figure('Total Cost')).toHaveTextContent('$166.25');

    // The months list says which months have a report, with the account's cost for each.
    await user.click(screen.getByRole('combobox', { name: 'Month' }));
    const october = (await screen.findByTitle('October')).closest('.ant-select-item') as HTMLElement;
    expect(october).toHaveTextContent('$1,234.50');
    expect((screen.getByTitle('March').closest('.ant-select-item') as HTMLElement).textContent).toContain(
      'no report',
    );
    await user.keyboard('{Escape}');

    await user.click(screen.getByRole('combobox', { name: 'Linked account' }));
    await user.click(await screen.findByTitle('444455556666'));
    await waitFor(() => expect(location()).toContain('linked=444455556666'));
    await waitFor(async () => expect(await figure('Total Cost')).toHaveTextContent('$40.50'));
    expect(
      calls.some((c) => c.path === '/api/analytics' && c.search.includes('awsAccountId=444455556666')),
    ).toBe(true);
    // The months list now gives the linked account's cost of each month.
    await user.click(screen.getByRole('combobox', { name: 'Month' }));
    await waitFor(() =>
      expect(screen.getByTitle('October').closest('.ant-select-item')).toHaveTextContent('$34.50'),
    );
    await user.keyboard('{Escape}');

    // Back to every linked account: the address no longer names one, and the figures are the whole bill's.
    await user.click(screen.getByRole('combobox', { name: 'Linked account' }));
    await user.click(await screen.findByTitle('All linked accounts'));
    await waitFor(() => expect(location()).not.toContain('linked='));
    await waitFor(async () => expect(await figure('Total Cost')).toHaveTextContent('$166.25'));
  });

  it('offers no linked-account filter when the bill names one account, and ignores a linked account it does not name', async () => {
    const calls = stubAnalytics();
    renderAt(`/analytics?linked=999999999999`);
    expect(await figure('Total Cost')).toHaveTextContent('$166.25');
    await waitFor(() => expect(calls.some((c) => c.path === '/api/analytics/periods')).toBe(true));
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/api/analytics').at(-1)?.search).not.toContain('awsAccountId'),
    );
    expect(screen.queryByRole('combobox', { name: 'Linked account' })).toBeNull();
  });

  it('shows a failed call in words, not a blank', async () => {
    stubAnalytics({
      extra: {
        'GET /api/analytics': {
          status: 403,
          body: { code: 'PACKAGE_REQUIRED', message: analyticsReadMessages.packageRequired },
        },
      },
    });
    renderAt('/analytics');
    expect(await screen.findByText(analyticsReadMessages.packageRequired)).toBeInTheDocument();
  });

  it('lists every estimate with its billed cost, "—" where no report bills the bucket, and the difference coloured', async () => {
    stubAnalytics({
      extra: {
        'GET /api/analytics/product': {
          status: 200,
          body: [
            { product_code: 'AmazonS3', label: 'S3', total_cost: 40.5 },
            { product_code: 'AmazonEFS', label: 'EFS', total_cost: 5.25 },
          ],
        },
        'GET /api/analytics/estimates': {
          status: 200,
          body: [
            estimate({}),
            estimate({
              cloud_account_id: '5b0c3a1e-0000-4000-8000-00000000a002',
              account_name: 'Archive',
              provider: 'wasabi',
              bucket_name: 'cold',
              estimated_cost: 5.99,
              billed_cost: null,
              difference: null,
            }),
          ],
        },
      },
    });
    renderAt('/analytics?page=storage');

    expect(await figure('Total')).toHaveTextContent('$45.75');
    expect(await figure('S3')).toHaveTextContent('$40.50');
    expect(await figure('EFS')).toHaveTextContent('$5.25');
    expect(await figure('Transfer')).toHaveTextContent('$0.00');

    const table = within(await screen.findByRole('table', { name: 'Storage cost estimates' }));
    const billed = (await table.findByText('media')).closest('tr') as HTMLElement;
    expect(billed).toHaveTextContent('Production AWS');
    expect(billed).toHaveTextContent('$23.55');
    expect(billed).toHaveTextContent('$24.75');
    expect(within(billed).getByText('+$1.20')).toHaveClass('ant-typography-danger');

    const unbilled = table.getByText('cold').closest('tr') as HTMLElement;
    const cells = within(unbilled).getAllByRole('cell');
    expect(cells.map((cell) => cell.textContent)).toEqual([
      'Archive',
      'wasabi',
      'cold',
      '1 TB',
      '$5.99',
      '—',
      '—',
    ]);
  });

  it('shows Refresh to an Owner, who reads the reports again with it', async () => {
    const calls = stubAnalytics({
      extra: { 'POST /api/analytics/refresh': { status: 202, body: { message: 'queued' } } },
    });
    const { user } = renderAt('/analytics');
    await user.click(await screen.findByRole('button', { name: /Refresh/ }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'POST' && c.path === '/api/analytics/refresh')?.body).toEqual({
        cloudId: ACCOUNT_ID,
      }),
    );
  });

  it('hides Refresh from a member with role User', async () => {
    stubAnalytics({ role: 'User' });
    renderAt('/analytics');
    expect(await figure('Total Cost')).toHaveTextContent('$166.25');
    expect(await screen.findByText(/Billing reports read/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Refresh/ })).toBeNull();
  });

  it("shows the latest run's outcome: rows and periods when it succeeded", async () => {
    stubAnalytics();
    renderAt('/analytics');
    const status = await screen.findByRole('status', { name: 'Billing report ingestion' });
    await waitFor(() =>
      expect(status).toHaveTextContent('48,210 rows, 2 periods replaced, 10 periods unchanged.'),
    );
  });

  it("shows a failed run's error in words and the account's billing error", async () => {
    const error = 'Malformed report: cur/2026-11/part-3.csv.gz line 1822 has 12 columns, the header 40.';
    stubAnalytics({
      accounts: [
        awsAccount({ billing_error: 'The keys cannot read the billing bucket cur-reports: Access Denied' }),
      ],
      runs: [run({ state: 'failed', error, rows: 0 }), run({ id: '5b0c3a1e-0000-4000-8000-00000000b000' })],
    });
    const { user } = renderAt('/analytics');
    const status = await screen.findByRole('status', { name: 'Billing report ingestion' });
    await waitFor(() => expect(status).toHaveTextContent(error));
    expect(status).toHaveTextContent('Reading the billing reports failed');
    expect(
      screen.getByText('The keys cannot read the billing bucket cur-reports: Access Denied'),
    ).toBeInTheDocument();

    // Every run is kept in view, not only the latest: what started it and how it ended.
    await user.click(screen.getByRole('button', { name: /Run history/ }));
    const history = await screen.findByRole('table', { name: 'Billing report runs' });
    const rows = within(history).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent(error);
    expect(rows[1]).toHaveTextContent('Billing reports read');
  });

  it('spins while a run is under way and does not offer a second Refresh meanwhile', async () => {
    stubAnalytics({ runs: [run({ state: 'running', finished_at: null })] });
    renderAt('/analytics');
    const status = await screen.findByRole('status', { name: 'Billing report ingestion' });
    await waitFor(() => expect(status).toHaveTextContent('Reading the billing reports (started'));
    expect(within(status).getByLabelText('Reading the billing reports')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Refresh/ })).toBeDisabled();
  });

  it('reads the figures again when the run under way ends, without a reload', async () => {
    // The first answers: a run under way and the month before it; once the run has ended, the month it replaced.
    let ended = false;
    stubAnalytics({
      extra: {
        'GET /api/analytics/runs': () => ({
          status: 200,
          body: ended ? [run({})] : [run({ state: 'running', finished_at: null })],
        }),
        'GET /api/analytics': () => ({
          status: 200,
          body: ended ? { ...overview, monthly_actual: 371.94 } : overview,
        }),
      },
    });
    renderAt('/analytics');
    const status = await screen.findByRole('status', { name: 'Billing report ingestion' });
    await waitFor(() => expect(status).toHaveTextContent('Reading the billing reports (started'));
    expect(await figure('Total Cost')).toHaveTextContent('$166.25');
    ended = true;
    // The runs are polled every 2 s while one is under way; nothing else reads the month again.
    await waitFor(() => expect(status).toHaveTextContent('2 periods replaced'), { timeout: 5000 });
    await waitFor(() =>
      expect(screen.getByRole('group', { name: 'Total Cost' })).toHaveTextContent('$371.94'),
    );
  });

  it('Compute: counts running and stopped instances and totals their cost', async () => {
    stubAnalytics({
      extra: {
        'GET /api/analytics/instances/ec2': {
          status: 200,
          body: [
            instance('web-1', 'running', 70.5),
            instance('web-2', 'running', 20),
            instance('batch', 'stopped', 9.5),
          ],
        },
      },
    });
    renderAt('/analytics?page=compute');
    expect(await figure('Total Cost')).toHaveTextContent('$100.00');
    expect(await figure('Running')).toHaveTextContent('2');
    expect(await figure('Stopped')).toHaveTextContent('1');
    const list = within(await screen.findByRole('table', { name: 'EC2 instances' }));
    expect(list.getByText('batch').closest('tr')).toHaveTextContent('stopped$9.50');
  });

  it('Invoices: downloads a file, pages through the billing bucket with "Load more", links the four documents', async () => {
    const calls = stubAnalytics({
      extra: {
        'GET /api/analytics/invoices/download': {
          status: 200,
          body: { url: 'https://s3.example/cur-reports/part-1?signed' },
        },
        'GET /api/analytics/invoices': (call) =>
          new URLSearchParams(call.search).get('token') === 'page-2'
            ? {
                status: 200,
                body: {
                  bucket: 'cur-reports',
                  files: [{ key: 'cur/2026-10/Manifest.json', size: 2048, last_modified: null }],
                  next_token: null,
                },
              }
            : {
                status: 200,
                body: {
                  bucket: 'cur-reports',
                  files: [
                    {
                      key: 'cur/2026-11/part-1.csv.gz',
                      size: 1024 ** 2,
                      last_modified: '2026-11-20T10:00:00Z',
                    },
                  ],
                  next_token: 'page-2',
                },
              },
      },
    });
    const { user } = renderAt('/analytics?page=invoices');
    const files = within(await screen.findByRole('table', { name: 'Billing bucket files' }));
    expect(await files.findByText('cur/2026-11/part-1.csv.gz')).toBeInTheDocument();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    await user.click(files.getByRole('button', { name: 'Download cur/2026-11/part-1.csv.gz' }));
    await waitFor(() =>
      expect(open).toHaveBeenCalledWith('https://s3.example/cur-reports/part-1?signed', '_blank', 'noopener'),
    );
    expect(
      new URLSearchParams(calls.find((c) => c.path === '/api/analytics/invoices/download')?.search).get(
        'key',
      ),
    ).toBe('cur/2026-11/part-1.csv.gz');

    await user.click(files.getByRole('button', { name: 'Load more' }));
    expect(await files.findByText('cur/2026-10/Manifest.json')).toBeInTheDocument();
    expect(files.getByText('cur/2026-11/part-1.csv.gz')).toBeInTheDocument();
    expect(files.queryByRole('button', { name: 'Load more' })).toBeNull();

    for (const doc of BILLING_REPORT_DOCUMENTS) {
      expect(screen.getByRole('link', { name: doc.title })).toHaveAttribute('href', doc.url);
    }
  });
});

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  BILLING_REPORT_DOCUMENTS,
  PROVIDER_NAMES,
  UNATTRIBUTED,
  type AllocationMonthlyCost,
  type BucketCost,
  type EfsFileSystem,
  type ProductTotalCost,
} from '@cumulo/contract';
import { renderAt } from '../../../test/render.tsx';
import { stubApi, type FakeReply } from '../../../test/fake-api.ts';
import { buildProfile } from '../../../test/factories.ts';
import { GB, buildCloudAccount } from '../../accounts/account-factories.ts';

// The analytics calls are answered by a stubbed fetch, to the contract's shapes (packages/contract analytics.ts).

const CLOUD_ID = '3f2b8c1e-0000-4000-8000-00000000a001';
const subscriber = buildProfile({ packages: [{ title: 'Analytics' }] });
const account = buildCloudAccount({
  id: CLOUD_ID,
  name: 'Main archive',
  billing_bucket: 'cur-reports',
  total_bytes_used: 12 * GB,
  bucket_count: 7,
});

const totals = (withSupport: boolean): ProductTotalCost[] => [
  { product_code: 'AmazonEC2', label: 'EC2', total_cost: 500 },
  { product_code: 'AmazonS3', label: 'S3', total_cost: 300 },
  { product_code: 'AmazonRDS', label: 'Amazon RDS', total_cost: 120 },
  ...(withSupport ? [{ product_code: 'AWSSupportBusiness', label: 'AWS Support', total_cost: 100 }] : []),
  { product_code: 'AmazonCloudWatch', label: 'Cloud Watch', total_cost: 15 },
  { product_code: 'AmazonRoute53', label: 'Route 53', total_cost: 5 },
];

const s3Month: AllocationMonthlyCost = {
  product: 's3',
  total_cost: 300,
  usage_types: [
    { usage_type: 'TimedStorage-ByteHrs', cost: 150, usage_amount: 1000 },
    { usage_type: 'Requests-Tier1', cost: 60, usage_amount: 10 },
    { usage_type: 'DataTransfer-Out-Bytes', cost: 40, usage_amount: 10 },
    { usage_type: 'Requests-Tier2', cost: 30, usage_amount: 10 },
    { usage_type: 'TimedStorage-GlacierByteHrs', cost: 12, usage_amount: 10 },
    { usage_type: 'EarlyDelete-ByteHrs', cost: 8, usage_amount: 10 },
  ],
  operations: [
    { operation: 'StandardStorage', cost: 150 },
    { operation: 'PutObject', cost: 150 },
  ],
  regions: [{ region: 'us-east-1', cost: 300 }],
};

const buckets: BucketCost[] = [
  {
    bucket_name: 'logs',
    cost: 90,
    usage_types: [
      {
        usage_type: 'TimedStorage-ByteHrs',
        cost: 70,
        operations: [
          { operation: 'StandardStorage', cost: 65 },
          { operation: 'StandardIAStorage', cost: 5 },
        ],
      },
      { usage_type: 'Requests-Tier1', cost: 20, operations: [{ operation: 'PutObject', cost: 20 }] },
    ],
  },
  {
    bucket_name: 'photos',
    cost: 50,
    usage_types: [
      {
        usage_type: 'TimedStorage-ByteHrs',
        cost: 50,
        operations: [{ operation: 'StandardStorage', cost: 50 }],
      },
    ],
  },
  {
    bucket_name: UNATTRIBUTED,
    cost: 4,
    usage_types: [
      { usage_type: 'Requests-Tier2', cost: 4, operations: [{ operation: 'ListBucket', cost: 4 }] },
    ],
  },
];

function stubAnalytics(extra: Record<string, FakeReply | ((call: { search: string }) => FakeReply)> = {}) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: subscriber },
    'GET /api/cloud_accounts/': { status: 200, body: [account] },
    'GET /api/cloud_accounts/access_info': { status: 200, body: { userType: 4, providers: PROVIDER_NAMES } },
    'GET /api/analytics/product': { status: 200, body: totals(false) },
    ...extra,
  });
}

/** A donut's figures as its legend lists them ("name$cost"), and its total. */
function donut(title: string) {
  const region = screen.getByRole('region', { name: title });
  return {
    legend: within(region)
      .queryAllByRole('listitem')
      .map((item) => item.textContent),
    total: region.querySelector('.ant-statistic-content')?.textContent,
  };
}

async function chooseOption(user: ReturnType<typeof renderAt>['user'], label: string, option: string) {
  await user.click(screen.getByRole('combobox', { name: label }));
  const options = await screen.findAllByTitle(option);
  const last = options.at(-1);
  if (!last) throw new Error(`No option ${option}`);
  await user.click(last);
}

describe('/analytics-old, the previous analytics screen (analytics calls stubbed)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('draws the month’s products on Overview and a product’s total with its top 4 usages and Other', async () => {
    const calls = stubAnalytics({ 'GET /api/analytics/allocation/s3': { status: 200, body: s3Month } });
    const { user } = renderAt(
      `/analytics-old?account=${CLOUD_ID}&year=${new Date().getUTCFullYear()}&month=3`,
    );

    await screen.findByRole('region', { name: 'Cost by product' });
    expect(donut('Cost by product')).toEqual({
      total: '$940.00',
      legend: ['EC2$500.00', 'S3$300.00', 'Amazon RDS$120.00', 'Cloud Watch$15.00', 'Other$5.00'],
    });
    const products = calls.find((call) => call.path === '/api/analytics/product');
    expect(new URLSearchParams(products?.search).get('month')).toBe(`${new Date().getUTCFullYear()}-03`);
    expect(new URLSearchParams(products?.search).get('cloudId')).toBe(CLOUD_ID);

    await user.click(screen.getByRole('tab', { name: 'S3' }));
    await screen.findByRole('region', { name: 'S3 by usage type' });
    expect(donut('S3 by usage type')).toEqual({
      total: '$300.00',
      legend: [
        'TimedStorage-ByteHrs$150.00',
        'Requests-Tier1$60.00',
        'DataTransfer-Out-Bytes$40.00',
        'Requests-Tier2$30.00',
        'Other$20.00',
      ],
    });
    expect(donut('S3 by operation').legend).toEqual(['StandardStorage$150.00', 'PutObject$150.00']);
  });

  it('says in words why a tab has no figures', async () => {
    stubAnalytics({
      'GET /api/analytics/allocation/ec2': {
        status: 500,
        body: { message: 'The billing data could not be read.' },
      },
    });
    const { user } = renderAt('/analytics-old');

    await screen.findByRole('region', { name: 'Cost by product' });
    await user.click(screen.getByRole('tab', { name: 'EC2' }));
    expect(await screen.findByText('The billing data could not be read.')).toBeInTheDocument();
  });

  it('shows the AWS Support tab only when the month’s totals hold a support plan', async () => {
    stubAnalytics();
    const first = renderAt('/analytics-old');
    await screen.findByRole('region', { name: 'Cost by product' });
    expect(screen.getByRole('tab', { name: 'Route 53' })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'AWS Support' })).toBeNull();
    first.unmount();

    stubAnalytics({ 'GET /api/analytics/product': { status: 200, body: totals(true) } });
    renderAt('/analytics-old');
    expect(await screen.findByRole('tab', { name: 'AWS Support' })).toBeInTheDocument();
  });

  it('drills down from bucket to usage type to operation, and Clear Filter shows every bucket again', async () => {
    stubAnalytics({ 'GET /api/analytics/detail/buckets': { status: 200, body: buckets } });
    const { user } = renderAt('/analytics-old');

    await screen.findByRole('region', { name: 'Cost by product' });
    await user.click(screen.getByRole('tab', { name: 'Bucket Cost' }));
    await screen.findByRole('region', { name: 'Cost by bucket' });
    expect(donut('Cost by bucket')).toEqual({
      total: '$144.00',
      legend: ['logs$90.00', 'photos$50.00', `${UNATTRIBUTED}$4.00`],
    });
    expect(donut('Usage types of all buckets').legend).toEqual([
      'TimedStorage-ByteHrs$120.00',
      'Requests-Tier1$20.00',
      'Requests-Tier2$4.00',
    ]);
    expect(screen.getByRole('combobox', { name: 'Usage type' })).toBeDisabled();

    await chooseOption(user, 'Bucket', 'logs');
    await screen.findByRole('region', { name: 'Usage types of logs' });
    expect(donut('Usage types of logs')).toEqual({
      total: '$90.00',
      legend: ['TimedStorage-ByteHrs$70.00', 'Requests-Tier1$20.00'],
    });

    await chooseOption(user, 'Usage type', 'TimedStorage-ByteHrs');
    await screen.findByRole('region', { name: 'Operations of logs · TimedStorage-ByteHrs' });
    expect(donut('Operations of logs · TimedStorage-ByteHrs')).toEqual({
      total: '$70.00',
      legend: ['StandardStorage$65.00', 'StandardIAStorage$5.00'],
    });

    await user.click(screen.getByRole('button', { name: 'Clear Filter' }));
    await screen.findByRole('region', { name: 'Usage types of all buckets' });
    expect(screen.queryByRole('region', { name: 'Usage types of logs' })).toBeNull();
    expect(donut('Operations of all buckets').legend).toEqual([
      'StandardStorage$115.00',
      'PutObject$20.00',
      'StandardIAStorage$5.00',
      'ListBucket$4.00',
    ]);

    // The unattributed group is chosen like a bucket.
    await chooseOption(user, 'Bucket', UNATTRIBUTED);
    await screen.findByRole('region', { name: `Usage types of ${UNATTRIBUTED}` });
    expect(donut(`Usage types of ${UNATTRIBUTED}`).legend).toEqual(['Requests-Tier2$4.00']);
  });

  it('shows the account’s storage and lists its EFS file systems, with — where the EFS API was not asked', async () => {
    const fileSystems: EfsFileSystem[] = [
      {
        name: 'shared-home',
        file_system_id: 'fs-0123456789abcdef0',
        size_in_bytes: { value: 5 * GB },
        number_of_mount_targets: 3,
        creation_time: '2025-02-03T10:00:00.000Z',
        monthly_actual: 1.5,
      },
      {
        name: 'scratch',
        file_system_id: 'fs-0fedcba9876543210',
        size_in_bytes: { value: 2 * GB },
        number_of_mount_targets: null,
        creation_time: null,
        monthly_actual: 0.6,
      },
    ];
    stubAnalytics({ 'GET /api/analytics/efs': { status: 200, body: fileSystems } });
    const { user } = renderAt('/analytics-old');

    await screen.findByRole('region', { name: 'Cost by product' });
    await user.click(screen.getByRole('tab', { name: 'Storage Usage' }));
    const storage = (await screen.findByText('Total bytes used')).closest('.ant-card') as HTMLElement;
    expect(within(storage).getByText('12 GB')).toBeInTheDocument();
    expect(within(storage).getByText('7')).toBeInTheDocument();

    await user.click(screen.getByRole('tab', { name: 'EFS Usage' }));
    const table = await screen.findByRole('table', { name: 'EFS file systems' });
    for (const title of ['Name', 'File System ID', 'Metered Size', 'Mount Targets', 'Creation Date']) {
      expect(within(table).getByRole('columnheader', { name: title })).toBeInTheDocument();
    }
    const home = within(table).getByText('shared-home').closest('tr') as HTMLElement;
    expect(within(home).getByText('fs-0123456789abcdef0')).toBeInTheDocument();
    expect(within(home).getByText('5 GB')).toBeInTheDocument();
    expect(within(home).getByText('3')).toBeInTheDocument();
    expect(within(home).getByText('02/03/2025')).toBeInTheDocument();
    const scratch = within(table).getByText('scratch').closest('tr') as HTMLElement;
    expect(within(scratch).getAllByText('—')).toHaveLength(2);
  });

  it('lists the billing bucket’s files a page at a time and opens a file’s download link', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const calls = stubAnalytics({
      'GET /api/analytics/invoices': (call) =>
        new URLSearchParams(call.search).get('token') === 'page-2'
          ? {
              status: 200,
              body: {
                bucket: 'cur-reports',
                files: [
                  { key: 'cur/report/20260301-20260401/report-2.csv.gz', size: 2048, last_modified: null },
                ],
                next_token: null,
              },
            }
          : {
              status: 200,
              body: {
                bucket: 'cur-reports',
                files: [
                  {
                    key: 'cur/report/20260301-20260401/report-Manifest.json',
                    size: 1024,
                    last_modified: '2026-03-04T10:00:00.000Z',
                  },
                ],
                next_token: 'page-2',
              },
            },
      'GET /api/analytics/invoices/download': { status: 200, body: { url: 'https://s3.example/signed?x=1' } },
    });
    const { user } = renderAt('/analytics-old');

    await screen.findByRole('region', { name: 'Cost by product' });
    await user.click(screen.getByRole('tab', { name: 'Download Invoice' }));
    const table = await screen.findByRole('table', { name: 'Billing bucket files' });
    expect(screen.getByText('Files of the billing bucket cur-reports')).toBeInTheDocument();
    const manifest = within(table)
      .getByText('cur/report/20260301-20260401/report-Manifest.json')
      .closest('tr') as HTMLElement;
    expect(within(manifest).getByText('1 kB')).toBeInTheDocument();
    expect(within(manifest).getByText('03/04/2026')).toBeInTheDocument();
    for (const document of BILLING_REPORT_DOCUMENTS) {
      expect(screen.getByRole('link', { name: document.title })).toHaveAttribute('href', document.url);
    }

    await user.click(
      screen.getByRole('button', { name: 'Download cur/report/20260301-20260401/report-Manifest.json' }),
    );
    await waitFor(() =>
      expect(open).toHaveBeenCalledWith('https://s3.example/signed?x=1', '_blank', 'noopener'),
    );
    const download = calls.find((call) => call.path === '/api/analytics/invoices/download');
    expect(Object.fromEntries(new URLSearchParams(download?.search))).toEqual({
      cloudId: CLOUD_ID,
      key: 'cur/report/20260301-20260401/report-Manifest.json',
    });

    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('cur/report/20260301-20260401/report-2.csv.gz')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('cur/report/20260301-20260401/report-Manifest.json')).toBeInTheDocument();
  });

  it('shows the subscription modal, not the screen, without the Analytics package', async () => {
    const calls = stubAnalytics({ 'GET /api/users/_me': { status: 200, body: buildProfile() } });
    renderAt('/analytics-old');

    expect(await screen.findByRole('dialog', { name: 'Subscribe to Analytics' })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'Overview' })).toBeNull();
    expect(calls.some((call) => call.path.startsWith('/api/analytics'))).toBe(false);
  });
});

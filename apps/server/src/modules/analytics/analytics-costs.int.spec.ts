import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOCATION_PRODUCTS,
  ALLOCATION_PRODUCT_KEYS,
  ROLE_ID,
  UNATTRIBUTED,
  analyticsReadMessages,
  costCategoryOf,
  productLabelOf,
  type AllocationMonthlyCost,
  type AnalyticsOverview,
  type AnalyticsPeriods,
  type BucketCost,
  type DashboardAnalyticsItem,
  type DatabaseCost,
  type ProductTotalCost,
  type UserAcl,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import { createLogger } from '../../logger.ts';
import {
  buyPackage,
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import {
  CurReportGenerator,
  objectStoreSink,
  type ExpectedRollup,
  type PeriodTotals,
} from '../../../test/cur/generator.ts';
import { ingestEngine } from './ingest/engine.ts';
import { IngestRun, type IngestJob } from './ingest/ingest-run.ts';

/**
 * The cost read calls against the real embedded PostgreSQL and s3rver: a generated year of legacy reports goes
 * through the ingestion job into the rollups, and every call's answer is checked against the totals the
 * generator wrote. Dollars are compared exactly: the server divides the exact nano-dollar sum once, and so do
 * these expectations (`usd`).
 */

type Member = Awaited<ReturnType<typeof signedInMember>>;

const NOW = new Date();
const CURRENT = NOW.toISOString().slice(0, 7);
const shift = (month: string, by: number) => {
  const [year, monthNumber] = month.split('-').map(Number);
  return new Date(Date.UTC(year ?? 1970, (monthNumber ?? 1) - 1 + by, 1)).toISOString().slice(0, 7);
};
/** The generated year ends with the current month, so the dashboard reads it beside the hand-written account. */
const MONTHS = Array.from({ length: 12 }, (_, index) => shift(CURRENT, index - 11));
const REDELIVERED = shift(CURRENT, -2);
const PAST = shift(CURRENT, -1);

const usd = (nano: bigint) => Number(nano) / 1e9;
/** Back to exact nano-dollars: an answer's dollars are one bigint divided once, so rounding recovers it. */
const nanoOf = (dollars: number) => BigInt(Math.round(dollars * 1e9));
const add = (map: Map<string, bigint>, key: string, value: bigint) =>
  map.set(key, (map.get(key) ?? 0n) + value);
const costliest = (map: Map<string, bigint>) =>
  [...map].sort((a, b) => (a[1] > b[1] ? -1 : a[1] < b[1] ? 1 : a[0].localeCompare(b[0])));
const usdMap = (record: Record<string, bigint>) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, usd(value)]));

let s3rver: TestStoreServer;
let server: TestServer;
let s3: S3ObjectStore;
let owner: Member;
let generator: CurReportGenerator;
let firstDelivery: PeriodTotals;
let awsId: string;
let forecastId: string;

const get = async <T>(url: string, member: Member = owner) => {
  const res = await callApi(server, 'GET', url, member.token);
  expect(res.status, `${url}: ${res.raw}`).toBe(200);
  return res.body as T;
};
const expectedOf = (month: string) => {
  const totals = generator.expected().periods[month];
  if (!totals?.rollups) throw new Error(`the generator wrote no ${month}`);
  return { totals, rollups: totals.rollups };
};

async function connectAws(name: string, bucket: string) {
  const connected = await callApi(server, 'POST', '/api/cloudaccount/insert', owner.token, {
    cloudType: 1,
    name,
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
  });
  const id = (connected.body as { id: string }).id;
  await s3.createBucket(bucket);
  return id;
}

/** Saves the billing bucket (which queues the job) and runs the queued job as the worker's handler does. */
async function saveBucketAndIngest(ingest: IngestRun, accountId: string, bucket: string) {
  const saved = await callApi(
    server,
    'PUT',
    `/api/cloud_accounts/${accountId}/update_billing_report_bucket`,
    owner.token,
    { billing_bucket: bucket },
  );
  expect(saved.status, saved.raw).toBe(200);
  const { rows } = await server.db.pool.query<{ data: IngestJob }>(
    "delete from pgboss.job where name = 'analytics.ingest' and data->>'accountId' = $1 returning data",
    [accountId],
  );
  const [job] = rows;
  if (!job) throw new Error('no analytics.ingest job was queued');
  expect(await ingest.run(job.data)).toMatchObject({ state: 'succeeded' });
}

/** The forecast account's current month, written by hand: usage on day 1 and day 10, and once-billed lines. */
const FORECAST_HEADER =
  'identity/LineItemId,lineItem/UsageAccountId,lineItem/LineItemType,lineItem/UsageStartDate,lineItem/ProductCode,' +
  'lineItem/UsageType,lineItem/Operation,product/region,lineItem/ResourceId,lineItem/UsageAmount,lineItem/UnblendedCost';
const FORECAST_LINES = [
  `a,444455556666,Usage,${CURRENT}-01T00:00:00Z,AmazonS3,TimedStorage-ByteHrs,StandardStorage,us-east-1,forecast-bucket,10,3.000000001`,
  `b,444455556666,Usage,${CURRENT}-10T05:00:00Z,AmazonRDS,InstanceUsage:db.t3.medium,CreateDBInstance:0002,us-east-1,arn:aws:rds:us-east-1:444455556666:db:forecast-db,24,7`,
  `c,444455556666,Fee,${CURRENT}-01T00:00:00Z,AWSSupportBusiness,Dollar,,,,1,100`,
  `d,444455556666,Tax,${CURRENT}-01T00:00:00Z,AmazonEC2,,,,,0,2.5`,
  `e,444455556666,Credit,${CURRENT}-01T00:00:00Z,AmazonS3,,,,,0,-1.25`,
];
const FORECAST_PROJECTED_NANO = 10_000_000_001n;
const FORECAST_ONCE_NANO = 101_250_000_000n;

/**
 * The same bill as a second, coarser report of the bucket (no resource ids, usage in one line): AWS lets an account
 * keep several reports, each the whole bill. The reads must take one of them — the more detailed — never both.
 */
const COARSE_LINES = [
  `a,444455556666,Usage,${CURRENT}-10T00:00:00Z,AmazonS3,TimedStorage-ByteHrs,StandardStorage,us-east-1,,34,10.000000001`,
  ...FORECAST_LINES.slice(2),
];

async function deliverLegacyMonth(bucket: string, report: string, lines: string[]) {
  const [year, month] = CURRENT.split('-').map(Number);
  const next = new Date(Date.UTC(year ?? 1970, month ?? 1, 1)).toISOString().slice(0, 10).replaceAll('-', '');
  const folder = `cur/${report}/${CURRENT.replace('-', '')}01-${next}`;
  const dataKey = `${folder}/asm-1/${report}-00001.csv.gz`;
  const manifest = Buffer.from(
    JSON.stringify({
      assemblyId: 'asm-1',
      reportKeys: [dataKey],
      billingPeriod: { start: `${CURRENT.replace('-', '')}01T000000.000Z`, end: `${next}T000000.000Z` },
      compression: 'GZIP',
    }),
  );
  await s3.write(bucket, dataKey, gzipSync(`${FORECAST_HEADER}\n${lines.join('\n')}\n`));
  await s3.write(bucket, `${folder}/${report}-Manifest.json`, manifest);
}

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  await buyPackage(server, owner, 'analytics');
  s3 = s3rverStore(s3rver.endpoint);
  const ingest = new IngestRun(
    server.services.analyticsRepo,
    server.services.cloudAccountsRepo,
    server.services.stores,
    ingestEngine,
    createLogger('silent'),
  );

  awsId = await connectAws('Lab AWS', 'cur-year');
  generator = new CurReportGenerator({
    seed: 'analytics-reads',
    layout: 'cur-legacy',
    endMonth: CURRENT,
    months: 12,
    linesPerMonth: 300,
    filesPerPeriod: 2,
    bucket: 'cur-year',
    rollups: true,
  });
  const sink = objectStoreSink(s3, 'cur-year');
  await generator.writeAll(sink);
  await saveBucketAndIngest(ingest, awsId, 'cur-year');
  const first = generator.expected().periods[REDELIVERED];
  if (!first) throw new Error('no first delivery');
  firstDelivery = first;
  // AWS re-delivers a closed month (credits, refunds): the next scheduled run replaces it.
  await generator.redeliver(sink, REDELIVERED);
  expect(
    await ingest.run({
      organizationId: owner.principal.organizationId,
      accountId: awsId,
      trigger: 'schedule',
    }),
  ).toMatchObject({ state: 'succeeded', periodsReplaced: 1 });

  forecastId = await connectAws('Forecast AWS', 'cur-forecast');
  await deliverLegacyMonth('cur-forecast', 'daily', FORECAST_LINES);
  await deliverLegacyMonth('cur-forecast', 'coarse', COARSE_LINES);
  await saveBucketAndIngest(ingest, forecastId, 'cur-forecast');
}, 60_000);
afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('GET /analytics: the overview of a generated year (s3rver → ingestion → PostgreSQL)', () => {
  it("answers every month's actual, categories, cards and line-item types with the generator's totals", async () => {
    for (const month of MONTHS) {
      const { totals } = expectedOf(month);
      const overview = await get<AnalyticsOverview>(`/api/analytics?cloudId=${awsId}&month=${month}`);

      expect(overview.month).toBe(month);
      expect(overview.monthly_actual, month).toBe(usd(totals.costNano));
      expect(
        Object.fromEntries(overview.line_item_types.map((t) => [t.line_item_type, t.cost])),
        month,
      ).toEqual(usdMap(totals.byLineItemType));
      const byCategory = new Map<string, bigint>();
      for (const [code, cost] of Object.entries(totals.byProduct))
        add(byCategory, costCategoryOf(code), cost);
      expect(Object.fromEntries(overview.categories.map((c) => [c.name, c.monthly_actual])), month).toEqual(
        Object.fromEntries([...byCategory].map(([name, cost]) => [name, usd(cost)])),
      );
      for (const category of overview.categories) {
        expect(category.size).toBe(category.products.length);
        for (const product of category.products) {
          expect(product.monthly_actual).toBe(usd(totals.byProduct[product.name] ?? -1n));
          expect(product.label).toBe(productLabelOf(product.name));
        }
      }
      expect(overview.compute_cost).toBe(usd(byCategory.get('Compute') ?? 0n));
      expect(overview.storage_cost).toBe(usd(byCategory.get('Storage') ?? 0n));
      // Every generated month has usage on its last hour.
      expect(overview.data_through).toBe(lastDayOf(month));
      expect(overview.ingested_at).not.toBeNull();
    }
  });

  it('draws the trend of the twelve months ending at the chosen month, oldest first, 0 where nothing is held', async () => {
    const overview = await get<AnalyticsOverview>(`/api/analytics?cloudId=${awsId}&month=${CURRENT}`);
    expect(overview.trend).toEqual(
      MONTHS.map((month) => ({ month, monthly_actual: usd(expectedOf(month).totals.costNano) })),
    );
    const earlier = await get<AnalyticsOverview>(`/api/analytics?cloudId=${awsId}&month=${PAST}`);
    expect(earlier.trend[0]).toEqual({ month: shift(PAST, -11), monthly_actual: 0 });
    expect(earlier.trend.at(-1)).toEqual({
      month: PAST,
      monthly_actual: usd(expectedOf(PAST).totals.costNano),
    });
  });

  it('defaults to the current month, and narrows to one usage account', async () => {
    const overview = await get<AnalyticsOverview>(`/api/analytics?cloudId=${awsId}`);
    expect(overview.month).toBe(CURRENT);
    const { totals } = expectedOf(PAST);
    for (const [usageAccount, cost] of Object.entries(totals.byAccount)) {
      const narrowed = await get<AnalyticsOverview>(
        `/api/analytics?cloudId=${awsId}&month=${PAST}&awsAccountId=${usageAccount}`,
      );
      expect(narrowed.monthly_actual, usageAccount).toBe(usd(cost));
    }
  });

  it('shows a re-delivered month as its new delivery, not doubled', async () => {
    const { totals } = expectedOf(REDELIVERED);
    expect(totals.version).not.toBe(firstDelivery.version);

    const overview = await get<AnalyticsOverview>(`/api/analytics?cloudId=${awsId}&month=${REDELIVERED}`);
    const products = await get<ProductTotalCost[]>(
      `/api/analytics/product?cloudId=${awsId}&month=${REDELIVERED}`,
    );

    expect(overview.monthly_actual).toBe(usd(totals.costNano));
    expect(overview.monthly_actual).not.toBe(usd(totals.costNano + firstDelivery.costNano));
    expect(Object.fromEntries(products.map((p) => [p.product_code, p.total_cost]))).toEqual(
      usdMap(totals.byProduct),
    );
  });

  it('forecasts a past month as its actual, and the current month from its last day of data', async () => {
    const past = await get<AnalyticsOverview>(`/api/analytics?cloudId=${awsId}&month=${PAST}`);
    expect(past.monthly_forecast).toBe(past.monthly_actual);

    const current = await get<AnalyticsOverview>(`/api/analytics?cloudId=${forecastId}`);

    const days = BigInt(Number(lastDayOf(CURRENT).slice(8)));
    expect(current.data_through).toBe(`${CURRENT}-10`);
    expect(current.monthly_actual).toBe(usd(FORECAST_PROJECTED_NANO + FORECAST_ONCE_NANO));
    // Usage ÷ 10 days × the month's days; the fee, tax and credit once.
    expect(current.monthly_forecast).toBe(usd((FORECAST_PROJECTED_NANO * days) / 10n + FORECAST_ONCE_NANO));
    // Two reports of the same bill: one is read (the detailed one, with its bucket), the bill is not doubled.
    const buckets = await get<BucketCost[]>(`/api/analytics/detail/buckets?cloudId=${forecastId}`);
    expect(buckets.map((b) => [b.bucket_name, b.cost])).toEqual([
      ['forecast-bucket', 3.000000001],
      [UNATTRIBUTED, -1.25],
    ]);
  });
});

describe('GET /analytics/product, /allocation/{product}, /detail/* (real PostgreSQL)', () => {
  it("lists every product's month costliest first, with its label", async () => {
    for (const month of MONTHS) {
      const { totals } = expectedOf(month);
      const products = await get<ProductTotalCost[]>(
        `/api/analytics/product?cloudId=${awsId}&month=${month}`,
      );
      expect(products, month).toEqual(
        costliest(new Map(Object.entries(totals.byProduct))).map(([code, cost]) => ({
          product_code: code,
          label: productLabelOf(code),
          total_cost: usd(cost),
        })),
      );
    }
  });

  it("splits every allocation product by usage type, operation and region to the generator's totals", async () => {
    for (const month of [PAST, REDELIVERED, MONTHS[0] ?? PAST]) {
      const { totals, rollups } = expectedOf(month);
      const byUsageType = new Map<string, bigint>();
      const byRegion = new Map<string, bigint>();
      for (const product of ALLOCATION_PRODUCT_KEYS) {
        const codes: readonly string[] = ALLOCATION_PRODUCTS[product];
        const lines = rollups.filter((row) => codes.includes(row.productCode));
        const allocation = await get<AllocationMonthlyCost>(
          `/api/analytics/allocation/${product}?cloudId=${awsId}&month=${month}`,
        );

        expect(allocation.product).toBe(product);
        expect(allocation.total_cost, `${month} ${product}`).toBe(usd(sumOf(lines)));
        expect(allocation.operations, `${month} ${product}`).toEqual(
          costliest(groupBy(lines, (row) => row.operation)).map(([operation, cost]) => ({
            operation,
            cost: usd(cost),
          })),
        );
        expect(allocation.usage_types.map((u) => [u.usage_type, u.cost])).toEqual(
          costliest(groupBy(lines, (row) => row.usageType)).map(([type, cost]) => [type, usd(cost)]),
        );
        for (const usage of allocation.usage_types) add(byUsageType, usage.usage_type, nanoOf(usage.cost));
        for (const region of allocation.regions) add(byRegion, region.region, nanoOf(region.cost));
      }
      // Every generated product is one of the allocation products: together they are the month's usage types
      // and regions.
      expect(Object.fromEntries(byUsageType), month).toEqual(totals.byUsageType);
      expect(Object.fromEntries(byRegion), month).toEqual(totals.byRegion);
    }
  });

  it('narrows an allocation to one usage account', async () => {
    const { rollups, totals } = expectedOf(PAST);
    for (const usageAccount of Object.keys(totals.byAccount)) {
      const allocation = await get<AllocationMonthlyCost>(
        `/api/analytics/allocation/s3?cloudId=${awsId}&month=${PAST}&awsAccountId=${usageAccount}`,
      );
      expect(allocation.total_cost).toBe(
        usd(sumOf(rollups.filter((r) => r.productCode === 'AmazonS3' && r.usageAccountId === usageAccount))),
      );
    }
  });

  it('answers the buckets (blank resource ids as unattributed) and databases with usage types and operations', async () => {
    for (const month of MONTHS) {
      const { totals, rollups } = expectedOf(month);
      const buckets = await get<BucketCost[]>(
        `/api/analytics/detail/buckets?cloudId=${awsId}&month=${month}`,
      );
      const s3Lines = rollups.filter((row) => row.productCode === 'AmazonS3');
      expect(buckets, month).toEqual(detailTree(s3Lines, (id) => id));
      for (const bucket of buckets.filter((b) => b.bucket_name !== UNATTRIBUTED))
        expect(bucket.cost).toBe(usd(totals.byResource[bucket.bucket_name] ?? -1n));

      const databases = await get<DatabaseCost[]>(
        `/api/analytics/detail/databases?cloudId=${awsId}&month=${month}`,
      );
      const rdsLines = rollups.filter((row) => row.productCode === 'AmazonRDS');
      expect(
        databases.map(({ database_name, ...rest }) => ({ bucket_name: database_name, ...rest })),
        month,
      ).toEqual(detailTree(rdsLines, (arn) => arn.slice(arn.indexOf(':db:') + 4)));
      expect(databases.map((d) => d.database_name)).toEqual(
        expect.arrayContaining(['orders-db', 'analytics-db']),
      );
    }
  });
});

describe('GET /analytics/periods and /analytics/dashboard (real PostgreSQL)', () => {
  it('lists the months held, newest first, with their cost, and the usage accounts', async () => {
    const periods = await get<AnalyticsPeriods>(`/api/analytics/periods?cloudId=${awsId}`);

    expect(periods.months.map(({ month, cost }) => ({ month, cost }))).toEqual(
      [...MONTHS].reverse().map((month) => ({ month, cost: usd(expectedOf(month).totals.costNano) })),
    );
    expect(periods.months.every((m) => m.ingested_at !== null)).toBe(true);
    expect(periods.usage_accounts).toEqual(Object.keys(expectedOf(PAST).totals.byAccount).sort());
  });

  it("narrows each month's cost to one linked account, and still names every usage account", async () => {
    for (const usageAccount of Object.keys(expectedOf(PAST).totals.byAccount)) {
      const periods = await get<AnalyticsPeriods>(
        `/api/analytics/periods?cloudId=${awsId}&awsAccountId=${usageAccount}`,
      );
      expect(periods.months.map(({ month, cost }) => ({ month, cost }))).toEqual(
        [...MONTHS]
          .reverse()
          .map((month) => ({ month, cost: usd(expectedOf(month).totals.byAccount[usageAccount] ?? 0n) })),
      );
      expect(periods.usage_accounts).toEqual(Object.keys(expectedOf(PAST).totals.byAccount).sort());
    }
    // An account the bill does not name holds the months at $0.
    const none = await get<AnalyticsPeriods>(
      `/api/analytics/periods?cloudId=${awsId}&awsAccountId=999999999999`,
    );
    expect(none.months.map(({ cost }) => cost)).toEqual(MONTHS.map(() => 0));
  });

  it("shows this month's ten costliest items over every account of the organisation", async () => {
    const items = new Map<string, { item: DashboardAnalyticsItem; nano: bigint }>();
    const count = (
      accountId: string,
      row: Pick<ExpectedRollup, 'productCode' | 'usageType' | 'resourceId'>,
      nano: bigint,
    ) => {
      const bucket = row.productCode === 'AmazonS3' ? row.resourceId || UNATTRIBUTED : null;
      const database =
        row.productCode === 'AmazonRDS'
          ? row.resourceId
            ? row.resourceId.slice(row.resourceId.indexOf(':db:') + 4)
            : UNATTRIBUTED
          : null;
      const key = [
        accountId,
        row.productCode,
        row.usageType,
        bucket,
        row.productCode === 'AmazonRDS' ? row.resourceId : null,
      ].join('|');
      const held = items.get(key);
      const total = (held?.nano ?? 0n) + nano;
      items.set(key, {
        nano: total,
        item: {
          cloud_account_id: accountId,
          product_name: productLabelOf(row.productCode),
          usage_type: row.usageType,
          total_cost: usd(total),
          bucket_name: bucket,
          database_name: database,
        },
      });
    };
    for (const row of expectedOf(CURRENT).rollups) count(awsId, row, row.costNano);
    for (const line of FORECAST_LINES) {
      const [, , , , productCode = '', usageType = '', , , resourceId = '', , cost = '0'] = line.split(',');
      count(forecastId, { productCode, usageType, resourceId }, nanoOf(Number(cost)));
    }
    const expected = [...items.values()]
      .sort((a, b) => (a.nano > b.nano ? -1 : a.nano < b.nano ? 1 : 0))
      .slice(0, 10)
      .map((entry) => entry.item);

    const dashboard = await get<DashboardAnalyticsItem[]>('/api/analytics/dashboard');

    expect(dashboard).toEqual(expected);
    expect(dashboard.some((item) => item.cloud_account_id === forecastId)).toBe(true);
  });
});

describe('who may read the analytics calls (real PostgreSQL)', () => {
  const calls = (cloudId: string) => [
    `/api/analytics?cloudId=${cloudId}`,
    `/api/analytics/product?cloudId=${cloudId}`,
    `/api/analytics/allocation/ec2?cloudId=${cloudId}`,
    `/api/analytics/detail/buckets?cloudId=${cloudId}`,
    `/api/analytics/detail/databases?cloudId=${cloudId}`,
    `/api/analytics/periods?cloudId=${cloudId}`,
  ];

  it('refuses an organisation without the Analytics package (403 PACKAGE_REQUIRED)', async () => {
    const unpaid = await signedInMember(server, 'unpaid');
    for (const url of [...calls(awsId), '/api/analytics/dashboard']) {
      const res = await callApi(server, 'GET', url, unpaid.token);
      expect(res.status, url).toBe(403);
      expect(res.body, url).toMatchObject({
        code: 'PACKAGE_REQUIRED',
        message: analyticsReadMessages.packageRequired,
      });
    }
  });

  it("answers 404 for another organisation's account", async () => {
    const stranger = await signedInMember(server, 'stranger');
    await buyPackage(server, stranger, 'analytics');
    for (const url of calls(awsId))
      expect((await callApi(server, 'GET', url, stranger.token)).status, url).toBe(404);
    expect(await get<DashboardAnalyticsItem[]>('/api/analytics/dashboard', stranger)).toEqual([]);
  });

  it('lets a User read, and refuses one whose analytics ACL is off (403)', async () => {
    const user = await signedInMember(server, 'reader', { principal: owner.principal, roleId: ROLE_ID.User });
    expect((await callApi(server, 'GET', `/api/analytics?cloudId=${awsId}`, user.token)).status).toBe(200);
    const acls = await get<UserAcl[]>(`/api/user_access_levels/user_acls/${user.principal.userId}`);
    const acl = acls.find((a) => a.service === 'analytics');
    if (!acl) throw new Error('no analytics ACL');
    const off = await callApi(server, 'PUT', `/api/user_access_levels/${acl.id}`, owner.token, {
      user_access_level: { enabled: false },
    });
    expect(off.status, off.raw).toBe(200);

    for (const url of [...calls(awsId), '/api/analytics/dashboard']) {
      const res = await callApi(server, 'GET', url, user.token);
      expect(res.status, url).toBe(403);
      expect(res.body, url).toMatchObject({ code: 'SERVICE_OFF' });
    }
  });

  it('refuses a bad month or product (400), and an account that delivers no billing report', async () => {
    const bad = await callApi(server, 'GET', `/api/analytics?cloudId=${awsId}&month=2026-13`, owner.token);
    expect(bad.status).toBe(400);
    expect((bad.body as { message: string }).message).toBe(analyticsReadMessages.invalidMonth);
    expect(
      (await callApi(server, 'GET', `/api/analytics/allocation/lambda?cloudId=${awsId}`, owner.token)).status,
    ).toBe(400);
    const blob = await server.services.cloudAccountsRepo.insert({
      organizationId: owner.principal.organizationId,
      provider: 'azure',
      name: 'Lab Blob',
      credentials: 'not read',
      keyHint: 'none',
    });
    const res = await callApi(server, 'GET', `/api/analytics?cloudId=${blob.id}`, owner.token);
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toBe(analyticsReadMessages.noReports('Lab Blob'));
  });
});

function lastDayOf(month: string): string {
  const [year, monthNumber] = month.split('-').map(Number);
  return new Date(Date.UTC(year ?? 1970, monthNumber ?? 1, 0)).toISOString().slice(0, 10);
}

const sumOf = (rows: ExpectedRollup[]) => rows.reduce((total, row) => total + row.costNano, 0n);

function groupBy(rows: ExpectedRollup[], keyOf: (row: ExpectedRollup) => string) {
  const map = new Map<string, bigint>();
  for (const row of rows) add(map, keyOf(row), row.costNano);
  return map;
}

/** What a detail call must answer for these rows: resource → usage type → operation, costliest first. */
function detailTree(rows: ExpectedRollup[], nameOf: (resourceId: string) => string) {
  const names = groupBy(rows, (row) => (row.resourceId ? nameOf(row.resourceId) : UNATTRIBUTED));
  return costliest(names).map(([name, cost]) => {
    const own = rows.filter((row) => (row.resourceId ? nameOf(row.resourceId) : UNATTRIBUTED) === name);
    return {
      bucket_name: name,
      cost: usd(cost),
      usage_types: costliest(groupBy(own, (row) => row.usageType)).map(([type, typeCost]) => ({
        usage_type: type,
        cost: usd(typeCost),
        operations: costliest(
          groupBy(
            own.filter((row) => row.usageType === type),
            (row) => row.operation,
          ),
        ).map(([operation, operationCost]) => ({ operation, cost: usd(operationCost) })),
      })),
    };
  });
}

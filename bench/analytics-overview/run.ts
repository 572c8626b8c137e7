// bench/analytics-overview: the GET /analytics overview answer for a year of rollups (issue 24 "Performance": ≤ 100 ms
// p50 server time, printed beside the time of the same SQL). An embedded PostgreSQL gets one account's year of
// daily rollups — 12 months of ~30 000 daily rows each, the size bench/cur-read's 5-million-line month folds into
// (31 125 keys) — written through the ingestion's own repo (stage, then the swap, which also writes the month's
// rollup), not by ingesting. Then, per round: the overview through the real Fastify app (app.inject, in process:
// the server's time, no network), and the same queries the service runs, sent straight through the repo. Beside
// them, for the record of why the monthly rollup exists, the same month and trend summed from the daily rows.
//
//   npm run analytics-overview -w bench [-- --rows 30000 --calls 30 --rounds 3]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { analyticsDailyCosts, type RollupRow, type CostScope, AnalyticsCostsRepo } from '@cumulo/server';
import { repoRoot } from '../inventory/s3rver-process.ts';
import { signedInBenchMember } from '../shared/bench-member.ts';
import { p50, startBenchApp, timedCalls } from '../shared/bench-app.ts';

const GOAL_MS = 100;
const WARM_UP = 5;

const { values: options } = parseArgs({
  options: {
    rows: { type: 'string', default: '30000' },
    calls: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '3' },
  },
});
const rowsPerMonth = Number(options.rows);
const calls = Number(options.calls);
const rounds = Number(options.rounds);
if (!(rowsPerMonth >= 1000) || !(calls >= 1) || !(rounds >= 1))
  throw new Error('bad --rows/--calls/--rounds');

const dataDir = path.join(repoRoot, 'bench/.data/analytics-overview');

/** The report's vocabulary: per product its usage types and operations (as bench/cur-read's generator and AWS). */
const PRODUCTS: Array<[string, Array<[string, string]>]> = [
  [
    'AmazonS3',
    [
      ['TimedStorage-ByteHrs', 'StandardStorage'],
      ['Requests-Tier1', 'PutObject'],
      ['Requests-Tier2', 'GetObject'],
    ],
  ],
  [
    'AmazonEC2',
    [
      ['BoxUsage:t3.medium', 'RunInstances'],
      ['BoxUsage:m5.xlarge', 'RunInstances'],
      ['EBS:VolumeUsage.gp3', 'CreateVolume-Gp3'],
    ],
  ],
  [
    'AmazonRDS',
    [
      ['InstanceUsage:db.t3.medium', 'CreateDBInstance:0002'],
      ['RDS:GP2-Storage', 'CreateDBInstance:0002'],
    ],
  ],
  ['AmazonEFS', [['TimedStorage-ByteHrs', '']]],
  [
    'AmazonCloudWatch',
    [
      ['CW:MetricMonitorUsage', 'MetricStorage'],
      ['CW:Requests', 'GetMetricData'],
    ],
  ],
  [
    'AmazonRoute53',
    [
      ['DNS-Queries', 'Query'],
      ['HostedZone', ''],
    ],
  ],
  [
    'AWSDataTransfer',
    [
      ['DataTransfer-Out-Bytes', 'RunInstances'],
      ['DataTransfer-Regional-Bytes', 'InterZone-In'],
    ],
  ],
  [
    'AWSDirectConnect',
    [
      ['PortUsage:1G', 'CreateConnection'],
      ['DataXfer-Out:dc.1', 'DataXfer-Out'],
    ],
  ],
  [
    'AWSLambda',
    [
      ['Request', 'Invoke'],
      ['Lambda-GB-Second', 'Invoke'],
    ],
  ],
];
const REGIONS = ['us-east-1', 'eu-central-1', 'us-west-2'];
const ACCOUNTS = ['111122223333', '444455556666'];

/** A deterministic stream of numbers (mulberry32), so every run holds the same rows. */
function prng(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One month's daily rows: the day-independent keys (account × product × usage type × region × resource, a
 * blank resource among them) on every day, until `rowsPerMonth`; the whole-month lines (Fee, Tax, Credit) on day 1.
 */
function monthRows(month: string, seed: number): RollupRow[] {
  const random = prng(seed);
  const [year, monthNumber] = month.split('-').map(Number);
  const days = new Date(Date.UTC(year ?? 1970, monthNumber ?? 1, 0)).getUTCDate();
  const keysPerDay = Math.ceil(rowsPerMonth / days);
  const keys: Array<Omit<RollupRow, 'day' | 'costNano' | 'usageAmount' | 'lineItems'>> = [];
  for (let resource = 0; keys.length < keysPerDay; resource++)
    for (const usageAccountId of ACCOUNTS)
      for (const [productCode, kinds] of PRODUCTS)
        for (const [usageType, operation] of kinds)
          for (const region of REGIONS) {
            if (keys.length === keysPerDay) break;
            keys.push({
              usageAccountId,
              lineItemType: random() < 0.85 ? 'Usage' : 'DiscountedUsage',
              productCode,
              usageType,
              operation,
              region,
              resourceId: resource === 0 ? '' : `${productCode.toLowerCase()}-${region}-${resource}`,
            });
          }
  const rows: RollupRow[] = [];
  for (let day = 1; day <= days; day++) {
    const date = `${month}-${String(day).padStart(2, '0')}`;
    for (const key of keys)
      rows.push({
        ...key,
        day: date,
        costNano: BigInt(Math.floor(random() * 5_000_000_000)),
        usageAmount: random() * 1000,
        lineItems: 1 + Math.floor(random() * 300),
      });
  }
  for (const [lineItemType, productCode, cost] of [
    ['Fee', 'AWSSupportBusiness', 500_000_000_000n],
    ['Tax', 'AmazonEC2', 42_000_000_000n],
    ['Credit', 'AmazonS3', -10_000_000_000n],
  ] as const)
    rows.push({
      day: `${month}-01`,
      usageAccountId: ACCOUNTS[0] ?? '',
      lineItemType,
      productCode,
      usageType: '',
      operation: '',
      region: '',
      resourceId: '',
      costNano: cost,
      usageAmount: 0,
      lineItems: 1,
    });
  return rows;
}

const { app, services, db, close } = await startBenchApp(dataDir);

try {
  const { principal, token } = await signedInBenchMember(services, db);
  const organizationId = principal.organizationId;
  const account = await services.cloudAccountsRepo.insert({
    organizationId,
    provider: 'aws',
    name: 'Bench AWS',
    credentials: 'never read by the overview',
    keyHint: 'bench',
    billingBucket: 'billing',
  });

  const now = new Date();
  const month = now.toISOString().slice(0, 7);
  const months = Array.from({ length: 12 }, (_, index) =>
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11 + index, 1)).toISOString().slice(0, 7),
  );
  let dailyRows = 0;
  const filling = performance.now();
  for (const [index, period] of months.entries()) {
    const rows = monthRows(period, 24 + index);
    dailyRows += rows.length;
    const staged = await services.analyticsRepo.stagePeriod(
      organizationId,
      account.id,
      {
        layout: 'cur-legacy',
        report: 'bench',
        period,
        manifestKey: `cur/bench/${period}/bench-Manifest.json`,
        version: `asm-${period}`,
        files: [],
      },
      rows,
    );
    await services.analyticsRepo.swapPeriod(organizationId, account.id, staged);
  }
  await db.pool.query(
    'vacuum analyze analytics_daily_costs, analytics_monthly_costs, analytics_report_periods',
  );
  const { rows: counted } = await db.pool.query<{ monthly: string }>(
    'select count(*) as monthly from analytics_monthly_costs',
  );
  console.log(
    `analytics-overview: ${dailyRows} daily rollup rows over 12 months (${Math.round(dailyRows / 12)} a month), ` +
      `${counted[0]?.monthly} monthly rows, written in ${((performance.now() - filling) / 1000).toFixed(1)} s; ` +
      `${calls} calls after ${WARM_UP} warm-up, p50 in ms`,
  );

  const url = `/api/analytics?cloudId=${account.id}&month=${month}`;
  const first = await app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
  });
  if (first.statusCode !== 200) throw new Error(`GET ${url} answered ${first.statusCode}: ${first.body}`);
  const overview = first.json<{ monthly_actual: number; trend: unknown[]; categories: unknown[] }>();
  console.log(
    `  the answer: ${overview.categories.length} categories, ${overview.trend.length} trend months, ` +
      `monthly_actual ${overview.monthly_actual.toFixed(2)} USD`,
  );

  const repo = new AnalyticsCostsRepo(db.orm);
  const scope: CostScope = { organizationId, accountId: account.id, usageAccountId: null };
  const trendFrom = months[0] ?? month;
  // The overview's queries, as AnalyticsCostsService.overview sends them (concurrently).
  const overviewSql = () =>
    Promise.all([
      repo.monthByProduct(scope, month),
      repo.monthTotals(scope, trendFrom, month),
      repo.lastSucceededAt(organizationId, account.id),
    ]);
  // The same month and trend summed from the daily rows, without the monthly rollup.
  const [fromYear, fromMonth] = trendFrom.split('-').map(Number);
  const monthStart = `${month}-01`;
  const dailySql = () =>
    Promise.all([
      db.orm.execute(sql`
        select product_code, line_item_type, sum(cost_nano)::text, max(day)::text from ${analyticsDailyCosts}
        where organization_id = ${organizationId} and cloud_account_id = ${account.id}
          and day >= ${monthStart}::date and day < (${monthStart}::date + interval '1 month')
        group by product_code, line_item_type`),
      db.orm.execute(sql`
        select to_char(day, 'YYYY-MM') as month, sum(cost_nano)::text from ${analyticsDailyCosts}
        where organization_id = ${organizationId} and cloud_account_id = ${account.id}
          and day >= ${`${fromYear}-${String(fromMonth).padStart(2, '0')}-01`}::date
          and day < (${monthStart}::date + interval '1 month')
        group by 1`),
    ]);
  const headers = { authorization: `Bearer ${token}` };
  const results: Array<{ api: number; sql: number; daily: number }> = [];
  for (let round = 1; round <= rounds; round++) {
    const api = p50(await timedCalls(() => app.inject({ method: 'GET', url, headers }), WARM_UP, calls));
    const direct = p50(await timedCalls(overviewSql, WARM_UP, calls));
    const daily = p50(await timedCalls(dailySql, WARM_UP, calls));
    results.push({ api, sql: direct, daily });
    console.log(
      `  round ${round}: GET /analytics ${api.toFixed(1)} ms (goal ≤ ${GOAL_MS}: ${api <= GOAL_MS ? 'met' : 'NOT met'})` +
        ` | its SQL straight through the repo ${direct.toFixed(1)} ms` +
        ` | the same from the daily rows ${daily.toFixed(1)} ms`,
    );
  }
  const worst = Math.max(...results.map((r) => r.api));
  console.log(
    `analytics-overview: worst round p50 ${worst.toFixed(1)} ms, goal ≤ ${GOAL_MS} ms: ${worst <= GOAL_MS ? 'met' : 'NOT met'}`,
  );
} finally {
  await close();
}

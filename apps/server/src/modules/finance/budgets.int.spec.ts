import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOCATION_PRODUCTS,
  BUDGET_TOTAL_LABEL,
  financeMessages,
  messages,
  productLabelOf,
  type BudgetHierarchical,
  type FinanceProduct,
  type TreeNode,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import { createLogger } from '../../logger.ts';
import {
  buyPackage,
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { CurReportGenerator, objectStoreSink } from '../../../test/cur/generator.ts';
import { ingestEngine } from '../analytics/ingest/engine.ts';
import { IngestRun, type IngestJob } from '../analytics/ingest/ingest-run.ts';

/**
 * Budgets against actual spending on the real embedded PostgreSQL, with actuals from real billing reports: three
 * generated months before this one and a hand-written current month go from s3rver through the analytics
 * ingestion into the rollups, then every finance call is checked against the totals written. Money is compared
 * in cents: budgets are whole cents, actuals are the reports' nano-dollars rounded half away from zero.
 */

type Member = Awaited<ReturnType<typeof signedInMember>>;

const shift = (month: string, by: number) => {
  const [year, monthNumber] = month.split('-').map(Number);
  return new Date(Date.UTC(year ?? 1970, (monthNumber ?? 1) - 1 + by, 1)).toISOString().slice(0, 7);
};
const CURRENT = new Date().toISOString().slice(0, 7);
const YEAR = Number(CURRENT.slice(0, 4));
const NEXT_YEAR = YEAR + 1;
const LAST_YEAR = YEAR - 1;
const GENERATED = [shift(CURRENT, -3), shift(CURRENT, -2), shift(CURRENT, -1)];
/** The year of last month: it holds generated months (and this month unless it is January). */
const ACTUALS_YEAR = Number(shift(CURRENT, -1).slice(0, 4));
const monthsOf = (year: number) =>
  Array.from({ length: 12 }, (_, index) => `${year}-${String(index + 1).padStart(2, '0')}`);
const daysIn = (month: string) => {
  const [year, monthNumber] = month.split('-').map(Number);
  return new Date(Date.UTC(year ?? 1970, monthNumber ?? 1, 0)).getUTCDate();
};
/** Nano-dollars to cents, half away from zero (a product's month can be negative: credits, refunds). */
const cents = (nano: bigint) => Number((nano + (nano < 0n ? -5_000_000n : 5_000_000n)) / 10_000_000n);
const toCents = (dollars: number | null) => (dollars === null ? null : Math.round(dollars * 100));

/** This month, written by hand: usage on day 1 and day 10 (the last day of data), and once-billed lines. */
const CURRENT_HEADER =
  'identity/LineItemId,lineItem/UsageAccountId,lineItem/LineItemType,lineItem/UsageStartDate,lineItem/ProductCode,' +
  'lineItem/UsageType,lineItem/Operation,product/region,lineItem/ResourceId,lineItem/UsageAmount,lineItem/UnblendedCost';
const CURRENT_LINES = [
  `a,444455556666,Usage,${CURRENT}-01T00:00:00Z,AmazonS3,TimedStorage-ByteHrs,StandardStorage,us-east-1,bucket,10,3.000000001`,
  `b,444455556666,Usage,${CURRENT}-10T05:00:00Z,AmazonRDS,InstanceUsage:db.t3.medium,CreateDBInstance:0002,us-east-1,db,24,7`,
  `c,444455556666,Fee,${CURRENT}-01T00:00:00Z,AWSSupportBusiness,Dollar,,,,1,100`,
  `d,444455556666,Tax,${CURRENT}-01T00:00:00Z,AmazonEC2,,,,,0,2.5`,
  `e,444455556666,Credit,${CURRENT}-01T00:00:00Z,AmazonS3,,,,,0,-1.25`,
];
/** Spec 000 §5: usage ÷ day of the last data × days in month, plus what is billed once. */
const CURRENT_FORECAST_NANO = (10_000_000_001n * BigInt(daysIn(CURRENT))) / 10n + 101_250_000_000n;
const CURRENT_ACTUAL_NANO = 111_250_000_001n;
const CURRENT_BY_PRODUCT: Record<string, bigint> = {
  AmazonS3: 1_750_000_001n,
  AmazonRDS: 7_000_000_000n,
  AWSSupportBusiness: 100_000_000_000n,
  AmazonEC2: 2_500_000_000n,
};
const CURRENT_S3_FORECAST_NANO = (3_000_000_001n * BigInt(daysIn(CURRENT))) / 10n - 1_250_000_000n;

let s3rver: TestStoreServer;
let server: TestServer;
let s3: S3ObjectStore;
let owner: Member;
let generator: CurReportGenerator;
let awsId: string;
let blobId: string;

const get = async <T>(url: string, member: Member = owner) => {
  const res = await callApi(server, 'GET', url, member.token);
  expect(res.status, `${url}: ${res.raw}`).toBe(200);
  return res.body as T;
};
const putBudget = (body: object, member: Member = owner) =>
  callApi(server, 'PUT', '/api/finance/budget', member.token, { cloud: awsId, ...body });
const view = (year: number, label = BUDGET_TOTAL_LABEL, extra = '', cloud = awsId) =>
  get<BudgetHierarchical>(
    `/api/finance/budget/hierarchical?cloud=${cloud}&year=${year}&label=${encodeURIComponent(label)}${extra}`,
  );
const budgetsOf = (rows: BudgetHierarchical['rows']) => rows.map((row) => toCents(row.budget));
const count = async (table: string) =>
  Number((await server.db.pool.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]?.n);
const budgetAudits = async () =>
  (
    await server.db.pool.query<{ type: string; resource: string; changes: unknown }>(
      "select type, resource, changes from audits where entity = 'Budget' order by id",
    )
  ).rows;

/** The actual the reports hold for a month and product code (every code when null), in nano-dollars. */
function actualNano(month: string, productCode: string | null = null): bigint {
  if (month === CURRENT)
    return productCode === null ? CURRENT_ACTUAL_NANO : (CURRENT_BY_PRODUCT[productCode] ?? 0n);
  const totals = generator.expected().periods[month];
  if (!totals) return 0n;
  return productCode === null ? totals.costNano : (totals.byProduct[productCode] ?? 0n);
}

async function deliverCurrentMonth(bucket: string) {
  const next = `${shift(CURRENT, 1).replace('-', '')}01`;
  const folder = `cur/daily/${CURRENT.replace('-', '')}01-${next}`;
  const dataKey = `${folder}/asm-1/daily-00001.csv.gz`;
  await s3.write(bucket, dataKey, gzipSync(`${CURRENT_HEADER}\n${CURRENT_LINES.join('\n')}\n`));
  await s3.write(
    bucket,
    `${folder}/daily-Manifest.json`,
    Buffer.from(
      JSON.stringify({
        assemblyId: 'asm-1',
        reportKeys: [dataKey],
        billingPeriod: { start: `${CURRENT.replace('-', '')}01T000000.000Z`, end: `${next}T000000.000Z` },
        compression: 'GZIP',
      }),
    ),
  );
}

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  await buyPackage(server, owner, 'finance');
  s3 = s3rverStore(s3rver.endpoint);
  awsId = await connectS3rverAccount(server, owner.token, 'My AWS');
  await s3.createBucket('cur-budgets');
  generator = new CurReportGenerator({
    seed: 'finance-budgets',
    layout: 'cur-legacy',
    endMonth: shift(CURRENT, -1),
    months: GENERATED.length,
    linesPerMonth: 80,
    bucket: 'cur-budgets',
    name: 'monthly',
  });
  await generator.writeAll(objectStoreSink(s3, 'cur-budgets'));
  await deliverCurrentMonth('cur-budgets');

  // Saving the billing bucket queues the ingestion; it runs here as the worker's handler runs it.
  const saved = await callApi(
    server,
    'PUT',
    `/api/cloud_accounts/${awsId}/update_billing_report_bucket`,
    owner.token,
    { billing_bucket: 'cur-budgets' },
  );
  expect(saved.status, saved.raw).toBe(200);
  const { rows } = await server.db.pool.query<{ data: IngestJob }>(
    "delete from pgboss.job where name = 'analytics.ingest' and data->>'accountId' = $1 returning data",
    [awsId],
  );
  const job = rows[0];
  if (!job) throw new Error('no analytics.ingest job was queued');
  const ingest = new IngestRun(
    server.services.analyticsRepo,
    server.services.cloudAccountsRepo,
    server.services.stores,
    ingestEngine,
    createLogger('silent'),
  );
  expect(await ingest.run(job.data)).toMatchObject({ state: 'succeeded' });

  // A cloud without billing reports: budgets can be set for it, its actuals stay 0.
  blobId = (
    await server.services.cloudAccountsRepo.insert({
      organizationId: owner.principal.organizationId,
      provider: 'azure',
      name: 'Lab Blob',
      credentials: 'not read',
      keyHint: 'none',
    })
  ).id;
}, 60_000);

afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('budgets against actual spending (embedded PostgreSQL, reports ingested from s3rver)', () => {
  it('spreads a yearly 1000.00 over the twelve months so they add up to exactly 1000.00, with one audit entry', async () => {
    const saved = await putBudget({ label: 'Total', amount: 1000, flag: 'yearly', month: `${NEXT_YEAR}-05` });
    expect(saved.status, saved.raw).toBe(200);
    expect(saved.body).toEqual({ message: financeMessages.budgetUpdated });
    // The budget alerts compare against the new amount now (a queued evaluation), not at the next report.
    const jobs = await server.db.pool.query(`select data from pgboss.job where name = 'finance.evaluate'`);
    expect(jobs.rows).toContainEqual({
      data: { organizationId: owner.principal.organizationId, requestId: expect.any(String) },
    });

    const year = await view(NEXT_YEAR);
    expect(budgetsOf(year.rows)).toEqual([...Array<number>(11).fill(8333), 8337]);
    expect(budgetsOf(year.rows).reduce<number>((sum, value) => sum + (value ?? 0), 0)).toBe(100_000);
    expect(year.yearly.budget).toBe(1000);
    expect(year.rows.map((row) => row.month)).toEqual(monthsOf(NEXT_YEAR));
    // A year still ahead has no actual and no forecast.
    expect(year.rows.every((row) => row.actual === 0 && row.forecast === null)).toBe(true);
    expect(await budgetAudits()).toEqual([
      {
        type: 'Added',
        resource: `Total budget of My AWS, ${NEXT_YEAR}`,
        changes: [
          { property: 'yearly_budget', initial: null, value: '1000.00' },
          { property: 'months', initial: null, value: `${NEXT_YEAR}-01..${NEXT_YEAR}-12` },
        ],
      },
    ]);

    // A range replaces its months only, spread the same way, and the trail says the year's old and new totals.
    const range = await putBudget({
      label: 'Total',
      amount: 300,
      flag: 'yearly',
      start: `${NEXT_YEAR}-03`,
      end: `${NEXT_YEAR}-05`,
    });
    expect(range.status, range.raw).toBe(200);
    expect(budgetsOf((await view(NEXT_YEAR)).rows)).toEqual([
      8333,
      8333,
      10_000,
      10_000,
      10_000,
      ...Array<number>(6).fill(8333),
      8337,
    ]);
    expect((await budgetAudits())[1]).toEqual({
      type: 'Modified',
      resource: `Total budget of My AWS, ${NEXT_YEAR}`,
      changes: [
        { property: 'yearly_budget', initial: '1000.00', value: '1050.01' },
        { property: 'months', initial: null, value: `${NEXT_YEAR}-03..${NEXT_YEAR}-05` },
      ],
    });
  });

  it('writes two saves of one year at once one after the other: never a mixed year, each audit entry true', async () => {
    const saves = await Promise.all(
      [1200, 2400].map((amount) =>
        putBudget({ label: 'AmazonEC2', amount, flag: 'yearly', month: `${NEXT_YEAR}-01` }),
      ),
    );
    expect(saves.map((res) => res.status)).toEqual([200, 200]);
    const months = budgetsOf((await view(NEXT_YEAR, 'AmazonEC2')).rows);
    expect([Array<number>(12).fill(10_000), Array<number>(12).fill(20_000)]).toContainEqual(months);
    const { rows } = await server.db.pool.query<{
      type: string;
      changes: { initial: string | null; value: string }[];
    }>("select type, changes from audits where entity = 'Budget' and resource = $1 order by id", [
      `AmazonEC2 budget of My AWS, ${NEXT_YEAR}`,
    ]);
    expect(rows.map((row) => row.type)).toEqual(['Added', 'Modified']);
    const [first, second] = rows.map((row) => row.changes[0]);
    expect(first?.initial).toBeNull();
    expect(second?.initial).toBe(first?.value);
    expect(second?.value).toBe((((months[0] ?? 0) * 12) / 100).toFixed(2));
  });

  it('edits one month inline and leaves the others; a monthly save needs its month', async () => {
    const edited = await putBudget({
      label: 'Total',
      amount: 120.5,
      flag: 'monthly',
      month: `${NEXT_YEAR}-07`,
    });
    expect(edited.status, edited.raw).toBe(200);
    const year = await view(NEXT_YEAR);
    expect(year.rows.find((row) => row.month === `${NEXT_YEAR}-07`)?.budget).toBe(120.5);
    expect(year.rows.find((row) => row.month === `${NEXT_YEAR}-06`)?.budget).toBe(83.33);
    expect(toCents(year.yearly.budget)).toBe(105_001 - 8333 + 12_050);
    expect((await budgetAudits()).at(-1)).toEqual({
      type: 'Modified',
      resource: `Total budget of My AWS, ${NEXT_YEAR}-07`,
      changes: [{ property: 'budget', initial: '83.33', value: '120.50' }],
    });

    const missing = await putBudget({ label: 'Total', amount: 1, flag: 'monthly' });
    expect(missing.status).toBe(400);
    expect((missing.body as { message: string }).message).toBe(financeMessages.monthRequired);
  });

  it('warns that sub budgets do not match the total until the product budgets add up to it', async () => {
    const created = await callApi(server, 'POST', '/api/finance/products', owner.token, {
      name: 'Backups',
      category: 'Storage',
    });
    expect(created.status, created.raw).toBe(201);
    expect(created.body).toEqual({
      message: financeMessages.productSaved,
      product: { name: 'Backups', label: 'Backups', category: 'Storage', custom: true },
    });
    expect(
      (await putBudget({ label: 'Total', amount: 1000, flag: 'yearly', month: `${LAST_YEAR}-01` })).status,
    ).toBe(200);
    let total = await view(LAST_YEAR);
    expect(total.rows.every((row) => !row.budget_warning && row.sub_budgets === null)).toBe(true);

    // A product named by its label ('S3') is kept under its report code.
    expect(
      (await putBudget({ label: 'S3', amount: 600, flag: 'yearly', month: `${LAST_YEAR}-01` })).status,
    ).toBe(200);
    expect(budgetsOf((await view(LAST_YEAR, 'AmazonS3')).rows)).toEqual(Array<number>(12).fill(5000));
    total = await view(LAST_YEAR);
    expect(total.rows.map((row) => [row.sub_budgets, row.budget_warning])).toEqual(
      Array.from({ length: 12 }, () => [50, true]),
    );
    const treeNode = async () =>
      (await get<TreeNode[]>(`/api/finance/budget/tree?year=${LAST_YEAR}`)).find(
        (node) => node.cloud === awsId,
      );
    expect((await treeNode())?.budget_warning).toBe(true);

    // A custom product named in another case is kept under its saved name; now every month adds up.
    expect(
      (await putBudget({ label: 'backups', amount: 400, flag: 'yearly', month: `${LAST_YEAR}-01` })).status,
    ).toBe(200);
    total = await view(LAST_YEAR);
    expect(total.rows.map((row) => toCents(row.sub_budgets))).toEqual(budgetsOf(total.rows));
    expect(total.rows.some((row) => row.budget_warning)).toBe(false);
    const node = await treeNode();
    expect(node?.budget_warning).toBe(false);
    expect(node?.value).toBe(1000);
    expect(node?.children.filter((child) => child.value !== null)).toEqual([
      {
        cloud: awsId,
        label: 'Backups',
        title: 'Backups',
        value: 400,
        actual: 0,
        budget_warning: false,
        children: [],
      },
      {
        cloud: awsId,
        label: 'AmazonS3',
        title: 'S3',
        value: 600,
        actual: expect.any(Number),
        budget_warning: false,
        children: [],
      },
    ]);

    // One month edited out of step warns for that month only.
    expect(
      (await putBudget({ label: 'Backups', amount: 40, flag: 'monthly', month: `${LAST_YEAR}-06` })).status,
    ).toBe(200);
    total = await view(LAST_YEAR);
    expect(total.rows.filter((row) => row.budget_warning).map((row) => row.month)).toEqual([
      `${LAST_YEAR}-06`,
    ]);
    expect((await treeNode())?.budget_warning).toBe(true);
  });

  it("shows each month's actual from the ingested reports beside its budget, and a compared product", async () => {
    expect(
      (await putBudget({ label: 'Total', amount: 1200, flag: 'yearly', month: `${ACTUALS_YEAR}-01` })).status,
    ).toBe(200);
    const year = await view(ACTUALS_YEAR, BUDGET_TOTAL_LABEL, '&compare=AmazonS3');
    const months = monthsOf(ACTUALS_YEAR);
    expect(year.rows.map((row) => [row.month, toCents(row.budget), toCents(row.actual)])).toEqual(
      months.map((month) => [month, 10_000, cents(actualNano(month))]),
    );
    // Generated months have real amounts: the check above compares something.
    expect(year.rows.filter((row) => row.actual > 0).length).toBeGreaterThan(0);
    expect(
      year.chart.map((point) => [point.month, toCents(point.actual_cmp ?? null), point.budget_cmp]),
    ).toEqual(months.map((month) => [month, cents(actualNano(month, 'AmazonS3')), null]));
    expect(toCents(year.yearly.actual)).toBe(
      months.reduce((sum, month) => sum + cents(actualNano(month)), 0),
    );
    expect(year.has_reports).toBe(true);
    const lastGenerated = GENERATED.filter((month) => month.startsWith(String(ACTUALS_YEAR))).at(-1) ?? '';
    expect(year.data_through).toBe(
      CURRENT.startsWith(String(ACTUALS_YEAR))
        ? `${CURRENT}-10`
        : `${lastGenerated}-${String(daysIn(lastGenerated)).padStart(2, '0')}`,
    );

    // One product's own view: its actual only.
    const s3Year = await view(ACTUALS_YEAR, 'AmazonS3');
    expect(s3Year.rows.map((row) => toCents(row.actual))).toEqual(
      months.map((month) => cents(actualNano(month, 'AmazonS3'))),
    );
    expect(s3Year.rows.every((row) => row.budget === null && row.sub_budgets === null)).toBe(true);
  });

  it('forecasts the current month from its last day of data (spec 000 §5); past months are their actual, months ahead none', async () => {
    const year = await view(YEAR);
    for (const row of year.rows) {
      if (row.month < CURRENT) expect(row.forecast, row.month).toBe(row.actual);
      if (row.month > CURRENT) expect(row.forecast, row.month).toBeNull();
    }
    const current = year.rows.find((row) => row.month === CURRENT);
    expect(toCents(current?.actual ?? null)).toBe(cents(CURRENT_ACTUAL_NANO));
    expect(toCents(current?.forecast ?? null)).toBe(cents(CURRENT_FORECAST_NANO));
    expect(year.chart.find((point) => point.month === CURRENT)?.forecast).toBe(current?.forecast);
    const s3Current = (await view(YEAR, 'AmazonS3')).rows.find((row) => row.month === CURRENT);
    expect(toCents(s3Current?.forecast ?? null)).toBe(cents(CURRENT_S3_FORECAST_NANO));
  });

  it('lists every cloud of the organisation in the tree, reports or not, with its products', async () => {
    expect(
      (await putBudget({ cloud: blobId, label: 'Total', amount: 500, flag: 'yearly', month: `${YEAR}-01` }))
        .status,
    ).toBe(200);
    expect(
      (await putBudget({ cloud: blobId, label: 'Backups', amount: 500, flag: 'yearly', month: `${YEAR}-01` }))
        .status,
    ).toBe(200);
    const tree = await get<TreeNode[]>(`/api/finance/budget/tree?year=${YEAR}`);
    expect(tree.map((node) => node.title)).toEqual(['Lab Blob', 'My AWS']);
    expect(tree[0]).toEqual({
      cloud: blobId,
      label: 'Total',
      title: 'Lab Blob',
      value: 500,
      actual: 0,
      budget_warning: false,
      children: [
        {
          cloud: blobId,
          label: 'Backups',
          title: 'Backups',
          value: 500,
          actual: 0,
          budget_warning: false,
          children: [],
        },
      ],
    });
    const aws = tree[1];
    const months = monthsOf(YEAR);
    expect(toCents(aws?.actual ?? null)).toBe(
      months.reduce((sum, month) => sum + cents(actualNano(month)), 0),
    );
    const codes = new Set<string>();
    for (const month of months) {
      if (month === CURRENT) for (const code of Object.keys(CURRENT_BY_PRODUCT)) codes.add(code);
      for (const code of Object.keys(generator.expected().periods[month]?.byProduct ?? {})) codes.add(code);
    }
    expect(aws?.children.map((child) => child.title).sort()).toEqual([...codes].map(productLabelOf).sort());
    for (const code of codes) {
      const child = aws?.children.find((node) => node.title === productLabelOf(code));
      const expected = months.reduce((sum, month) => sum + cents(actualNano(month, code)), 0);
      expect(toCents(child?.actual ?? null), code).toBe(expected);
    }
  });

  it('exports the table as a CSV attachment with a header row', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/finance/budget.csv?cloud=${awsId}&year=${ACTUALS_YEAR}&label=Total`,
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="budget-My-AWS-Total-${ACTUALS_YEAR}.csv"`,
    );
    const lines = res.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toBe('month,budget,actual,forecast,difference,percent used');
    expect(lines).toHaveLength(14);
    expect(lines[13]).toBe('');
    const year = await view(ACTUALS_YEAR);
    year.rows.forEach((row, index) => {
      const budget = toCents(row.budget) ?? 0;
      const actual = toCents(row.actual) ?? 0;
      expect(lines[index + 1], row.month).toBe(
        [
          row.month,
          (budget / 100).toFixed(2),
          (actual / 100).toFixed(2),
          row.forecast === null ? '' : row.forecast.toFixed(2),
          ((budget - actual) / 100).toFixed(2),
          ((actual / budget) * 100).toFixed(2),
        ].join(','),
      );
    });

    // A product named to run as a formula or to break the header does neither in the file's name.
    const sly = '=HYPERLINK("http://x")';
    expect((await callApi(server, 'POST', '/api/finance/products', owner.token, { name: sly })).status).toBe(
      201,
    );
    const other = await server.app.inject({
      method: 'GET',
      url: `/api/finance/budget.csv?cloud=${awsId}&year=${YEAR}&label=${encodeURIComponent(sly)}`,
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(other.statusCode, other.body).toBe(200);
    expect(other.headers['content-disposition']).toBe(
      `attachment; filename="budget-My-AWS-HYPERLINK-http-x-${YEAR}.csv"`,
    );
  });

  it("lists the cloud's report products and the analytics products, then the custom ones; names are unique", async () => {
    const products = await get<FinanceProduct[]>(`/api/finance/products?cloud=${awsId}`);
    const reported = products.filter((product) => !product.custom);
    const codes = new Set([
      ...Object.values(ALLOCATION_PRODUCTS).flat(),
      ...GENERATED.flatMap((month) => Object.keys(generator.expected().periods[month]?.byProduct ?? {})),
      ...Object.keys(CURRENT_BY_PRODUCT),
    ]);
    expect(reported.map((product) => product.name).sort()).toEqual([...codes].sort());
    expect(reported.find((product) => product.name === 'AmazonS3')).toEqual({
      name: 'AmazonS3',
      label: 'S3',
      category: 'Storage',
      custom: false,
    });
    const labels = reported.map((product) => product.label);
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b)));
    expect(products.slice(reported.length).map((product) => product.name)).toEqual(
      ['=HYPERLINK("http://x")', 'Backups'].sort((a, b) => a.localeCompare(b)),
    );

    const audits = await server.db.pool.query(
      "select resource, changes from audits where entity = 'Product' and resource = 'Backups'",
    );
    expect(audits.rows).toEqual([
      {
        resource: 'Backups',
        changes: [
          { property: 'name', initial: null, value: 'Backups' },
          { property: 'category', initial: null, value: 'Storage' },
        ],
      },
    ]);
    const before = await count('finance_products');
    for (const [name, message] of [
      ['BACKUPS', financeMessages.productExists('BACKUPS')],
      // A report product's label or code: its budget and its alert would go to different products.
      ['S3', financeMessages.productExists('S3')],
      ['amazonec2', financeMessages.productExists('amazonec2')],
      [' total ', financeMessages.productReserved],
      ['   ', financeMessages.productNameRequired],
    ] as const) {
      const res = await callApi(server, 'POST', '/api/finance/products', owner.token, {
        name,
        category: 'Others',
      });
      expect(res.status, name).toBe(400);
      expect((res.body as { message: string }).message, name).toBe(message);
    }
    expect(await count('finance_products')).toBe(before);
  });

  it('refuses bad input with 400 in words and writes nothing', async () => {
    const budgets = await count('finance_budgets');
    const audits = await count('audits');
    const month = `${YEAR}-02`;
    const cases: Array<[object, string]> = [
      [{ label: 'Total', amount: -1, flag: 'monthly', month }, financeMessages.invalidBudget],
      [{ label: 'Total', amount: 1.234, flag: 'monthly', month }, financeMessages.invalidBudget],
      [{ label: 'Total', amount: 1e300, flag: 'yearly' }, financeMessages.invalidBudget],
      [{ label: 'Total', amount: '12', flag: 'monthly', month }, financeMessages.invalidBudget],
      [{ label: 'S3\u0000', amount: 1, flag: 'monthly', month }, messages.textInvalid],
      [{ label: 'S3\uD800', amount: 1, flag: 'monthly', month }, messages.textInvalid],
      [{ label: 'Nope', amount: 1, flag: 'monthly', month }, financeMessages.unknownLabel('Nope')],
      [{ label: 'Total', amount: 1, flag: 'monthly', month: `${YEAR}-13` }, financeMessages.invalidMonth],
      // Year 0 is no date PostgreSQL takes (this answered 500); 9999 no screen could show.
      [{ label: 'Total', amount: 1, flag: 'monthly', month: '0000-01' }, financeMessages.invalidMonth],
      [{ label: 'Total', amount: 1, flag: 'monthly', month: '9999-12' }, financeMessages.invalidMonth],
      [
        { label: 'Total', amount: 1, flag: 'yearly', start: '0000-01', end: '0000-12' },
        financeMessages.invalidMonth,
      ],
      [
        { label: 'Total', amount: 1, flag: 'yearly', start: `${YEAR}-11`, end: `${NEXT_YEAR}-02` },
        financeMessages.budgetRange,
      ],
      [
        { label: 'Total', amount: 1, flag: 'yearly', start: `${YEAR}-05`, end: `${YEAR}-04` },
        financeMessages.budgetRange,
      ],
      [{ label: 'Total', amount: 1, flag: 'yearly', start: `${YEAR}-05` }, financeMessages.budgetRange],
    ];
    for (const [body, message] of cases) {
      const res = await putBudget(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.body as { message: string }).message, JSON.stringify(body)).toBe(message);
    }
    expect(await count('finance_budgets')).toBe(budgets);
    expect(await count('audits')).toBe(audits);

    const badYear = await callApi(server, 'GET', `/api/finance/budget/tree?year=1e300`, owner.token);
    expect(badYear.status).toBe(400);
    expect((badYear.body as { message: string }).message).toBe(financeMessages.invalidYear);
  });

  it("answers 404 for another organisation's cloud and writes nothing there", async () => {
    const stranger = await signedInMember(server, 'stranger');
    await buyPackage(server, stranger, 'finance');
    const budgets = await count('finance_budgets');
    const put = await putBudget({ label: 'Total', amount: 1, flag: 'yearly' }, stranger);
    expect(put.status, put.raw).toBe(404);
    for (const url of [
      `/api/finance/budget/hierarchical?cloud=${awsId}&year=${YEAR}`,
      `/api/finance/budget.csv?cloud=${awsId}&year=${YEAR}`,
      `/api/finance/products?cloud=${awsId}`,
    ])
      expect((await callApi(server, 'GET', url, stranger.token)).status, url).toBe(404);
    expect(await get<TreeNode[]>(`/api/finance/budget/tree?year=${YEAR}`, stranger)).toEqual([]);
    expect(await count('finance_budgets')).toBe(budgets);
  });

  it('refuses an organisation without the Finance package (403 PACKAGE_REQUIRED), reads included', async () => {
    const unpaid = await signedInMember(server, 'unpaid');
    const calls: Array<['GET' | 'PUT' | 'POST', string, object?]> = [
      ['GET', `/api/finance/budget/hierarchical?cloud=${awsId}&year=${YEAR}`],
      ['GET', `/api/finance/budget/tree?year=${YEAR}`],
      ['GET', `/api/finance/budget.csv?cloud=${awsId}&year=${YEAR}`],
      ['GET', '/api/finance/products'],
      ['POST', '/api/finance/products', { name: 'Mine' }],
      ['PUT', '/api/finance/budget', { cloud: awsId, label: 'Total', amount: 1, flag: 'yearly' }],
    ];
    for (const [method, url, body] of calls) {
      const res = await callApi(server, method, url, unpaid.token, body);
      expect(res.status, url).toBe(403);
      expect(res.body, url).toMatchObject({
        code: 'PACKAGE_REQUIRED',
        message: financeMessages.packageRequired,
      });
    }
  });
});

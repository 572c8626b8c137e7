import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYTICS_INGEST_CRON, ROLE_ID, analyticsMessages, type AnalyticsRunView } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import { createLogger } from '../../logger.ts';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import {
  CurReportGenerator,
  objectStoreSink,
  type CurGeneratorOptions,
} from '../../../test/cur/generator.ts';
import { discoverReportPeriods } from './ingest/discover.ts';
import { ingestEngine } from './ingest/engine.ts';
import { IngestRun, type IngestJob } from './ingest/ingest-run.ts';
import { ReportError } from './ingest/report-types.ts';

/**
 * The streaming reader and aggregator are another part's (branch curread). This tiny plain-CSV reader stands in
 * for them here only: it maps both layouts' columns by header name, gunzips `.csv.gz`, and fails a line whose cost
 * is not a decimal with a ReportError naming the file and line, as the real one must.
 */

const LEGACY_HEADER =
  'identity/LineItemId,lineItem/UsageAccountId,lineItem/LineItemType,lineItem/UsageStartDate,lineItem/ProductCode,' +
  'lineItem/UsageType,lineItem/Operation,product/region,lineItem/ResourceId,lineItem/UsageAmount,lineItem/UnblendedCost';
const CUR2_HEADER =
  'line_item_usage_account_id,line_item_line_item_type,line_item_usage_start_date,line_item_product_code,' +
  'line_item_usage_type,line_item_operation,product_region_code,line_item_resource_id,line_item_usage_amount,' +
  'line_item_unblended_cost';
/** October 2026, first delivery: 1.250000001 + 0.5 + 0.2 + 0.2496 = 2.199600001 USD. */
const OCTOBER_V1 = [
  'a,111122223333,Usage,2026-10-01T00:00:00Z,AmazonS3,TimedStorage-ByteHrs,StandardStorage,us-east-1,reports-a,10,1.250000001',
  'b,111122223333,Usage,2026-10-01T01:00:00Z,AmazonS3,TimedStorage-ByteHrs,StandardStorage,us-east-1,reports-a,5,0.5',
  'c,111122223333,Tax,2026-10-01T00:00:00Z,AmazonS3,,,,,0,0.2',
  'd,111122223333,Usage,2026-10-02T00:00:00Z,AmazonEC2,BoxUsage:t3.micro,RunInstances,us-east-1,i-0abc,24,0.2496',
];
const OCTOBER_V1_NANO = 2_199_600_001n;
/** October re-delivered after the month closed, with a credit: 2.199600001 - 0.3 = 1.899600001 USD. */
const OCTOBER_V2 = [...OCTOBER_V1, 'e,111122223333,Credit,2026-10-31T00:00:00Z,AmazonEC2,,,,,0,-0.3'];
const OCTOBER_V2_NANO = 1_899_600_001n;
/** November 2026 as a CUR 2.0 export: 0.75 + 0.05 USD, one line without a resource id. */
const NOVEMBER = [
  '111122223333,Usage,2026-11-03T00:00:00Z,AmazonS3,Requests-Tier1,PutObject,us-east-1,reports-a,1000,0.75',
  '111122223333,Usage,2026-11-03T00:00:00Z,AWSDataTransfer,DataTransfer-Out-Bytes,,us-east-1,,2,0.05',
];
const NOVEMBER_NANO = 800_000_000n;

const csvGz = (header: string, lines: string[]) => gzipSync(`${header}\n${lines.join('\n')}\n`);

let s3rver: TestStoreServer;
let server: TestServer;
let s3: S3ObjectStore;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let awsId: string;
let ingest: IngestRun;
/** How each run ended, as IngestRun tells services.ts's `cumulo_ingest_runs_total` counter. */
const runsEnded: string[] = [];

const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

/** Lays one legacy delivery of October into `bucket`: the assembly's files and manifests, the top manifest last. */
async function deliverLegacyOctober(bucket: string, assemblyId: string, lines: string[]) {
  const folder = 'cur/daily/20261001-20261101';
  const dataKey = `${folder}/${assemblyId}/daily-00001.csv.gz`;
  const manifest = JSON.stringify({
    assemblyId,
    reportKeys: [dataKey],
    billingPeriod: { start: '20261001T000000.000Z', end: '20261101T000000.000Z' },
    compression: 'GZIP',
  });
  await s3.write(bucket, dataKey, csvGz(LEGACY_HEADER, lines));
  await s3.write(bucket, `${folder}/${assemblyId}/daily-Manifest.json`, Buffer.from(manifest));
  await s3.write(bucket, `${folder}/daily-Manifest.json`, Buffer.from(manifest));
  return dataKey;
}

async function deliverCur2November(bucket: string) {
  const dataKey = 'exports/costs/data/BILLING_PERIOD=2026-11/costs-00001.csv.gz';
  await s3.write(bucket, dataKey, csvGz(CUR2_HEADER, NOVEMBER));
  await s3.write(
    bucket,
    'exports/costs/metadata/BILLING_PERIOD=2026-11/costs-Manifest.json',
    Buffer.from(
      JSON.stringify({
        executionId: 'exec-2026-11-a',
        exportArn: 'arn:aws:bcm-data-exports:us-east-1:111122223333:export/costs-abc',
        billingPeriod: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' },
        dataFiles: [`s3://${bucket}/${dataKey}`],
      }),
    ),
  );
}

/** The account's own store, as the job reads the billing bucket through it. */
async function accountStore() {
  const account = await server.services.cloudAccountsRepo.find(owner.principal.organizationId, awsId);
  if (!account) throw new Error('the lab account vanished');
  return server.services.stores.storeFor(account);
}

/** What the screens will read: the account's current rollups and their total. */
async function currentRollups() {
  const rows = await server.services.analyticsRepo.currentRollups(owner.principal.organizationId, awsId);
  return { rows, totalNano: rows.reduce((sum, r) => sum + r.costNano, 0n) };
}

/** Runs the job queued for the account, as the worker's handler does (with the server's engine). */
async function runQueuedJob() {
  const { rows } = await server.db.pool.query<{ data: IngestJob }>(
    "select data from pgboss.job where name = 'analytics.ingest' and state = 'created' and data->>'accountId' = $1",
    [awsId],
  );
  const [job] = rows;
  if (!job) throw new Error('no analytics.ingest job was queued');
  await server.db.pool.query(
    "delete from pgboss.job where name = 'analytics.ingest' and data->>'accountId' = $1",
    [awsId],
  );
  return ingest.run(job.data);
}

async function runsOf(token: string) {
  const res = await call('GET', `/api/analytics/runs?cloudId=${awsId}`, token);
  expect(res.status).toBe(200);
  return res.body as AnalyticsRunView[];
}

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  const connected = await call('POST', '/api/cloudaccount/insert', owner.token, {
    cloudType: 1,
    name: 'Lab AWS',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
  });
  awsId = (connected.body as { id: string }).id;
  s3 = s3rverStore(s3rver.endpoint);
  ingest = new IngestRun(
    server.services.analyticsRepo,
    server.services.cloudAccountsRepo,
    server.services.stores,
    ingestEngine,
    createLogger('silent'),
    (state) => runsEnded.push(state),
  );
});
afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('billing report discovery against s3rver', () => {
  it('finds legacy (assembly and overwrite mode) and CUR 2.0 periods from their manifests', async () => {
    await s3.createBucket('cur-discovery');
    await deliverLegacyOctober('cur-discovery', 'asm-1', OCTOBER_V1);
    // An overwrite-mode report keeps no assembly folder: its version is the manifest's ETag.
    await s3.write(
      'cur-discovery',
      'cur/hourly/20261001-20261101/hourly-00001.csv.gz',
      csvGz(LEGACY_HEADER, []),
    );
    await s3.write(
      'cur-discovery',
      'cur/hourly/20261001-20261101/hourly-Manifest.json',
      Buffer.from(
        JSON.stringify({
          assemblyId: 'overwritten',
          reportKeys: ['cur/hourly/20261001-20261101/hourly-00001.csv.gz'],
          billingPeriod: { start: '20261001T000000.000Z', end: '20261101T000000.000Z' },
          compression: 'GZIP',
        }),
      ),
    );
    await deliverCur2November('cur-discovery');
    const store = await accountStore();

    const periods = await discoverReportPeriods(store, 'cur-discovery');

    expect(
      periods.map((p) => ({ ...p, version: p.version.startsWith('etag:') ? 'etag' : p.version })),
    ).toEqual([
      {
        layout: 'cur2',
        report: 'costs',
        period: '2026-11',
        manifestKey: 'exports/costs/metadata/BILLING_PERIOD=2026-11/costs-Manifest.json',
        version: 'exec-2026-11-a',
        files: [{ key: 'exports/costs/data/BILLING_PERIOD=2026-11/costs-00001.csv.gz', format: 'csv.gz' }],
      },
      {
        layout: 'cur-legacy',
        report: 'daily',
        period: '2026-10',
        manifestKey: 'cur/daily/20261001-20261101/daily-Manifest.json',
        version: 'asm-1',
        files: [{ key: 'cur/daily/20261001-20261101/asm-1/daily-00001.csv.gz', format: 'csv.gz' }],
      },
      {
        layout: 'cur-legacy',
        report: 'hourly',
        period: '2026-10',
        manifestKey: 'cur/hourly/20261001-20261101/hourly-Manifest.json',
        version: 'etag',
        files: [{ key: 'cur/hourly/20261001-20261101/hourly-00001.csv.gz', format: 'csv.gz' }],
      },
    ]);
  });

  it('names the key of a malformed manifest', async () => {
    await s3.createBucket('cur-malformed');
    await s3.write(
      'cur-malformed',
      'cur/daily/20261001-20261101/daily-Manifest.json',
      Buffer.from('{"assemblyId":'),
    );
    const store = await accountStore();
    const failure = await discoverReportPeriods(store, 'cur-malformed').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReportError);
    expect((failure as ReportError).message).toMatch(
      /^cur\/daily\/20261001-20261101\/daily-Manifest\.json: the manifest is not JSON/,
    );
  });
});

describe('billing report ingestion into PostgreSQL (s3rver billing bucket)', () => {
  it('queues an ingestion when the billing bucket is saved, and lists the run as queued', async () => {
    await s3.createBucket('cur-billing');
    await deliverLegacyOctober('cur-billing', 'asm-1', OCTOBER_V1);
    await deliverCur2November('cur-billing');

    const saved = await call(
      'PUT',
      `/api/cloud_accounts/${awsId}/update_billing_report_bucket`,
      owner.token,
      {
        billing_bucket: 'cur-billing',
      },
    );

    expect(saved.status).toBe(200);
    const { rows } = await server.db.pool.query<{ data: IngestJob; singleton_key: string }>(
      "select data, singleton_key from pgboss.job where name = 'analytics.ingest' and data->>'accountId' = $1",
      [awsId],
    );
    expect(rows).toEqual([
      {
        data: {
          organizationId: owner.principal.organizationId,
          accountId: awsId,
          trigger: 'billing_bucket_saved',
          // The id of the request that saved the bucket (README "Operations": request ids in jobs).
          requestId: expect.any(String),
        },
        singleton_key: awsId,
      },
    ]);
    expect((await runsOf(owner.token)).map((r) => [r.trigger, r.state])).toEqual([
      ['billing_bucket_saved', 'queued'],
    ]);
  });

  it('ingests every period once, with the reports totals', async () => {
    const endedBefore = runsEnded.length;
    const outcome = await runQueuedJob();
    expect(runsEnded.slice(endedBefore)).toEqual(['succeeded']);

    expect(outcome).toMatchObject({
      state: 'succeeded',
      periodsSeen: 2,
      periodsReplaced: 2,
      periodsSkipped: 0,
    });
    expect(outcome?.rows).toBe(OCTOBER_V1.length + NOVEMBER.length);
    const { rows, totalNano } = await currentRollups();
    expect(totalNano).toBe(OCTOBER_V1_NANO + NOVEMBER_NANO);
    // Line-item types stay apart and a blank resource id is its own ('unattributed') group.
    expect(rows.filter((r) => r.lineItemType === 'Tax').map((r) => r.costNano)).toEqual([200_000_000n]);
    expect(rows.find((r) => r.productCode === 'AWSDataTransfer')?.resourceId).toBe('');
    const [run] = await runsOf(owner.token);
    expect(run).toMatchObject({ state: 'succeeded', periods_replaced: 2, rows: 6, error: null });
    expect(run?.finished_at).not.toBeNull();
  });

  it('skips periods whose manifest version did not change', async () => {
    const before = await currentRollups();

    const outcome = await ingest.run({
      organizationId: owner.principal.organizationId,
      accountId: awsId,
      trigger: 'manual',
    });

    expect(outcome).toMatchObject({
      state: 'succeeded',
      periodsSeen: 2,
      periodsReplaced: 0,
      periodsSkipped: 2,
    });
    expect(await currentRollups()).toEqual(before);
  });

  it('replaces a re-delivered month (a credit after it closed) without doubling it', async () => {
    await deliverLegacyOctober('cur-billing', 'asm-2', OCTOBER_V2);

    const outcome = await ingest.run({
      organizationId: owner.principal.organizationId,
      accountId: awsId,
      trigger: 'schedule',
    });

    expect(outcome).toMatchObject({
      state: 'succeeded',
      periodsReplaced: 1,
      periodsSkipped: 1,
      rows: OCTOBER_V2.length,
    });
    const { rows, totalNano } = await currentRollups();
    expect(totalNano).toBe(OCTOBER_V2_NANO + NOVEMBER_NANO);
    expect(rows.filter((r) => r.lineItemType === 'Credit').map((r) => r.costNano)).toEqual([-300_000_000n]);
    const { rows: periods } = await server.db.pool.query(
      "select version from analytics_report_periods where cloud_account_id = $1 and period = '2026-10'",
      [awsId],
    );
    expect(periods).toEqual([{ version: 'asm-2' }]);
  });

  it('keeps the previous month exactly as it was when the new delivery cannot be read, and says why', async () => {
    const before = await currentRollups();
    const badKey = await deliverLegacyOctober('cur-billing', 'asm-3', [
      ...OCTOBER_V2.slice(0, 2),
      'x,111122223333,Usage,2026-10-05T00:00:00Z,AmazonS3,TimedStorage-ByteHrs,StandardStorage,us-east-1,reports-a,1,12;5',
    ]);

    const outcome = await ingest.run({
      organizationId: owner.principal.organizationId,
      accountId: awsId,
      trigger: 'manual',
    });

    expect(outcome?.state).toBe('failed');
    expect(await currentRollups()).toEqual(before);
    const { rows: periods } = await server.db.pool.query(
      "select version, current from analytics_report_periods where cloud_account_id = $1 and period = '2026-10'",
      [awsId],
    );
    expect(periods).toEqual([{ version: 'asm-2', current: true }]);
    const [run] = await runsOf(owner.token);
    expect(run).toMatchObject({
      state: 'failed',
      trigger: 'manual',
      periods_skipped: 1,
      periods_replaced: 0,
    });
    expect(run?.error).toBe(`${badKey}, line 4: the cost '12;5' is not a number`);
    // The top manifest names the good delivery again, so the later runs of this file see readable reports.
    await deliverLegacyOctober('cur-billing', 'asm-2', OCTOBER_V2);
  });

  it('says on the run and on the account when the keys cannot read the billing bucket', async () => {
    await call('PUT', `/api/cloud_accounts/${awsId}/update_billing_report_bucket`, owner.token, {
      billing_bucket: 'cur-nowhere',
    });

    const endedBefore = runsEnded.length;
    const outcome = await runQueuedJob();

    expect(outcome?.state).toBe('failed');
    expect(runsEnded.slice(endedBefore)).toEqual(['failed']);
    expect(outcome?.error).toMatch(/^The account's keys cannot read the billing bucket cur-nowhere: /);
    const accounts = (await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{
      id: string;
      billing_error: string | null;
    }>;
    expect(accounts.find((a) => a.id === awsId)?.billing_error).toBe(outcome?.error);
    expect(await currentRollups()).toMatchObject({ totalNano: OCTOBER_V2_NANO + NOVEMBER_NANO });

    // A bucket the keys can read but that holds no report of either layout fails the run too, not the account.
    await s3.createBucket('cur-empty');
    await call('PUT', `/api/cloud_accounts/${awsId}/update_billing_report_bucket`, owner.token, {
      billing_bucket: 'cur-empty',
    });
    expect(await runQueuedJob()).toMatchObject({
      state: 'failed',
      error: analyticsMessages.noReports('cur-empty'),
    });

    await call('PUT', `/api/cloud_accounts/${awsId}/update_billing_report_bucket`, owner.token, {
      billing_bucket: 'cur-billing',
    });
    await runQueuedJob();
    const after = (await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{
      id: string;
      billing_error: string | null;
    }>;
    expect(after.find((a) => a.id === awsId)?.billing_error).toBeNull();
  });
});

describe('POST /analytics/refresh and GET /analytics/runs (real PostgreSQL)', () => {
  it('queues a refresh for an Owner and lists the runs newest first', async () => {
    const res = await call('POST', '/api/analytics/refresh', owner.token, { cloudId: awsId });

    expect(res).toMatchObject({ status: 202, body: { message: analyticsMessages.refreshing('Lab AWS') } });
    const runs = await runsOf(owner.token);
    expect(runs[0]).toMatchObject({ trigger: 'manual', state: 'queued', started_at: null });
    expect(runs.slice(1).map((r) => r.state)).toEqual([
      'succeeded',
      'failed',
      'failed',
      'failed',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
  });

  it('refuses a User (403), and answers 404 for another organisation', async () => {
    const user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
    const stranger = await signedInMember(server, 'stranger');

    expect((await call('POST', '/api/analytics/refresh', user.token, { cloudId: awsId })).status).toBe(403);
    expect((await call('POST', '/api/analytics/refresh', stranger.token, { cloudId: awsId })).status).toBe(
      404,
    );
    expect((await call('GET', `/api/analytics/runs?cloudId=${awsId}`, stranger.token)).status).toBe(404);
  });
});

describe('the analytics.ingest job on the worker role (real pg-boss)', () => {
  it('runs when the billing bucket is saved, shows its outcome, and the sweep is scheduled every six hours', async () => {
    const worker = await startTestServer(
      { PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) },
      undefined,
      { jobs: true },
    );
    try {
      const workerOwner = await signedInMember(worker, 'worker-owner');
      const connected = await callApi(worker, 'POST', '/api/cloudaccount/insert', workerOwner.token, {
        cloudType: 1,
        name: 'Worker AWS',
        accessKey: S3RVER_KEY,
        secretKey: S3RVER_KEY,
      });
      const accountId = (connected.body as { id: string }).id;

      await callApi(
        worker,
        'PUT',
        `/api/cloud_accounts/${accountId}/update_billing_report_bucket`,
        workerOwner.token,
        {
          billing_bucket: 'cur-gone',
        },
      );

      let runs: AnalyticsRunView[] = [];
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        runs = (await callApi(worker, 'GET', `/api/analytics/runs?cloudId=${accountId}`, workerOwner.token))
          .body as AnalyticsRunView[];
        if (runs[0]?.finished_at) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ trigger: 'billing_bucket_saved', state: 'failed' });
      expect(runs[0]?.error).toMatch(/^The account's keys cannot read the billing bucket cur-gone: /);
      const { rows } = await worker.db.pool.query(
        "select cron from pgboss.schedule where name = 'analytics.sweep'",
      );
      expect(rows).toEqual([{ cron: ANALYTICS_INGEST_CRON }]);
    } finally {
      await worker.stop();
    }
  });
});

describe('generated reports end to end: test/cur generator → s3rver → the server engine → PostgreSQL', () => {
  it('holds the exact totals the generator wrote, in every layout and format, a re-delivered month replaced', async () => {
    const cases: Array<Pick<CurGeneratorOptions, 'layout' | 'compression' | 'filesPerPeriod' | 'overwrite'>> =
      [
        { layout: 'cur-legacy', compression: 'gzip', filesPerPeriod: 3 },
        { layout: 'cur-legacy', compression: 'zip', overwrite: true },
        { layout: 'cur2', compression: 'gzip', filesPerPeriod: 2 },
        { layout: 'cur2', compression: 'parquet' },
      ];
    for (const [index, options] of cases.entries()) {
      const label = `${options.layout} ${options.compression ?? 'gzip'}`;
      const bucket = `cur-generated-${index}`;
      await s3.createBucket(bucket);
      const generator = new CurReportGenerator({
        seed: 24 + index,
        endMonth: '2026-10',
        months: 3,
        linesPerMonth: 400,
        bucket,
        ...options,
      });
      const sink = objectStoreSink(s3, bucket);
      await generator.writeAll(sink);
      await generator.redeliver(sink, '2026-09');

      const connected = await call('POST', '/api/cloudaccount/insert', owner.token, {
        cloudType: 1,
        name: `Generated ${index}`,
        accessKey: S3RVER_KEY,
        secretKey: S3RVER_KEY,
      });
      const accountId = (connected.body as { id: string }).id;
      await call('PUT', `/api/cloud_accounts/${accountId}/update_billing_report_bucket`, owner.token, {
        billing_bucket: bucket,
      });
      const job = { organizationId: owner.principal.organizationId, accountId, trigger: 'manual' } as const;
      const outcome = await ingest.run(job);
      expect(outcome, label).toMatchObject({ state: 'succeeded', periodsReplaced: 3 });

      const expected = generator.expected().periods;
      const rows = await server.services.analyticsRepo.currentRollups(
        owner.principal.organizationId,
        accountId,
      );
      for (const [period, totals] of Object.entries(expected)) {
        const held = rows.filter((row) => String(row.day).startsWith(period));
        expect(
          held.reduce((sum, row) => sum + row.costNano, 0n),
          `${label} ${period}`,
        ).toBe(totals.costNano);
        const byProduct: Record<string, bigint> = {};
        for (const row of held)
          byProduct[row.productCode] = (byProduct[row.productCode] ?? 0n) + row.costNano;
        expect(byProduct, `${label} ${period} by product`).toEqual(totals.byProduct);
      }
      // Nothing changed since: the next run skips every period and the totals stay.
      expect(await ingest.run(job), label).toMatchObject({ state: 'succeeded', periodsReplaced: 0 });
    }
  });
});

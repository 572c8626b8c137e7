import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  QUOTA_KEYS,
  ROLE_ID,
  TRANSFER_GB_BYTES,
  TRIAL_QUOTAS,
  accessMessages,
  analyticsReadMessages,
  estimateMonthlyCost,
  transferCostEstimate,
  type AnalyticsInstance,
  type AnalyticsInvoices,
  type AnalyticsServiceUsage,
  type AnalyticsTransferItem,
  type CloudAccountView,
  type EfsFileSystem,
  type StorageCostEstimate,
  type UserAcl,
} from '@cumulo/contract';
import {
  AZURITE_ACCOUNT,
  AZURITE_KEY,
  keysOf,
  readAll,
  S3RVER_KEY,
  startAzurite,
  startS3rver,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import { AzureObjectStore, S3ObjectStore } from '@cumulo/storage/adapters';
import { createLogger } from '../../logger.ts';
import {
  azuriteStore,
  callApi,
  connectAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { CurReportGenerator, objectStoreSink, type PeriodTotals } from '../../../test/cur/generator.ts';
import type { IngestJob } from './ingest/ingest-run.ts';
import { awsResourceApis, type ResourceApi } from './resource-api.ts';
import { ResourcesRepo } from './resources.repo.ts';
import { ResourcesService } from './resources.service.ts';

/**
 * The resource, invoice, transfer and estimate calls against a generated two months of billing reports in an
 * s3rver billing bucket, ingested through the real job, plus an Azurite account for the estimates.
 */

type Member = Awaited<ReturnType<typeof signedInMember>>;

const MONTHS = ['2026-09', '2026-10'] as const;
const BILLING = 'cur-res';
const PREFIX = 'reports';
const USAGE = new Set(['Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage']);

let s3rver: TestStoreServer;
let azurite: TestStoreServer;
let server: TestServer;
let s3: S3ObjectStore;
let blob: AzureObjectStore;
let owner: Member;
let awsId: string;
let azureId: string;
let generator: CurReportGenerator;
let s3Bucket: string;

const call = (url: string, member: Member = owner) => callApi(server, 'GET', url, member.token);
const messageOf = (res: { body: unknown }) => (res.body as { message: string }).message;
const totals = (month: string): PeriodTotals => {
  const period = generator.expected().periods[month];
  if (!period) throw new Error(`the generator wrote no ${month}`);
  return period;
};
const dollars = (nano: bigint | undefined) => Number(nano ?? 0n) / 1e9;

/** What the report says of one product's resources: cost, and whether used on the month's last day of data. */
function reportResources(month: string, product: string, matches: (id: string) => boolean) {
  const rows = totals(month).rollups ?? [];
  const lastDay = rows.reduce((max, row) => (row.day > max ? row.day : max), '');
  const resources = new Map<string, { cost: bigint; running: boolean }>();
  for (const row of rows) {
    if (row.productCode !== product || !matches(row.resourceId)) continue;
    const seen = resources.get(row.resourceId) ?? { cost: 0n, running: false };
    seen.cost += row.costNano;
    if (USAGE.has(row.lineItemType) && row.day === lastDay) seen.running = true;
    resources.set(row.resourceId, seen);
  }
  return resources;
}

async function grantAnalytics(member: Member) {
  await server.db.pool.query(
    `insert into subscriptions (organization_id, kind, product_handle, period, state, price_cents, gateway,
       current_period_start, current_period_end)
     values ($1, 'package', 'analytics', 'monthly', 'active', 0, 'manual', now(), now() + interval '30 days')`,
    [member.principal.organizationId],
  );
}

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, azure: azurite.endpoint }),
  });
  owner = await signedInMember(server, 'owner');
  s3 = s3rverStore(s3rver.endpoint);
  blob = azuriteStore(azurite.endpoint);
  generator = new CurReportGenerator({
    seed: 24,
    layout: 'cur-legacy',
    endMonth: MONTHS[1],
    months: MONTHS.length,
    linesPerMonth: 600,
    bucket: BILLING,
    prefix: PREFIX,
    rollups: true,
  });
  await s3.createBucket(BILLING);
  await generator.writeAll(objectStoreSink(s3, BILLING));
  // A file beside the reports, outside the saved prefix: never listed, never linked.
  await s3.write(BILLING, 'private/notes.txt', Buffer.from('not a report'));
  // A bucket the report bills, so the estimate has a billed cost beside it.
  s3Bucket = Object.keys(totals(MONTHS[1]).byResource).find((id) => id.startsWith('media-')) ?? '';
  await s3.createBucket(s3Bucket);
  await s3.write(s3Bucket, 'video.bin', Buffer.alloc(3 * 1024 * 1024, 7));
  await blob.createBucket('lab-blob');
  await blob.write('lab-blob', 'doc.bin', Buffer.alloc(2 * 1024 * 1024, 1));
});
afterAll(async () => {
  await s3?.close();
  await blob?.close();
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

describe('connecting an account with its billing bucket', () => {
  it('queues the ingestion with trigger connect, and it ingests the reports', async () => {
    awsId = await connectAccount(server, owner.token, {
      cloudType: 1,
      name: 'Billing AWS',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
      billingBucket: `${BILLING}/${PREFIX}`,
    });

    const { rows } = await server.db.pool.query<{ data: IngestJob }>(
      "select data from pgboss.job where name = 'analytics.ingest' and data->>'accountId' = $1",
      [awsId],
    );
    expect(rows.map((row) => row.data)).toEqual([
      {
        organizationId: owner.principal.organizationId,
        accountId: awsId,
        trigger: 'connect',
        // The id of the request that connected the account (README "Operations": request ids in jobs).
        requestId: expect.any(String),
      },
    ]);
    const [job] = rows;
    if (!job) throw new Error('no job');
    const outcome = await server.services.analyticsIngest.run(job.data);
    expect(outcome).toMatchObject({ state: 'succeeded', periodsReplaced: MONTHS.length });

    azureId = await connectAccount(server, owner.token, {
      cloudType: 4,
      name: 'Lab Blob',
      accessKey: AZURITE_ACCOUNT,
      secretKey: AZURITE_KEY,
    });
    await server.services.inventory.run(owner.principal.organizationId, awsId);
    await server.services.inventory.run(owner.principal.organizationId, azureId);
  });
});

describe('the analytics package and the service ACL', () => {
  it('refuses an organisation without the Analytics package (403), then another organisation’s account (404)', async () => {
    const stranger = await signedInMember(server, 'stranger');
    const refused = await call(`/api/analytics/instances/ec2?cloudId=${awsId}&month=2026-10`, stranger);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'PACKAGE_REQUIRED',
      message: analyticsReadMessages.packageRequired,
    });
    expect((await call('/api/analytics/estimates', stranger)).status).toBe(403);

    await grantAnalytics(stranger);
    await grantAnalytics(owner);
    for (const url of [
      `/api/analytics/instances/ec2?cloudId=${awsId}`,
      `/api/analytics/efs?cloudId=${awsId}`,
      `/api/analytics/invoices?cloudId=${awsId}`,
      `/api/analytics/invoices/download?cloudId=${awsId}&key=${PREFIX}/x`,
    ]) {
      expect((await call(url, stranger)).status, url).toBe(404);
    }
  });

  it('refuses a User whose analytics service is off (403), in words', async () => {
    const user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
    expect((await call(`/api/analytics/instances/rds?cloudId=${awsId}&month=2026-10`, user)).status).toBe(
      200,
    );
    const acls = (await call(`/api/user_access_levels/user_acls/${user.principal.userId}`)).body as UserAcl[];
    const acl = acls.find((a) => a.service === 'analytics');
    if (!acl) throw new Error('no analytics ACL');
    const off = await callApi(server, 'PUT', `/api/user_access_levels/${acl.id}`, owner.token, {
      user_access_level: { enabled: false },
    });
    expect(off.status, off.raw).toBe(200);

    for (const url of [
      `/api/analytics/instances/rds?cloudId=${awsId}&month=2026-10`,
      '/api/analytics/transfers/history',
      '/api/analytics/estimates',
    ]) {
      const res = await call(url, user);
      expect(res.status, url).toBe(403);
      expect(messageOf(res)).toBe(accessMessages.serviceOff('analytics'));
    }
  });
});

describe('instances and file systems from the report', () => {
  it.each(MONTHS)(
    'EC2 of %s: the instances, their costs, and running/stopped by the last day of data',
    async (month) => {
      const res = await call(`/api/analytics/instances/ec2?cloudId=${awsId}&month=${month}`);
      expect(res.status, res.raw).toBe(200);
      const instances = res.body as AnalyticsInstance[];
      const expected = reportResources(month, 'AmazonEC2', (id) => id.startsWith('i-'));

      expect(instances.map((i) => i.id).sort()).toEqual([...expected.keys()].sort());
      for (const instance of instances) {
        expect(instance.monthly_actual, instance.id).toBe(dollars(totals(month).byResource[instance.id]));
        expect(instance.state, instance.id).toBe(expected.get(instance.id)?.running ? 'running' : 'stopped');
        expect(instance.state_source).toBe('report');
        expect(instance.products.reduce((sum, p) => sum + Math.round(p.monthly_actual * 1e9), 0)).toBe(
          Number(expected.get(instance.id)?.cost),
        );
      }
      // The report's rule has both answers in a generated month.
      expect(new Set(instances.map((i) => i.state))).toEqual(new Set(['running', 'stopped']));
      expect(instances.map((i) => i.monthly_actual)).toEqual(
        [...instances.map((i) => i.monthly_actual)].sort((a, b) => b - a),
      );
    },
  );

  it('RDS: databases named by their identifier, with their usage types', async () => {
    const res = await call(`/api/analytics/instances/rds?cloudId=${awsId}&month=2026-10`);
    expect(res.status, res.raw).toBe(200);
    const databases = res.body as AnalyticsInstance[];
    const expected = reportResources('2026-10', 'AmazonRDS', (id) => id.startsWith('arn:aws:rds:'));

    expect(databases.map((d) => d.id).sort()).toEqual([...expected.keys()].sort());
    for (const db of databases) {
      expect(db.name).toBe(db.id.split(':db:')[1]);
      expect(db.monthly_actual).toBe(dollars(totals('2026-10').byResource[db.id]));
      expect(db.state).toBe(expected.get(db.id)?.running ? 'running' : 'stopped');
      expect(
        db.products
          .map((p) => p.label)
          .every((l) => /^(InstanceUsage:db\.t3\.medium|RDS:GP2-Storage)$/.test(l)),
      ).toBe(true);
    }
  });

  it('EFS: the file systems with their cost and the report-derived size', async () => {
    const res = await call(`/api/analytics/efs?cloudId=${awsId}&month=2026-10`);
    expect(res.status, res.raw).toBe(200);
    const systems = res.body as EfsFileSystem[];
    const expected = reportResources('2026-10', 'AmazonEFS', (id) => id !== '');

    expect(systems.map((s) => s.file_system_id).sort()).toEqual([...expected.keys()].sort());
    for (const system of systems) {
      expect(system.monthly_actual).toBe(dollars(totals('2026-10').byResource[system.file_system_id]));
      expect(system.name).toBe(system.file_system_id);
      expect(system.size_in_bytes.value).toBeGreaterThan(0);
      expect(system.number_of_mount_targets).toBeNull();
      expect(system.creation_time).toBeNull();
    }
  });

  it('narrows to one usage (linked) account', async () => {
    const rows = totals('2026-10').rollups ?? [];
    const account = rows.find(
      (row) => row.productCode === 'AmazonEC2' && row.resourceId.startsWith('i-'),
    )?.usageAccountId;
    const res = await call(
      `/api/analytics/instances/ec2?cloudId=${awsId}&month=2026-10&awsAccountId=${account}`,
    );
    expect(res.status, res.raw).toBe(200);
    const ids = new Set(
      rows
        .filter((row) => row.productCode === 'AmazonEC2' && row.resourceId.startsWith('i-'))
        .filter((row) => row.usageAccountId === account)
        .map((row) => row.resourceId),
    );
    expect((res.body as AnalyticsInstance[]).map((i) => i.id).sort()).toEqual([...ids].sort());
    expect(ids.size).toBeLessThan(reportResources('2026-10', 'AmazonEC2', (id) => id.startsWith('i-')).size);
  });

  it('an unknown month answers no instances; the month defaults to the current one', async () => {
    const res = await call(`/api/analytics/instances/ec2?cloudId=${awsId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect((await call(`/api/analytics/efs?cloudId=${awsId}&month=2026-13`)).status).toBe(400);
  });
});

describe("the provider's API where the keys allow it", () => {
  /**
   * No EC2, RDS or EFS server exists here, so these are mocks of the API seam (ResourceApi): the one place a
   * stand-in replaces a real service in this file.
   */
  const serviceWith = (api: ResourceApi) =>
    new ResourcesService(
      new ResourcesRepo(server.db.orm),
      server.services.cloudAccountsRepo,
      server.services.stores,
      server.services.entitlements,
      server.services.billingRepo,
      () => api,
      createLogger('silent'),
    );

  it('takes the state, name and size from the API when it answers', async () => {
    const fromReport = (await call(`/api/analytics/instances/ec2?cloudId=${awsId}&month=2026-10`))
      .body as AnalyticsInstance[];
    const asked: string[] = [];
    const api: ResourceApi = {
      instanceStates: async (kind, region, ids) => {
        asked.push(`${kind}:${region}`);
        // The API says the opposite of the report for every instance it is asked about.
        return new Map(ids.map((id) => [id, fromReport.find((i) => i.id === id)?.state !== 'running']));
      },
      fileSystems: async () =>
        new Map(
          [...reportResources('2026-10', 'AmazonEFS', (id) => id !== '').keys()].map((id) => [
            id,
            {
              name: `share ${id}`,
              sizeInBytes: 12_345,
              mountTargets: 2,
              creationTime: '2025-01-02T03:04:05.000Z',
            },
          ]),
        ),
    };

    const instances = await serviceWith(api).instances(owner.principal, 'ec2', {
      cloudId: awsId,
      month: '2026-10',
    });

    expect(asked.length).toBeGreaterThan(0);
    for (const instance of instances) {
      const report = fromReport.find((i) => i.id === instance.id);
      expect(instance.state_source).toBe('api');
      expect(instance.state).toBe(report?.state === 'running' ? 'stopped' : 'running');
      expect(instance.monthly_actual).toBe(report?.monthly_actual);
    }
    const systems = await serviceWith(api).efs(owner.principal, { cloudId: awsId, month: '2026-10' });
    expect(systems.length).toBeGreaterThan(0);
    for (const system of systems) {
      expect(system).toMatchObject({
        name: `share ${system.file_system_id}`,
        size_in_bytes: { value: 12_345 },
        number_of_mount_targets: 2,
        creation_time: '2025-01-02T03:04:05.000Z',
      });
    }
  });

  it('falls back to the report when the API refuses', async () => {
    const refused = Object.assign(new Error('You are not authorized to perform this operation.'), {
      name: 'UnauthorizedOperation',
    });
    const api: ResourceApi = {
      instanceStates: async () => Promise.reject(refused),
      fileSystems: async () => Promise.reject(refused),
    };
    const fromReport = (await call(`/api/analytics/instances/ec2?cloudId=${awsId}&month=2026-10`)).body;

    expect(
      await serviceWith(api).instances(owner.principal, 'ec2', { cloudId: awsId, month: '2026-10' }),
    ).toEqual(fromReport);
    expect(await serviceWith(api).efs(owner.principal, { cloudId: awsId, month: '2026-10' })).toEqual(
      (await call(`/api/analytics/efs?cloudId=${awsId}&month=2026-10`)).body,
    );
  });

  it('never builds an API for an account with a custom endpoint, nor for another provider', async () => {
    const rows = await server.services.cloudAccountsRepo.list(owner.principal.organizationId);
    for (const row of rows) {
      expect(awsResourceApis(row, server.services.stores.configOf(row)), row.name).toBeNull();
    }
    const [aws] = rows.filter((row) => row.provider === 'aws');
    if (!aws) throw new Error('no aws account');
    const real = {
      provider: 'aws' as const,
      accessKeyId: 'AKIA',
      secretAccessKey: 'secret',
      region: 'us-east-1',
    };
    expect(awsResourceApis(aws, real)).not.toBeNull();
  });
});

describe('the billing bucket’s files', () => {
  it('lists the files under the saved prefix, and links one that downloads the same bytes', async () => {
    const res = await call(`/api/analytics/invoices?cloudId=${awsId}`);
    expect(res.status, res.raw).toBe(200);
    const page = res.body as AnalyticsInvoices;
    const written = await keysOf(s3, BILLING, `${PREFIX}/`);

    expect(page.bucket).toBe(`${BILLING}/${PREFIX}`);
    expect(page.files.map((f) => f.key).sort()).toEqual(written.sort());
    expect(page.next_token).toBeNull();
    const report = page.files.find((f) => f.key.endsWith('.csv.gz'));
    if (!report) throw new Error('no report file listed');

    const link = await call(
      `/api/analytics/invoices/download?cloudId=${awsId}&key=${encodeURIComponent(report.key)}`,
    );
    expect(link.status, link.raw).toBe(200);
    const fetched = await fetch((link.body as { url: string }).url);
    expect(fetched.status).toBe(200);
    const bytes = Buffer.from(await fetched.arrayBuffer());
    expect(bytes.length).toBe(report.size);
    expect(bytes.equals(await readAll(s3, BILLING, report.key))).toBe(true);
  });

  it('says in words when the keys cannot read the billing bucket', async () => {
    const missingId = await connectAccount(server, owner.token, {
      cloudType: 1,
      name: 'No Billing',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
      billingBucket: 'no-such-billing',
    });
    const res = await call(`/api/analytics/invoices?cloudId=${missingId}`);
    expect(res.status).toBe(400);
    expect(messageOf(res)).toMatch(/^The account's keys cannot read the billing bucket no-such-billing: /);
    // A download asks for one key with HEAD, whose bodiless 404 cannot tell a missing bucket from a missing file.
    const link = await call(`/api/analytics/invoices/download?cloudId=${missingId}&key=a.csv.gz`);
    expect(link.status).toBe(404);
  });

  it('refuses a key outside the billing prefix (400) and a missing one (404)', async () => {
    const outside = await call(`/api/analytics/invoices/download?cloudId=${awsId}&key=private/notes.txt`);
    expect(outside.status).toBe(400);
    expect(messageOf(outside)).toBe(analyticsReadMessages.invoiceOutsideBucket(`${BILLING}/${PREFIX}`));
    const missing = await call(`/api/analytics/invoices/download?cloudId=${awsId}&key=${PREFIX}/none.csv.gz`);
    expect(missing.status).toBe(404);
  });
});

describe("Cumulo's own transfers", () => {
  it('lists the latest finished transfers with their cost, and the month’s usage against each quota', async () => {
    const org = owner.principal.organizationId;
    const size = 2 * TRANSFER_GB_BYTES;
    await server.db.pool.query(
      `insert into transfer_batches (organization_id, operation, source_cloud_account_id, source_bucket,
         destination_cloud_account_id, destination_bucket, status, phase, transferred_size, total_size, finished_at)
       values ($1, 'copy', $2, 'src', $3, 'lab-blob', 4, 'finished', $4, $4, now() - interval '1 hour'),
              ($1, 'copy', $2, 'src', $3, 'lab-blob', 4, 'finished', 1024, 1024, now() - interval '2 hours'),
              ($1, 'copy', $2, 'src', $3, 'lab-blob', 2, 'copying', 0, 1024, null)`,
      [org, awsId, azureId, size],
    );
    await server.services.entitlements.record(org, 'c2c', 'test:usage', size);

    const history = await call('/api/analytics/transfers/history?limit=1');
    expect(history.status, history.raw).toBe(200);
    const [latest, ...rest] = history.body as AnalyticsTransferItem[];
    expect(rest).toEqual([]);
    expect(latest).toMatchObject({ cost: transferCostEstimate('aws', 2).total, size, cloud: 'Lab Blob' });
    expect((await call('/api/analytics/transfers/history')).body).toHaveLength(2);

    const usage = await call('/api/analytics/transfers/usage');
    expect(usage.status, usage.raw).toBe(200);
    const services = usage.body as AnalyticsServiceUsage[];
    expect(services.map((s) => s.service)).toEqual([...QUOTA_KEYS]);
    expect(services.find((s) => s.service === 'c2c')).toEqual({
      service: 'c2c',
      usage: size,
      total: TRIAL_QUOTAS.c2c,
    });
  });
});

describe('storage estimates beside the billed cost', () => {
  it('estimates every bucket of every provider, with the billed cost and the difference where a report has it', async () => {
    const res = await call('/api/analytics/estimates?month=2026-10');
    expect(res.status, res.raw).toBe(200);
    const estimates = res.body as StorageCostEstimate[];
    const billedBucket = estimates.find((e) => e.bucket_name === s3Bucket);
    const billed = dollars(totals('2026-10').byResource[s3Bucket]);
    expect(billedBucket).toMatchObject({
      cloud_account_id: awsId,
      provider: 'aws',
      size: 3 * 1024 * 1024,
      estimated_cost: estimateMonthlyCost('aws', 3 * 1024 * 1024),
      billed_cost: billed,
    });
    expect(billedBucket?.difference).toBeCloseTo(billed - estimateMonthlyCost('aws', 3 * 1024 * 1024), 9);
    // The billing bucket is the reported account's too, but no report line bills it: billed 0.
    expect(estimates.find((e) => e.bucket_name === BILLING)).toMatchObject({ billed_cost: 0 });
    expect(estimates.find((e) => e.bucket_name === 'lab-blob')).toMatchObject({
      cloud_account_id: azureId,
      provider: 'azure',
      size: 2 * 1024 * 1024,
      estimated_cost: estimateMonthlyCost('azure', 2 * 1024 * 1024),
      billed_cost: null,
      difference: null,
    });
    // The accounts list (dashboard cards, cost slider) carries the newest reported month's billed total.
    const accounts = (await call('/api/cloud_accounts/')).body as CloudAccountView[];
    const aws = accounts.find((a) => a.id === awsId);
    expect(aws?.cost_month).toBe('2026-10');
    expect(aws?.total_cost).toBeCloseTo(dollars(totals('2026-10').costNano), 9);
    expect(accounts.find((a) => a.id === azureId)).toMatchObject({
      cost_month: null,
      total_cost: estimateMonthlyCost('azure', 2 * 1024 * 1024),
    });
    // A month no report covers has no billed cost anywhere.
    const before = (await call('/api/analytics/estimates?month=2026-01')).body as StorageCostEstimate[];
    expect(before.every((e) => e.billed_cost === null)).toBe(true);
  });

  it("an account's COST alert compares the billed total the account list shows, not the storage estimate", async () => {
    const billed = dollars(totals('2026-10').costNano);
    const estimate = ((await call('/api/analytics/estimates?month=2026-10')).body as StorageCostEstimate[])
      .filter((e) => e.cloud_account_id === awsId)
      .reduce((sum, e) => sum + e.estimated_cost, 0);
    // A limit between the two: the storage estimate stays under it, the bill is over it.
    const limit = Math.round(((estimate + billed) / 2) * 100) / 100;
    expect(estimate).toBeLessThan(limit);
    expect(billed).toBeGreaterThan(limit);
    const over = await callApi(server, 'POST', '/api/notifications/', owner.token, {
      cloud_account_id: awsId,
      bucket_name: null,
      cost_limit: limit,
    });
    expect(over.status, over.raw).toBe(201);
    expect((over.body as { last_notified: string | null }).last_notified).not.toBeNull();
    const bell = (await call('/api/notifications')).body as Array<{ title: string; description: string }>;
    const notice = bell.find((n) => n.title.startsWith('Cost alert'));
    expect(notice?.description).toMatch(
      /^The billed cost of .+ for October 2026 is now \$[\d,]+\.\d{5}, above the/,
    );
    // A limit above the bill stays quiet.
    const under = await callApi(server, 'POST', '/api/notifications/', owner.token, {
      cloud_account_id: awsId,
      bucket_name: null,
      cost_limit: Math.ceil(billed) + 1,
    });
    expect((under.body as { last_notified: string | null }).last_notified).toBeNull();
  });
});

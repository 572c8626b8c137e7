import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BATCH_STATUS,
  SYNC_CYCLE_STATUS,
  TRIAL_QUOTAS,
  billingMessages,
  formatBytes,
  transferMessages,
  type TransferBatch,
  type TransferList,
  type TransferStarted,
  type UserProfile,
} from '@cumulo/contract';
import { AzureObjectStore, S3ObjectStore } from '@cumulo/storage/adapters';
import {
  keysOf,
  setAzuriteTier,
  startAzurite,
  startS3rver,
  type S3rverServer,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import {
  callApi,
  connectLabAccounts,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { syncJobs } from '../../db/schema/index.ts';

/**
 * The c2c quota of an organisation in trial, counted by the transfer engine (README "Quota"): the API queues
 * batches, the worker role in this process plans and copies them between two buckets of s3rver (aws) or from
 * Azurite (azure, whose archived blobs fail to copy), and the
 * billing tables of embedded PostgreSQL count them. The trial's 10 GiB is brought down to a few hundred KiB by
 * recording usage through the entitlements service, as earlier transfers would have.
 */
const KiB = 1024;
const LIMIT = TRIAL_QUOTAS.c2c;
let server: TestServer;
let s3rver: S3rverServer;
let azurite: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let awsId: string;
let azureId: string;
let s3: S3ObjectStore;
let blob: AzureObjectStore;
let organizationId: string;
let recorded = 0;

const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  callApi(server, method, url, owner.token, body);

/** Leaves `bytes` of the trial's c2c quota: usage recorded as if earlier transfers had moved the rest. */
async function leave(bytes: number) {
  const { used } = await server.services.entitlements.remaining(organizationId, 'c2c');
  recorded += 1;
  await server.services.entitlements.record(
    organizationId,
    'c2c',
    `test:earlier-${recorded}`,
    LIMIT - used - bytes,
  );
}

/** The organisation's c2c counter as the billing tables hold it. */
async function counter() {
  const { rows } = await server.db.pool.query<{ used: string; reserved: string }>(
    `select used, reserved from quota_counters where organization_id = $1 and quota = 'c2c' and period = 'trial'`,
    [organizationId],
  );
  return { used: Number(rows[0]?.used ?? 0), reserved: Number(rows[0]?.reserved ?? 0) };
}

/** The counter once every reservation is settled: the engine settles a batch right after it ends. */
async function settled() {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const now = await counter();
    if (now.reserved === 0 || Date.now() > deadline) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function fill(bucket: string, keys: string[], size: number) {
  await s3.createBucket(bucket);
  for (const key of keys) await s3.write(bucket, key, randomBytes(size), { size });
}

async function batchOf(id: string): Promise<TransferBatch> {
  const list = (await call('GET', '/api/transfer/get_all?type=1&pagesize=200')).body as TransferList;
  const batch = list.items.find((b) => b.id === id);
  if (!batch) throw new Error(`batch ${id} not listed`);
  return batch;
}

async function ended(id: string): Promise<TransferBatch> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const batch = await batchOf(id);
    const done: number[] = [BATCH_STATUS.completed, BATCH_STATUS.failed, BATCH_STATUS.canceled];
    if (done.includes(batch.transferStatus)) return batch;
    if (Date.now() > deadline) throw new Error(`batch never ended: ${JSON.stringify(batch)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const copyOf = (sourceBucket: string, sourcePath: string, destinationBucket: string) => ({
  sourceCloudAccountId: awsId,
  sourceBucket,
  sourcePath,
  destinationCloudAccountId: awsId,
  destinationBucket,
});

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer(
    { PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, azure: azurite.endpoint }) },
    undefined,
    { jobs: true },
  );
  owner = await signedInMember(server, 'metered');
  organizationId = owner.principal.organizationId;
  // The charge confirmation is PUT /organizations/_me (another module's call); set as that call does.
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [organizationId]);
  ({ awsId, azureId, s3, blob } = await connectLabAccounts(server, owner.token, {
    s3rver: s3rver.endpoint,
    azurite: azurite.endpoint,
  }));
  await s3.createBucket('backup');
});
afterAll(async () => {
  await Promise.all([s3?.close(), blob?.close()]);
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

describe('c2c quota of transfers in trial: s3rver (aws), worker role in process, embedded PostgreSQL', () => {
  it('never lets concurrent transfers pass the limit together, and counts the bytes the completed one moved', async () => {
    await fill(
      'shared',
      ['one', 'two', 'three'].flatMap((folder) => ['x', 'y', 'z'].map((name) => `${folder}/${name}.bin`)),
      80 * KiB,
    );
    await leave(400 * KiB);
    const before = await counter();

    // Three prefixes of 240 KiB each, where 400 KiB are left: one fits, a second would pass the limit.
    const starts = await Promise.all(
      ['one/', 'two/', 'three/'].map((prefix) =>
        call('POST', '/api/transfer/transfer', {
          ...copyOf('shared', prefix, 'backup'),
          destinationPath: prefix,
        }),
      ),
    );
    for (const start of starts) expect(start.status, start.raw).toBe(200);
    const ids = starts.map((start) => (start.body as TransferStarted).batch.id);

    // What is counted and held, watched while the three run.
    let highest = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const now = await counter();
        highest = Math.max(highest, now.used + now.reserved);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const batches = await Promise.all(ids.map(ended));
    watching = false;
    await watcher;

    const completed = batches.filter((b) => b.transferStatus === BATCH_STATUS.completed);
    const refused = batches.filter((b) => b.transferStatus === BATCH_STATUS.failed);
    expect(completed).toHaveLength(1);
    expect(refused).toHaveLength(2);
    for (const batch of refused) {
      expect(batch.error).toMatch(new RegExp(`^${billingMessages.transfersQuotaTitle}: You have `));
      // Nothing of a refused batch was copied.
      expect(batch.transferred).toBe(0);
    }
    expect(highest).toBeLessThanOrEqual(LIMIT);
    // The completed copy counts exactly what it moved; every reservation is settled.
    expect(completed[0]?.transferredSize).toBe(240 * KiB);
    expect(await settled()).toEqual({ used: before.used + 240 * KiB, reserved: 0 });
    // The end of a batch is reported more than once (every job that reaches it, a cancel, the sweep): counted once.
    for (const id of ids) await server.services.transfers.settleQuota(id);
    expect(await counter()).toEqual({ used: before.used + 240 * KiB, reserved: 0 });
    // The profile's plan-usage card reads it so.
    const me = await call('GET', '/api/users/_me');
    expect((me.body as UserProfile).quota.c2c).toEqual({ used: before.used + 240 * KiB, total: LIMIT });
  });

  it('reserves a retry before creating it: past what is left it is refused, and the old batch stays retryable', async () => {
    const keys = ['r/1.bin', 'r/2.bin', 'r/3.bin'];
    await blob.createBucket('late-src');
    for (const key of keys) {
      await blob.write('late-src', key, randomBytes(20 * KiB), { size: 20 * KiB });
      // An archived blob cannot be read: every copy fails, nothing is counted.
      await setAzuriteTier(azurite.endpoint, 'late-src', key, 'Archive');
    }
    await s3.createBucket('late-dst');
    const before = await counter();
    const first = await call('POST', '/api/transfer/transfer', {
      ...copyOf('late-src', '', 'late-dst'),
      sourceCloudAccountId: azureId,
    });
    expect(first.status, first.raw).toBe(200);
    const failed = await ended((first.body as TransferStarted).batch.id);
    expect(failed).toMatchObject({ transferStatus: BATCH_STATUS.failed, failed: 3, transferred: 0 });
    expect(await settled()).toEqual({ used: before.used, reserved: 0 });
    await leave(50 * KiB);

    const retry = await call('POST', '/api/transfer/retry_transfer', { Id: failed.id });

    expect(retry.status).toBe(403);
    expect(retry.body).toMatchObject({ title: billingMessages.transfersQuotaTitle, remaining: 50 * KiB });
    expect(await batchOf(failed.id)).toMatchObject({ Retried: false });
    expect(await counter()).toEqual({ used: LIMIT - 50 * KiB, reserved: 0 });
  });

  it('counts nothing for objects Skip Existing Files finds already at the destination', async () => {
    await fill('again', ['k/1.bin', 'k/2.bin'], 15 * KiB);
    await leave(40 * KiB);
    const first = await call('POST', '/api/transfer/transfer', copyOf('again', 'k/', 'backup'));
    expect(first.status, first.raw).toBe(200);
    expect((await ended((first.body as TransferStarted).batch.id)).transferStatus).toBe(
      BATCH_STATUS.completed,
    );
    const afterFirst = await settled();
    expect(afterFirst.used).toBe(LIMIT - 40 * KiB + 30 * KiB);

    const second = await call('POST', '/api/transfer/transfer', {
      ...copyOf('again', 'k/', 'backup'),
      allowSkip: true,
    });
    expect((second.body as TransferStarted).message).toBe(transferMessages.enqueued);
    const batch = await ended((second.body as TransferStarted).batch.id);

    expect(batch).toMatchObject({ transferStatus: BATCH_STATUS.completed, skipped: 2 });
    expect(await settled()).toEqual({ used: afterFirst.used, reserved: 0 });
  });
  it('refuses at enqueue, with the title and what is left, a selection or a whole bucket larger than the remaining quota', async () => {
    await fill('photos', ['a.jpg', 'b.jpg', 'c.jpg'], 100 * KiB);
    await leave(8 * KiB);
    const earlier = ((await call('GET', '/api/transfer/get_all?type=1&pagesize=200')).body as TransferList)
      .total;

    // The c2c call the migration screen sends, as if its own check had been bypassed.
    const selection = await call('POST', '/api/c2c/moveaws', {
      files: ['a.jpg', 'b.jpg'].map((path) => ({ path, bucket_name: 'photos' })),
      cloud_id: awsId,
      type: 1,
      destination: { cloud_id: awsId, bucket_name: 'backup', path: '' },
    });

    expect(selection.status).toBe(403);
    expect(selection.body).toMatchObject({
      title: billingMessages.transfersQuotaTitle,
      message: billingMessages.quotaRemaining(formatBytes(8 * KiB)),
      quota: 'c2c',
      remaining: 8 * KiB,
    });

    // A whole bucket is known by its inventory (300 KiB here).
    const refresh = await call('POST', `/api/cloud_accounts/${awsId}/inventory`);
    expect(refresh.status).toBeLessThan(300);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { rows } = await server.db.pool.query<{ total_bytes: string }>(
        `select total_bytes from buckets where cloud_account_id = $1 and name = 'photos'`,
        [awsId],
      );
      if (Number(rows[0]?.total_bytes ?? 0) === 300 * KiB) break;
      if (Date.now() > deadline) throw new Error('the bucket was never counted');
      await new Promise((r) => setTimeout(r, 100));
    }
    const whole = await call('POST', '/api/transfer/transfer', copyOf('photos', '', 'backup'));
    expect(whole.status).toBe(403);
    expect(whole.body).toMatchObject({ title: billingMessages.transfersQuotaTitle, remaining: 8 * KiB });

    // Nothing was queued, nothing reserved.
    const history = (await call('GET', '/api/transfer/get_all?type=1&pagesize=200')).body as TransferList;
    expect(history.total).toBe(earlier);
    expect(await counter()).toEqual({ used: LIMIT - 8 * KiB, reserved: 0 });
  });

  it('ends a sync cycle whose copies pass the remaining quota Faulted, in the same words, having copied nothing', async () => {
    // 'photos' holds 300 KiB; 8 KiB are left after the refusals above.
    await s3.createBucket('mirror');
    const [syncJob] = await server.db.orm
      .insert(syncJobs)
      .values({
        organizationId,
        createdBy: owner.principal.userId,
        kind: 'sync',
        sourceCloudAccountId: awsId,
        sourceBucket: 'photos',
        destinationCloudAccountId: awsId,
        destinationBucket: 'mirror',
      })
      .returning();
    if (!syncJob) throw new Error('no job row');
    const before = await counter();

    const started = await server.services.syncCycles.runNow(syncJob, { dryRun: false });
    // The worker role runs the cycle (`sync.cycle`); this waits for its end.
    const deadline = Date.now() + 15_000;
    let row: { status: number; error: string | null; finished_at: Date | null } | undefined;
    for (;;) {
      ({
        rows: [row],
      } = await server.db.pool.query<{ status: number; error: string | null; finished_at: Date | null }>(
        'select status, error, finished_at from sync_cycles where id = $1',
        [started.id],
      ));
      if (row?.finished_at || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    expect(row?.finished_at).not.toBeNull();
    expect(row?.status).toBe(SYNC_CYCLE_STATUS.faulted);
    expect(row?.error).toBe(
      `${billingMessages.transfersQuotaTitle}: ${billingMessages.quotaRemaining(formatBytes(8 * KiB))}`,
    );
    expect(await keysOf(s3, 'mirror')).toEqual([]);
    expect(await settled()).toEqual({ used: before.used, reserved: 0 });
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BATCH_STATUS,
  transferMessages,
  type NotificationItem,
  type TransferBatch,
  type TransferList,
  type TransferStarted,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import {
  keysOf,
  readAll,
  S3RVER_KEY,
  startRestartableS3rver,
  startS3rver,
  type RestartableS3rver,
  type S3rverRequest,
  type S3rverServer,
} from '@cumulo/storage/testing';
import { createLogger } from '../../logger.ts';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { sweepTransfers } from './engine/sweep.ts';

/**
 * THE OUTAGE TEST: the destination store (a second s3rver, reached as a generic S3 account) stops while a batch
 * is copied, at an exact point: while the first part of a large object is on its way. The batch pauses for it
 * (TRANSFER_OUTAGE_SECONDS, 20 s here) instead of burning every object's tries; as it stays down, the items left
 * fail with a message a user can read, the batch ends Failed with the reason in words and a bell notice, the
 * failed-files CSV lists them; once the store is back, "Retry Failed Files" completes them. A store down for less
 * than the budget only delays the batch. Real s3rver × 2, the worker role in this process, embedded PostgreSQL.
 */
const MiB = 1024 * 1024;
const SOURCE_BUCKET = 'outage-src';
const DESTINATION_BUCKET = 'outage-dst';
let server: TestServer;
let source: S3rverServer;
let destination: RestartableS3rver;
let sourceStore: S3ObjectStore;
let destinationStore: S3ObjectStore;
let owner: Awaited<ReturnType<typeof signedInMember>>;

// The stop point: the first part upload to reach the destination, and every request after it, is held
// unanswered until the test halts the server (which cuts them off). Once it is resumed, nothing is held.
let outageDone = false;
let stopping = false;
let partArrived: () => void = () => undefined;
const firstPartArrived = new Promise<void>((resolve) => (partArrived = resolve));
function hold(request: S3rverRequest): Promise<void> | undefined {
  const isPart = request.method === 'PUT' && request.query.partNumber !== undefined;
  if (outageDone || (!stopping && !isPart)) return undefined;
  stopping = true;
  partArrived();
  return new Promise<void>(() => undefined);
}

const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  callApi(server, method, url, owner.token, body);

async function batchOf(id: string): Promise<TransferBatch> {
  const list = (await call('GET', '/api/transfer/get_all?type=1&pagesize=200')).body as TransferList;
  const batch = list.items.find((b) => b.id === id);
  if (!batch) throw new Error(`batch ${id} not listed`);
  return batch;
}

async function items(batchId: string) {
  const { rows } = await server.db.pool.query<{
    source_key: string;
    status: string;
    error: string | null;
    attempts: number;
    upload_id: string | null;
  }>(
    'select source_key, status, error, attempts, upload_id from transfer_items where batch_id = $1 order by source_key',
    [batchId],
  );
  return rows;
}

/** Polls the history until the batch leaves Ongoing; fails with the last state and its items. */
async function finished(id: string, timeoutMs = 150_000): Promise<TransferBatch> {
  const deadline = Date.now() + timeoutMs;
  let last: TransferBatch | undefined;
  while (Date.now() < deadline) {
    last = await batchOf(id);
    if (last.transferStatus !== BATCH_STATUS.ongoing) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`batch still Ongoing: ${JSON.stringify(last)} ${JSON.stringify(await items(id))}`);
}

// 60 objects, claimed in key order: small ones, then four of 20 MiB (copied in 8 MiB parts), then more small ones.
const files: Record<string, Buffer> = {};
for (let i = 0; i < 10; i++) files[`a/small-${String(i).padStart(2, '0')}.txt`] = randomBytes(1000 + i * 997);
for (let i = 0; i < 4; i++) files[`b/big-${i}.bin`] = randomBytes(20 * MiB + i * 4099);
for (let i = 10; i < 56; i++) files[`c/small-${i}.txt`] = randomBytes(1000 + i * 997);
const bigKeys = Object.keys(files).filter((key) => key.startsWith('b/'));
const OUTAGE_SECONDS = 20;

async function bell(): Promise<NotificationItem[]> {
  const res = await call('GET', '/api/notifications');
  expect(res.status, res.raw).toBe(200);
  return res.body as NotificationItem[];
}

beforeAll(async () => {
  [source, destination] = await Promise.all([startS3rver(), startRestartableS3rver({ hold })]);
  server = await startTestServer(
    {
      PROVIDER_ENDPOINTS: JSON.stringify({ aws: source.endpoint }),
      TRANSFER_LEASE_SECONDS: '6',
      TRANSFER_OBJECT_CONCURRENCY: '4',
      TRANSFER_OUTAGE_SECONDS: String(OUTAGE_SECONDS),
    },
    undefined,
    { jobs: true },
  );
  owner = await signedInMember(server, 'outage');
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    owner.principal.organizationId,
  ]);
  sourceStore = s3rverStore(source.endpoint);
  destinationStore = s3rverStore(destination.endpoint, { provider: 'genericS3' });
  await sourceStore.createBucket(SOURCE_BUCKET);
  await destinationStore.createBucket(DESTINATION_BUCKET);
  for (const [key, body] of Object.entries(files))
    await sourceStore.write(SOURCE_BUCKET, key, body, { size: body.length });
}, 120_000);

afterAll(async () => {
  await sourceStore?.close();
  await destinationStore?.close();
  await server?.stop();
  await Promise.all([source?.stop(), destination?.stop()]);
});

describe('transfer engine: the destination store stops mid-transfer (s3rver → generic S3 s3rver)', () => {
  it('fails the items left with a readable message, ends Failed, and Retry Failed Files completes them once it is back', async () => {
    const account = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/api/cloudaccount/insert', body);
      expect(res.status, res.raw).toBe(201);
      return (res.body as { id: string }).id;
    };
    const awsId = await account({ cloudType: 1, name: 'Src', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY });
    const genericId = await account({
      cloudType: 8,
      name: 'Dst',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
      serviceUrl: destination.endpoint,
    });

    const started = await call('POST', '/api/transfer/transfer', {
      sourceCloudAccountId: awsId,
      sourceBucket: SOURCE_BUCKET,
      destinationCloudAccountId: genericId,
      destinationBucket: DESTINATION_BUCKET,
    });
    expect(started.status, started.raw).toBe(200);
    const batchId = (started.body as TransferStarted).batch.id;

    // A part of a large object is on its way: some small objects are done by then, the rest are not.
    await firstPartArrived;
    await destination.halt();
    const doneBeforeStop = (await items(batchId)).filter((item) => item.status === 'done').length;
    expect(doneBeforeStop).toBeGreaterThan(0);

    const failedBatch = await finished(batchId);
    expect(failedBatch).toMatchObject({ transferStatus: BATCH_STATUS.failed, total: 60 });
    // The batch as a whole says why, in words, in the history and on Transfer Status; the bell says it too.
    expect(failedBatch.error).toMatch(
      /^The destination could not be reached for \d+ seconds, so the transfer stopped \(The provider could not be reached/,
    );
    expect(failedBatch.error).toMatch(/Retry Failed Files copies the rest once it is back\.$/);
    expect(failedBatch.error).not.toMatch(/ECONN|127\.0\.0\.1|socket|\{/);
    // The notice is the batch end's hook, written just after the batch is marked Failed: wait for it.
    await expect
      .poll(() => bell(), { timeout: 15_000 })
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            title: transferMessages.failedNoticeTitle(SOURCE_BUCKET, DESTINATION_BUCKET),
            description: failedBatch.error,
            status: 'error',
            link: '/mboard',
            read: false,
          }),
        ]),
      );
    expect(failedBatch.transferred + failedBatch.failed).toBe(60);
    const afterOutage = await items(batchId);
    const failed = afterOutage.filter((item) => item.status === 'failed');
    expect(afterOutage.filter((item) => !['done', 'failed'].includes(item.status))).toEqual([]);
    expect(failed.length).toBe(failedBatch.failed);
    expect(failed.map((item) => item.source_key)).toEqual(expect.arrayContaining(bigKeys));
    // The large object whose part was cut off keeps its upload: aborting it could not reach the store either.
    expect(failed.filter((item) => item.upload_id !== null).length).toBeGreaterThan(0);
    for (const item of failed) {
      // What the user reads in the failed-files list: the provider, in words, not a socket dump.
      expect(item.error, item.source_key).toMatch(/^The provider could not be reached: /);
      expect(item.error).not.toMatch(/ECONN|EPIPE|127\.0\.0\.1|socket|\{/);
      // Never handed round: claimed by one worker at most (an object waiting for the store while its job paused is
      // not counted as claimed, and one never reached is failed with the rest once the outage outlasts the budget).
      expect(item.attempts, item.source_key).toBeLessThanOrEqual(1);
    }

    const csv = await server.app.inject({
      method: 'POST',
      url: '/api/transfer/download_failed_files',
      headers: { authorization: `Bearer ${owner.token}` },
      payload: { Id: batchId },
    });
    expect(csv.statusCode).toBe(200);
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe('key,size,error');
    const rows = lines.slice(1).map((line) => {
      const [key = '', size = '', ...error] = line.split(',');
      return { key, size: Number(size), error: error.join(',') };
    });
    expect(rows.map((row) => row.key).sort()).toEqual(failed.map((item) => item.source_key).sort());
    for (const row of rows) {
      expect(row.size).toBe(files[row.key]?.length);
      expect(row.error).toMatch(/The provider could not be reached: /);
    }

    outageDone = true;
    await destination.resume();
    const retry = await call('POST', '/api/transfer/retry_transfer', { Id: batchId });
    expect(retry.status, retry.raw).toBe(200);
    expect((retry.body as TransferStarted).message).toBe(transferMessages.retryStarted);
    const retryId = (retry.body as TransferStarted).batch.id;
    const completed = await finished(retryId);
    expect(completed).toMatchObject({
      transferStatus: BATCH_STATUS.completed,
      retryOf: batchId,
      total: failed.length,
      transferred: failed.length,
      failed: 0,
    });
    expect((await batchOf(batchId)).Retried).toBe(true);

    // Uploads the outage left open (their abort could not reach the store) are aborted by the minute sweep; run
    // it now rather than wait for the schedule.
    await sweepTransfers({
      repo: server.services.transfersRepo,
      itemQueue: server.services.transferQueueRepo,
      executor: server.services.transferExecutor,
      accounts: server.services.cloudAccountsRepo,
      stores: server.services.stores,
      copier: server.services.transferCopier,
      enqueue: async () => undefined,
      log: createLogger('silent'),
    });
    expect(await destination.openUploads(DESTINATION_BUCKET)).toEqual([]);
    expect((await items(batchId)).filter((item) => item.upload_id !== null)).toEqual([]);

    // Every object once at the destination, byte for byte, and copied by exactly one item of the two batches.
    expect((await keysOf(destinationStore, DESTINATION_BUCKET)).sort()).toEqual(Object.keys(files).sort());
    for (const [key, body] of Object.entries(files)) {
      expect((await readAll(destinationStore, DESTINATION_BUCKET, key)).equals(body), key).toBe(true);
    }
    const { rows: copies } = await server.db.pool.query<{ source_key: string; done: number }>(
      `select source_key, count(*) filter (where status = 'done')::int as done from transfer_items
       where batch_id in ($1, $2) group by source_key`,
      [batchId, retryId],
    );
    expect(copies.length).toBe(60);
    expect(copies.filter((copy) => copy.done !== 1)).toEqual([]);
  }, 300_000);

  it('a destination down for less than TRANSFER_OUTAGE_SECONDS only pauses the batch: it completes once the store is back, with nothing failed', async () => {
    const accounts = (await call('GET', '/api/cloudaccount/get_all')).body as Array<{
      id: string;
      name: string;
    }>;
    const idOf = (name: string) => accounts.find((account) => account.name === name)?.id;
    await destinationStore.createBucket('outage-dst-2');
    const noticesBefore = (await bell()).length;
    await destination.halt();
    let resumed = false;
    try {
      const started = await call('POST', '/api/transfer/transfer', {
        sourceCloudAccountId: idOf('Src'),
        sourceBucket: SOURCE_BUCKET,
        sourcePath: 'a/',
        destinationCloudAccountId: idOf('Dst'),
        destinationBucket: 'outage-dst-2',
      });
      expect(started.status, started.raw).toBe(200);
      const batchId = (started.body as TransferStarted).batch.id;
      // Longer than an object's tries take to fail (each within seconds), shorter than the budget.
      await new Promise((resolve) => setTimeout(resolve, 8000));
      expect((await batchOf(batchId)).transferStatus).toBe(BATCH_STATUS.ongoing);
      await destination.resume();
      resumed = true;
      const batch = await finished(batchId, 120_000);
      expect(batch).toMatchObject({
        transferStatus: BATCH_STATUS.completed,
        total: 10,
        transferred: 10,
        failed: 0,
        error: null,
      });
      expect((await keysOf(destinationStore, 'outage-dst-2')).length).toBe(10);
      expect((await bell()).length).toBe(noticesBefore);
    } finally {
      if (!resumed) await destination.resume();
    }
  }, 180_000);

  it('a destination that cannot be listed while planning with Skip Existing Files fails the batch in words after a few tries, not for ever', async () => {
    const accounts = (await call('GET', '/api/cloudaccount/get_all')).body as Array<{
      id: string;
      name: string;
    }>;
    const idOf = (name: string) => accounts.find((account) => account.name === name)?.id;
    await destination.halt();
    try {
      const started = await call('POST', '/api/transfer/transfer', {
        sourceCloudAccountId: idOf('Src'),
        sourceBucket: SOURCE_BUCKET,
        destinationCloudAccountId: idOf('Dst'),
        destinationBucket: DESTINATION_BUCKET,
        allowSkip: true,
      });
      expect(started.status, started.raw).toBe(200);
      const batch = await finished((started.body as TransferStarted).batch.id, 120_000);
      expect(batch).toMatchObject({ transferStatus: BATCH_STATUS.failed, total: 0, transferred: 0 });
      expect(batch.error).toMatch(
        /^The objects to copy could not be listed: The provider could not be reached/,
      );
      expect(batch.error).not.toMatch(/ECONN|127\.0\.0\.1/);
    } finally {
      await destination.resume();
    }
  }, 180_000);
});

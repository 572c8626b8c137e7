import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS, type TransferList } from '@cumulo/contract';
import type { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { createLogger } from '../../logger.ts';
import { DEFAULT_MAX_CLAIMS, TransferExecutor, transferErrors } from './engine/executor.ts';
import { TransferProgress } from './engine/progress.ts';
import { ItemSettler } from './engine/settler.ts';

/**
 * The bound on reclaims: an item whose worker stopped on it (its lease ran out) DEFAULT_MAX_CLAIMS times is
 * failed with a readable message instead of being handed to the next worker forever; an item below the bound is
 * still copied. The dead workers are played by claims whose leases are then moved into the past (as a worker that
 * stopped renewing them leaves them); the executor is the real one, on s3rver and embedded PostgreSQL. No jobs
 * role here, so nothing but the test claims these items.
 */
let server: TestServer;
let s3rver: S3rverServer;
let store: S3ObjectStore;
let owner: Awaited<ReturnType<typeof signedInMember>>;

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'poison');
  store = s3rverStore(s3rver.endpoint);
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
  await s3rver?.stop();
});

/**
 * A batch planned with `sizes` (key → bytes) and nothing copied: its items wait to be claimed. `present`: planned
 * as Skip Existing Files plans a move's objects already at the destination.
 */
async function plannedBatch(
  name: string,
  operation: 'copy' | 'move',
  sizes: Record<string, number>,
  present = false,
) {
  const repo = server.services.transfersRepo;
  const accountId = await connectS3rverAccount(server, owner.token, name);
  const batch = await repo.createBatch({
    organizationId: owner.principal.organizationId,
    operation,
    sourceCloudAccountId: accountId,
    sourceBucket: `${name}-src`,
    destinationCloudAccountId: accountId,
    destinationBucket: `${name}-dst`,
  });
  const keys = Object.keys(sizes);
  await server.services.transferPlanningRepo.insertPlanned(
    batch.id,
    keys.map((key) => ({
      sourceKey: key,
      destinationKey: key,
      size: sizes[key] ?? 0,
      sourceEtag: null,
      sourceMd5: null,
      status: 'pending' as const,
      present,
    })),
    keys.at(-1) ?? null,
  );
  expect(await server.services.transferPlanningRepo.finishPlanning(batch.id)).toBe(true);
  return batch;
}

describe('transfer items whose worker stops every time', () => {
  it(`are failed after ${DEFAULT_MAX_CLAIMS} expired leases with a readable message, not reclaimed forever`, async () => {
    const repo = server.services.transfersRepo;
    const accountId = await connectS3rverAccount(server, owner.token, 'Lab');
    const files = { 'poison.bin': randomBytes(3000), 'fine.txt': randomBytes(2000) };
    await store.createBucket('poison-src');
    await store.createBucket('poison-dst');
    for (const [key, body] of Object.entries(files))
      await store.write('poison-src', key, body, { size: body.length });

    const batch = await repo.createBatch({
      organizationId: owner.principal.organizationId,
      operation: 'copy',
      sourceCloudAccountId: accountId,
      sourceBucket: 'poison-src',
      destinationCloudAccountId: accountId,
      destinationBucket: 'poison-dst',
    });
    // poison.bin first: claims go by id, so a claim of one item takes it.
    await server.services.transferPlanningRepo.insertPlanned(
      batch.id,
      Object.entries(files).map(([key, body]) => ({
        sourceKey: key,
        destinationKey: key,
        size: body.length,
        sourceEtag: null,
        sourceMd5: null,
        status: 'pending' as const,
      })),
      'poison.bin',
    );
    expect(await server.services.transferPlanningRepo.finishPlanning(batch.id)).toBe(true);
    const expireLeases = () =>
      server.db.pool.query(
        `update transfer_items set lease_until = now() - interval '1 second'
         where batch_id = $1 and status = 'copying'`,
        [batch.id],
      );
    const message = transferErrors.workerStopped(DEFAULT_MAX_CLAIMS);

    // Workers that each claimed and died: poison.bin DEFAULT_MAX_CLAIMS times, fine.txt two times less.
    for (let worker = 1; worker <= DEFAULT_MAX_CLAIMS; worker++) {
      const both = worker <= DEFAULT_MAX_CLAIMS - 2;
      const claimed = await server.services.transferQueueRepo.claim(
        batch.id,
        `dead-${worker}`,
        60,
        both ? 2 : 1,
        DEFAULT_MAX_CLAIMS,
      );
      expect(claimed.map((item) => item.sourceKey)).toEqual(
        both ? ['poison.bin', 'fine.txt'] : ['poison.bin'],
      );
      // A lease still running is its worker's: nothing is failed under it, whatever its count.
      expect(
        await server.services.transferQueueRepo.failAbandoned(batch.id, DEFAULT_MAX_CLAIMS, message),
      ).toBe(0);
      await expireLeases();
    }

    // The next claim passes over the item at the bound; the one below it is claimed once more (and dies again).
    const next = await server.services.transferQueueRepo.claim(
      batch.id,
      'dead-again',
      60,
      10,
      DEFAULT_MAX_CLAIMS,
    );
    expect(next.map((item) => item.sourceKey)).toEqual(['fine.txt']);
    await expireLeases();

    // A real job on the batch: fails the poison item, copies the other, ends the batch Failed.
    const result = await server.services.transferExecutor.run(batch.id);
    expect(result.copied).toBe(1);
    const { rows } = await server.db.pool.query<{
      source_key: string;
      status: string;
      error: string | null;
      attempts: number;
    }>('select source_key, status, error, attempts from transfer_items where batch_id = $1 order by id', [
      batch.id,
    ]);
    expect(rows).toEqual([
      { source_key: 'poison.bin', status: 'failed', error: message, attempts: DEFAULT_MAX_CLAIMS },
      { source_key: 'fine.txt', status: 'done', error: null, attempts: DEFAULT_MAX_CLAIMS },
    ]);
    expect(message).toBe(
      'The copy of this object was interrupted 5 times: the worker copying it stopped each time. It was set aside so that the rest of the transfer could finish.',
    );
    // Failed once, counted once.
    expect(await server.services.transferQueueRepo.failAbandoned(batch.id, DEFAULT_MAX_CLAIMS, message)).toBe(
      0,
    );

    const list = await callApi(server, 'GET', '/api/transfer/get_all?type=1', owner.token);
    expect((list.body as TransferList).items.find((b) => b.id === batch.id)).toMatchObject({
      transferStatus: BATCH_STATUS.failed,
      total: 2,
      transferred: 1,
      failed: 1,
    });
    const csv = await server.app.inject({
      method: 'POST',
      url: '/api/transfer/download_failed_files',
      headers: { authorization: `Bearer ${owner.token}` },
      payload: { Id: batch.id },
    });
    expect(csv.body.trim().split('\n')).toEqual(['key,size,error', `poison.bin,3000,${csvField(message)}`]);
    expect(await store.stat('poison-dst', 'poison.bin')).toBeNull();
    expect((await store.stat('poison-dst', 'fine.txt'))?.size).toBe(2000);
  });
});

describe('items settled together (ItemSettler)', () => {
  it('settles in one statement items that end together, each only under its own lease, counted once', async () => {
    const repo = server.services.transferQueueRepo;
    const batch = await plannedBatch('settle', 'move', {
      'a.bin': 100,
      'b.bin': 200,
      'c.bin': 300,
      'd.bin': 400,
    });
    const claimed = await repo.claim(batch.id, 'worker-1', 60, 3, DEFAULT_MAX_CLAIMS);
    const [a, b, c] = claimed.sort((x, y) => x.id - y.id);
    const [d] = await repo.claim(batch.id, 'worker-2', 60, 1, DEFAULT_MAX_CLAIMS);
    if (!a || !b || !c || !d) throw new Error('four items should have been claimed');

    const statements: number[] = [];
    const counting = Object.create(repo) as typeof repo;
    counting.finishItems = (owner, outcomes) => {
      statements.push(outcomes.length);
      return repo.finishItems(owner, outcomes);
    };
    const settler = new ItemSettler(counting, 'worker-1');
    const done = {
      status: 'done',
      method: 'single',
      md5: 'f'.repeat(32),
      sha256: null,
      sourceDeleted: true,
    } as const;
    const answers = await Promise.all([
      settler.settle(a.id, done),
      settler.settle(b.id, { status: 'failed', error: 'The source object no longer exists' }),
      settler.settle(c.id, { status: 'canceled' }),
      // Another worker's item: this worker's lease on it is none, so it is not touched.
      settler.settle(d.id, done),
    ]);

    expect(answers).toEqual([true, true, true, false]);
    expect(statements).toEqual([4]);
    // Settled already: a second settle of the same item changes and counts nothing.
    expect(await settler.settle(a.id, done)).toBe(false);
    const items = await server.db.pool.query(
      'select source_key, status, error, md5, source_deleted, bytes_done::int, lease_owner from transfer_items where batch_id = $1 order by id',
      [batch.id],
    );
    expect(items.rows).toEqual([
      {
        source_key: 'a.bin',
        status: 'done',
        error: null,
        md5: 'f'.repeat(32),
        source_deleted: true,
        bytes_done: 100,
        lease_owner: null,
      },
      {
        source_key: 'b.bin',
        status: 'failed',
        error: 'The source object no longer exists',
        md5: null,
        source_deleted: false,
        bytes_done: 0,
        lease_owner: null,
      },
      {
        source_key: 'c.bin',
        status: 'canceled',
        error: null,
        md5: null,
        source_deleted: false,
        bytes_done: 0,
        lease_owner: null,
      },
      {
        source_key: 'd.bin',
        status: 'copying',
        error: null,
        md5: null,
        source_deleted: false,
        bytes_done: 0,
        lease_owner: 'worker-2',
      },
    ]);
    const counts = await server.db.pool.query(
      'select transferred_number, transferred_size::int, failed_number, deleted_number from transfer_batches where id = $1',
      [batch.id],
    );
    expect(counts.rows[0]).toEqual({
      transferred_number: 1,
      transferred_size: 100,
      failed_number: 1,
      deleted_number: 1,
    });
  });
});

describe('row locks of the engine statements', () => {
  it('settles items in id order and writes progress around locked rows, so the two never deadlock', async () => {
    const repo = server.services.transferQueueRepo;
    const batch = await plannedBatch('locks', 'copy', { x1: 10, x2: 10 });
    const [first, second] = (await repo.claim(batch.id, 'worker-1', 60, 2, DEFAULT_MAX_CLAIMS)).sort(
      (x, y) => x.id - y.id,
    );
    if (!first || !second) throw new Error('two items should have been claimed');

    // Another transaction holds the second row, as a concurrent statement would.
    const other = await server.db.pool.connect();
    try {
      await other.query('begin');
      await other.query('select id from transfer_items where id = $1 for update', [second.id]);

      // Progress never waits: the free row gets its bytes, the locked one is left for the next flush.
      await repo.recordBytes([
        { itemId: second.id, bytes: 7 },
        { itemId: first.id, bytes: 5 },
      ]);
      const bytes = await server.db.pool.query(
        'select id::int, bytes_done::int from transfer_items where batch_id = $1 order by id',
        [batch.id],
      );
      expect(bytes.rows).toEqual([
        { id: first.id, bytes_done: 5 },
        { id: second.id, bytes_done: 0 },
      ]);

      // Settling both, listed in the other order, takes the first row before it waits for the second.
      const settling = repo.finishItems('worker-1', [
        { itemId: second.id, outcome: { status: 'canceled' } },
        { itemId: first.id, outcome: { status: 'canceled' } },
      ]);
      await expect
        .poll(async () => {
          const waiting = await server.db.pool.query(
            "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%jsonb_to_recordset%'",
          );
          return waiting.rows[0].n;
        })
        .toBe(1);
      await expect(
        other.query('select id from transfer_items where id = $1 for update nowait', [first.id]),
      ).rejects.toThrow(/could not obtain lock/);
      await other.query('rollback');
      expect(await settling).toEqual(new Set([first.id, second.id]));
    } finally {
      other.release();
    }
  });
});

/**
 * An executor whose database refuses the first record of an item ending with `status`, as a dropped connection
 * would; `refused()` tells how many records it refused.
 */
function refusingExecutor(status: 'done' | 'skipped') {
  const repo = server.services.transferQueueRepo;
  let refused = 0;
  const finishItems: typeof repo.finishItems = async (owner, outcomes) => {
    if (refused === 0 && outcomes.some(({ outcome }) => outcome.status === status)) {
      refused += 1;
      throw new Error('Connection terminated unexpectedly');
    }
    return repo.finishItems(owner, outcomes);
  };
  const refusing = new Proxy(repo, {
    get(target, property) {
      if (property === 'finishItems') return finishItems;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const log = createLogger('silent');
  const executor = new TransferExecutor(
    server.services.transfersRepo,
    refusing,
    server.services.transferPlanningRepo,
    server.services.cloudAccountsRepo,
    server.services.stores,
    new TransferProgress(server.services.transfersRepo, refusing, async () => undefined, log),
    { publishBatch: async () => undefined, onBatchFinished: async () => undefined },
    server.services.transferCopier,
    { leaseSeconds: 60, objectConcurrency: 4, claimChunk: 8, attempts: 1 },
    log,
  );
  return { executor, refused: () => refused };
}

/** The batch's one item and its batch's counters. */
async function soleItemState(batchId: string) {
  const { rows } = await server.db.pool.query<{
    status: string;
    error: string | null;
    batch_status: number;
    failed: number;
    skipped: number;
    deleted: number;
  }>(
    `select i.status, i.error, b.status as batch_status, b.failed_number as failed, b.skipped_number as skipped,
       b.deleted_number as deleted
     from transfer_items i join transfer_batches b on b.id = i.batch_id where i.batch_id = $1`,
    [batchId],
  );
  return rows;
}

const expireLeasesOf = (batchId: string) =>
  server.db.pool.query(
    "update transfer_items set lease_until = now() - interval '1 second' where batch_id = $1",
    [batchId],
  );

/** An item whose record was refused: still its worker's, neither failed nor counted, and the batch not over. */
const heldByItsLease = {
  status: 'copying',
  error: null,
  batch_status: BATCH_STATUS.ongoing,
  failed: 0,
  skipped: 0,
  deleted: 0,
};

describe('a finished item the database does not record', () => {
  it('a verified copy is copied again once its lease runs out, never listed as a failed file', async () => {
    const body = randomBytes(1500);
    await store.createBucket('record-src');
    await store.createBucket('record-dst');
    await store.write('record-src', 'kept.txt', body, { size: body.length });
    const batch = await plannedBatch('record', 'copy', { 'kept.txt': body.length });
    const { executor, refused } = refusingExecutor('done');

    expect(await executor.run(batch.id)).toEqual({ copied: 0, failed: 0 });
    expect(refused()).toBe(1);
    expect(await soleItemState(batch.id)).toEqual([heldByItsLease]);

    await expireLeasesOf(batch.id);
    expect(await server.services.transferExecutor.run(batch.id)).toEqual({ copied: 1, failed: 0 });
    expect(await soleItemState(batch.id)).toEqual([
      {
        status: 'done',
        error: null,
        batch_status: BATCH_STATUS.completed,
        failed: 0,
        skipped: 0,
        deleted: 0,
      },
    ]);
    expect((await store.stat('record-dst', 'kept.txt'))?.size).toBe(body.length);
  });

  it("a move's object already at the destination, its source deleted, is finished by the next claim, not failed", async () => {
    const body = randomBytes(1500);
    await store.createBucket('present-src');
    await store.createBucket('present-dst');
    await store.write('present-src', 'there.txt', body, { size: body.length });
    await store.write('present-dst', 'there.txt', body, { size: body.length });
    const batch = await plannedBatch('present', 'move', { 'there.txt': body.length }, true);
    const { executor, refused } = refusingExecutor('skipped');

    expect(await executor.run(batch.id)).toEqual({ copied: 0, failed: 0 });
    expect(refused()).toBe(1);
    // The source is gone already.
    expect(await store.stat('present-src', 'there.txt')).toBeNull();
    expect(await soleItemState(batch.id)).toEqual([heldByItsLease]);

    // The next claim finds the source gone and the destination holding the object: the delete was done.
    await expireLeasesOf(batch.id);
    expect(await server.services.transferExecutor.run(batch.id)).toEqual({ copied: 0, failed: 0 });
    expect(await soleItemState(batch.id)).toEqual([
      {
        status: 'skipped',
        error: null,
        batch_status: BATCH_STATUS.completed,
        failed: 0,
        skipped: 1,
        deleted: 1,
      },
    ]);
    expect((await store.stat('present-dst', 'there.txt'))?.size).toBe(body.length);
  });
});

describe('lease renewal overlapping a claim', () => {
  it('keeps the items a job claimed while a renewal was on its way: each copied under its first claim', async () => {
    // Found by the scale-out test (test/scale-out.int.spec.ts): on a loaded machine a renewal that resolved after
    // the job's next claim dropped that whole chunk, as if its leases had been lost, so another claim took the
    // items again once they ran out. Here every renewal waits for the job's next claim (at most 1 s) before it
    // reaches the database, as one queued behind a busy pool may.
    const keys = Array.from({ length: 80 }, (_, index) => `renew-${String(index).padStart(2, '0')}.txt`);
    await store.createBucket('renew-src');
    await store.createBucket('renew-dst');
    for (const key of keys) await store.write('renew-src', key, Buffer.from(key), { size: key.length });
    const batch = await plannedBatch(
      'renew',
      'copy',
      Object.fromEntries(keys.map((key) => [key, key.length])),
    );
    const repo = server.services.transferQueueRepo;
    let claimed = () => undefined as void;
    let overlapped = 0;
    const claim: typeof repo.claim = async (...args) => {
      const items = await repo.claim(...args);
      if (items.length > 0) claimed();
      return items;
    };
    const renewLeases: typeof repo.renewLeases = async (ids, leaseOwner, leaseSeconds) => {
      const next = new Promise<boolean>((resolve) => {
        claimed = () => resolve(true);
        setTimeout(() => resolve(false), 1000);
      });
      if (await next) overlapped += 1;
      return repo.renewLeases(ids, leaseOwner, leaseSeconds);
    };
    const slowRenewals = new Proxy(repo, {
      get(target, property) {
        if (property === 'renewLeases') return renewLeases;
        if (property === 'claim') return claim;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const log = createLogger('silent');
    const executor = new TransferExecutor(
      server.services.transfersRepo,
      slowRenewals,
      server.services.transferPlanningRepo,
      server.services.cloudAccountsRepo,
      server.services.stores,
      new TransferProgress(server.services.transfersRepo, slowRenewals, async () => undefined, log),
      { publishBatch: async () => undefined, onBatchFinished: async () => undefined },
      server.services.transferCopier,
      // A renewal every second (a third of the lease), waiting up to 1 s: leases renewed well within 3 s.
      { leaseSeconds: 3, objectConcurrency: 1, claimChunk: 2, attempts: 1 },
      log,
    );

    expect(await executor.run(batch.id)).toEqual({ copied: keys.length, failed: 0 });
    expect(overlapped).toBeGreaterThan(0);
    const { rows } = await server.db.pool.query<{ status: string; attempts: number }>(
      'select status, attempts from transfer_items where batch_id = $1',
      [batch.id],
    );
    expect(rows).toHaveLength(keys.length);
    expect(rows.filter((row) => row.status !== 'done' || row.attempts !== 1)).toEqual([]);
  });
});

/** RFC 4180: a field with a comma or quote is quoted, its quotes doubled. */
function csvField(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

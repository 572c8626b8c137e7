import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS } from '@cumulo/contract';
import type { S3ObjectStore } from '@cumulo/storage/adapters';
import { readAll, startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  connectS3rverAccount,
  signedInMember,
  startTestServer,
  type TestServer,
  s3rverStore,
} from '../../../test/harness.ts';
import { createLogger } from '../../logger.ts';
import { TransferExecutor, type Copier } from './engine/executor.ts';
import { TransferProgress } from './engine/progress.ts';
import { drainGraceMs } from './engine/drain.ts';

/**
 * A worker told to stop (SIGTERM: main.ts calls TransferExecutor.shutdown) mid-batch: the copies that end within
 * the grace period are finished, the others aborted, and every object it still held is back to pending at once,
 * not when its two-minute lease would have run out, so a second worker finishes the batch at once. Real executor,
 * real copier, s3rver and embedded PostgreSQL; the first worker's copier holds the `stuck/` objects until it is
 * aborted (an object far too large to end within the grace period), no jobs role in this process.
 */
let server: TestServer;
let s3rver: S3rverServer;
let store: S3ObjectStore;
let owner: Awaited<ReturnType<typeof signedInMember>>;

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'drain');
  store = s3rverStore(s3rver.endpoint);
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
  await s3rver?.stop();
});

const LEASE_SECONDS = 120;

describe('a worker shutting down (SIGTERM) mid-batch', () => {
  it('finishes what ends within the grace period, hands the rest back at once, and another worker completes the batch', async () => {
    const repo = server.services.transfersRepo;
    const accountId = await connectS3rverAccount(server, owner.token, 'Drain lab');
    await store.createBucket('drain-src');
    await store.createBucket('drain-dst');
    // Claims go by id: the two stuck objects and the slow one are the first three in flight; the quick ones are
    // claimed in the same chunk and wait for a free slot.
    const files: Record<string, Buffer> = {
      'a.bin': randomBytes(40_000),
      'b.bin': randomBytes(50_000),
      'c.bin': randomBytes(30_000),
      'd.bin': randomBytes(20_000),
      'e.bin': randomBytes(10_000),
    };
    for (const [key, body] of Object.entries(files))
      await store.write('drain-src', key, body, { size: body.length });
    const batch = await repo.createBatch({
      organizationId: owner.principal.organizationId,
      operation: 'copy',
      sourceCloudAccountId: accountId,
      sourceBucket: 'drain-src',
      destinationCloudAccountId: accountId,
      destinationBucket: 'drain-dst',
    });
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
      'e.bin',
    );
    expect(await server.services.transferPlanningRepo.finishPlanning(batch.id)).toBe(true);

    const real = server.services.transferCopier;
    // Three copies run at once (objectConcurrency). The first two started never end by themselves (objects far
    // too large for the grace period); the third ends 300 ms into the shutdown, well within it. The two other
    // claimed objects wait for a free slot, which only the third frees, once the shutdown has begun.
    const started: string[] = [];
    const aborted: string[] = [];
    let shutdownAsked!: () => void;
    const askedToStop = new Promise<void>((resolve) => (shutdownAsked = resolve));
    const copier: Copier = {
      async copyObject(task) {
        const key = task.item.sourceKey;
        started.push(key);
        if (started.length <= 2)
          await new Promise<never>((_, reject) =>
            task.signal.addEventListener(
              'abort',
              () => {
                aborted.push(`${key}: ${String(task.signal.reason)}`);
                reject(new Error('aborted'));
              },
              { once: true },
            ),
          );
        if (started.length === 3) await askedToStop.then(() => sleep(300));
        return real.copyObject(task);
      },
      abandonCopy: (task) => real.abandonCopy(task),
    };
    const log = createLogger('silent');
    const stopping = new TransferExecutor(
      repo,
      server.services.transferQueueRepo,
      server.services.transferPlanningRepo,
      server.services.cloudAccountsRepo,
      server.services.stores,
      new TransferProgress(repo, server.services.transferQueueRepo, async () => undefined, log),
      { publishBatch: async () => undefined, onBatchFinished: async () => undefined },
      copier,
      { leaseSeconds: LEASE_SECONDS, objectConcurrency: 3, claimChunk: 10, attempts: 3 },
      log,
    );

    const firstRun = stopping.run(batch.id);
    // Wait until the three copies are in flight (all five objects are claimed in one chunk before).
    const deadline = Date.now() + 10_000;
    while (started.length < 3) {
      if (Date.now() > deadline) throw new Error(`only ${started.length} copies started`);
      await sleep(20);
    }
    const [stuck1, stuck2, slow] = started;

    const graceMs = 1500;
    const shutdownStarted = Date.now();
    const shutdown = stopping.shutdown(graceMs);
    shutdownAsked();
    await shutdown;
    const shutdownMs = Date.now() - shutdownStarted;
    const first = await firstRun;

    // The slow copy ended within the grace period and was kept; the stuck ones were aborted when it ran out.
    expect(first).toEqual({ copied: 1, failed: 0, stopped: true });
    expect(shutdownMs).toBeGreaterThanOrEqual(graceMs - 50);
    expect(shutdownMs).toBeLessThan(graceMs + 5000);
    expect(started).toHaveLength(3);
    expect(aborted.sort()).toEqual(
      [`${stuck1}: worker shutting down`, `${stuck2}: worker shutting down`].sort(),
    );
    // Handed back now, not in two minutes: pending, no lease, and the interrupted claim not counted as a worker
    // stopping on the object.
    const { rows: handedBack } = await server.db.pool.query(
      `select source_key, status, lease_owner, lease_until, attempts from transfer_items where batch_id = $1
       order by id`,
      [batch.id],
    );
    expect(handedBack).toEqual(
      Object.keys(files).map((key) =>
        key === slow
          ? expect.objectContaining({ source_key: key, status: 'done', attempts: 1 })
          : { source_key: key, status: 'pending', lease_owner: null, lease_until: null, attempts: 0 },
      ),
    );
    // A stopped executor takes no new run (the job handler queues it again for another worker).
    expect(await stopping.run(batch.id)).toEqual({ copied: 0, failed: 0, stopped: true });
    expect(await repo.statusOf(batch.id)).toBe(BATCH_STATUS.ongoing);

    // Another worker, right away: claims the four objects handed back and completes the batch.
    const second = await server.services.transferExecutor.run(batch.id);
    expect(second).toEqual({ copied: 4, failed: 0 });
    expect(await repo.statusOf(batch.id)).toBe(BATCH_STATUS.completed);
    const { rows: items } = await server.db.pool.query<{
      source_key: string;
      status: string;
      attempts: number;
      md5: string | null;
    }>('select source_key, status, attempts, md5 from transfer_items where batch_id = $1 order by id', [
      batch.id,
    ]);
    // Each object copied once, by one claim, and verified (its checksum recorded).
    for (const item of items) {
      expect(item).toMatchObject({ status: 'done', attempts: 1 });
      expect(item.md5).toMatch(/^[0-9a-f]{32}$/);
    }
    for (const [key, body] of Object.entries(files))
      expect((await readAll(store, 'drain-dst', key)).equals(body), key).toBe(true);
  });

  it('lets copies run at most half a lease, and never past 15 s (main.ts exits at 30 s)', () => {
    expect(drainGraceMs(120)).toBe(15_000);
    expect(drainGraceMs(10)).toBe(5000);
  });
});

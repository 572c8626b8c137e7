import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS, TRANSFER_EVENTS } from '@cumulo/contract';
import type { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  connectS3rverAccount,
  signedInMember,
  startTestServer,
  type TestServer,
  s3rverStore,
} from '../../../test/harness.ts';
import { createLogger } from '../../logger.ts';
import type { BusMessage } from '../../realtime/events.ts';
import { TransferExecutor, type BatchHooks } from './engine/executor.ts';
import { TransferProgress } from './engine/progress.ts';
import { TransfersService } from './transfers.service.ts';

/**
 * What follows a batch's end (its c2c settlement, the bell, the sync cycle, the recount, the search index) runs once
 * per batch, from whoever ended it, and never on the events of a batch still running (README "When a batch ends").
 * Real executor and copier against s3rver and embedded PostgreSQL; the hooks are counted, and a TransfersService
 * built here with the server's own repos sends its end of batch to a counter.
 */
let server: TestServer;
let s3rver: S3rverServer;
let store: S3ObjectStore;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let accountId: string;

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'batchend');
  store = s3rverStore(s3rver.endpoint);
  accountId = await connectS3rverAccount(server, owner.token, 'Batch end lab');
  await store.createBucket('end-src');
  await store.createBucket('end-dst');
  for (const key of ['a.bin', 'b.bin', 'c.bin', 'd.bin'])
    await store.write('end-src', key, randomBytes(2000), { size: 2000 });
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
  await s3rver?.stop();
});

/** Hooks that remember every call, by batch. */
function countingHooks() {
  const published: string[] = [];
  const finished: string[] = [];
  const hooks: BatchHooks = {
    publishBatch: async (batchId) => void published.push(batchId),
    onBatchFinished: async (batchId) => void finished.push(batchId),
  };
  return { hooks, published, finished };
}

function executorWith(hooks: BatchHooks) {
  const repo = server.services.transfersRepo;
  const log = createLogger('silent');
  return new TransferExecutor(
    repo,
    server.services.transferQueueRepo,
    server.services.transferPlanningRepo,
    server.services.cloudAccountsRepo,
    server.services.stores,
    new TransferProgress(repo, server.services.transferQueueRepo, async () => undefined, log),
    hooks,
    server.services.transferCopier,
    { leaseSeconds: 60, objectConcurrency: 2, claimChunk: 2, attempts: 1 },
    log,
  );
}

/** A batch of the whole source bucket, still to be planned (as TransfersService.start leaves it). */
const newBatch = () =>
  server.services.transfersRepo.createBatch({
    organizationId: owner.principal.organizationId,
    userId: owner.principal.userId,
    operation: 'copy',
    sourceCloudAccountId: accountId,
    sourceBucket: 'end-src',
    destinationCloudAccountId: accountId,
    destinationBucket: 'end-dst',
  });

const statusOf = (batchId: string) => server.services.transfersRepo.statusOf(batchId);

describe('the end of a batch', () => {
  it('runs onBatchFinished once when the executor completes a batch, and only publishes its planning', async () => {
    const { hooks, published, finished } = countingHooks();
    const batch = await newBatch();

    expect(await executorWith(hooks).run(batch.id)).toEqual({ copied: 4, failed: 0 });
    expect(await statusOf(batch.id)).toBe(BATCH_STATUS.completed);
    // The planning's event is an event only; the end came once.
    expect(published).toEqual([batch.id]);
    expect(finished).toEqual([batch.id]);

    // A job that finds the batch ended (a late job of the same batch) ends nothing again.
    expect(await executorWith(hooks).run(batch.id)).toEqual({ copied: 0, failed: 0 });
    expect(finished).toEqual([batch.id]);
  });

  it('runs it once when several jobs of one batch reach its end together', async () => {
    const { hooks, finished } = countingHooks();
    const batch = await newBatch();

    const runs = await Promise.all([
      executorWith(hooks).run(batch.id),
      executorWith(hooks).run(batch.id),
      executorWith(hooks).run(batch.id),
    ]);
    expect(runs.reduce((sum, run) => sum + run.copied, 0)).toBe(4);
    expect(await statusOf(batch.id)).toBe(BATCH_STATUS.completed);
    expect(finished).toEqual([batch.id]);
  });

  it('runs it once when a cancel ends a batch, from the cancel or from the job that held its copies', async () => {
    const repo = server.services.transfersRepo;
    const ended: string[] = [];
    const events: BusMessage[] = [];
    const transfers = new TransfersService(
      repo,
      server.services.cloudAccountsRepo,
      server.services.stores,
      async () => undefined,
      async (message) => void events.push(message),
      async (batchId) => void ended.push(batchId),
      createLogger('silent'),
      async () => undefined,
    );
    const planned = async () => {
      const batch = await newBatch();
      await server.services.transferPlanningRepo.insertPlanned(
        batch.id,
        ['a.bin', 'b.bin'].map((key) => ({
          sourceKey: key,
          destinationKey: key,
          size: 2000,
          sourceEtag: null,
          sourceMd5: null,
          status: 'pending' as const,
        })),
        'b.bin',
      );
      expect(await server.services.transferPlanningRepo.finishPlanning(batch.id)).toBe(true);
      return batch;
    };

    // Nothing in flight: the cancel itself ends the batch Canceled.
    const idle = await planned();
    await transfers.cancel(owner.principal, idle.id);
    expect(await statusOf(idle.id)).toBe(BATCH_STATUS.canceled);
    expect(ended).toEqual([idle.id]);

    // An object in flight: the cancel leaves the batch Canceling (an event, not its end) ...
    const busy = await planned();
    const [claimed] = await server.services.transferQueueRepo.claim(busy.id, 'batch-end-test', 60, 1, 5);
    expect(claimed).toBeDefined();
    events.length = 0;
    await transfers.cancel(owner.principal, busy.id);
    expect(await statusOf(busy.id)).toBe(BATCH_STATUS.canceling);
    expect(ended).toEqual([idle.id]);
    expect(
      events.map((event) => [
        event.type,
        'data' in event ? (event.data as { transferStatus: number }).transferStatus : null,
      ]),
    ).toEqual([[TRANSFER_EVENTS.batch, BATCH_STATUS.canceling]]);

    // ... and whoever settles it once the copy stopped ends it, once (here the sweep's settleCancel).
    const { hooks, finished } = countingHooks();
    await server.services.transferQueueRepo.release(claimed?.id ?? 0, 'batch-end-test');
    await executorWith(hooks).settleCancel(busy.id);
    await executorWith(hooks).settleCancel(busy.id);
    expect(await statusOf(busy.id)).toBe(BATCH_STATUS.canceled);
    expect(finished).toEqual([busy.id]);
    expect(ended).toEqual([idle.id]);
  });
});

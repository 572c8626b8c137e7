import type { PgBoss } from 'pg-boss';
import { LOCAL_CONCURRENCY, NOTIFY_POLLING_SECONDS, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import type { Copier, TransferExecutor } from './engine/executor.ts';
import { sweepTransfers, type EnqueueBatchJob } from './engine/sweep.ts';
import type { TransfersRepo } from './transfers.repo.ts';
import type { TransferQueueRepo } from './transfer-queue.repo.ts';
import type { TransferRetention } from './transfer-retention.service.ts';

interface TransferBatchJob {
  batchId: string;
}

/**
 * Where a batch's jobs stand in the queue: its organisation, and how many of that organisation's live batches were
 * requested before it (0: its oldest). undefined when the batch is gone.
 */
type QueuePlaceOf = (batchId: string) => Promise<{ organizationId: string; rank: number } | undefined>;

/**
 * Every job of a batch carries its organisation as its pg-boss group: the worker's `groupConcurrency` then lets at
 * most `TRANSFER_BATCHES_PER_ORG` batches' worth of one organisation's jobs run at once (counted in the database,
 * across worker processes). Its priority is minus its batch's rank within the organisation, and pg-boss takes the
 * highest priority first: every organisation's oldest batch before anyone's second, so a freed slot goes to an
 * organisation with fewer batches waiting rather than to the next of a burst queued earlier.
 */
function jobOptions(place: { organizationId: string; rank: number }) {
  return { group: { id: place.organizationId }, priority: -place.rank };
}

/** Queues `jobsPerBatch` jobs for a new batch, so that several worker processes share it. */
export function enqueueTransferBatch(boss: PgBoss, jobsPerBatch: number, placeOf: QueuePlaceOf) {
  return async (batchId: string) => {
    const place = await placeOf(batchId);
    if (!place) return;
    for (let slot = 0; slot < jobsPerBatch; slot++) {
      await boss.send(QUEUES.transfersBatch, { batchId } satisfies TransferBatchJob, jobOptions(place));
    }
  };
}

function enqueueOne(boss: PgBoss, placeOf: QueuePlaceOf): EnqueueBatchJob {
  return async (batchId, delaySeconds) => {
    const place = await placeOf(batchId);
    if (!place) return;
    await boss.send(QUEUES.transfersBatch, { batchId } satisfies TransferBatchJob, {
      startAfter: delaySeconds,
      ...jobOptions(place),
    });
  };
}

/**
 * The batch handler, a sweep every minute (and once at start-up: a restarted worker resumes at once), and the daily
 * retention of finished batches' items.
 */
export async function registerTransferJobs(
  boss: PgBoss,
  deps: {
    executor: TransferExecutor;
    repo: TransfersRepo;
    itemQueue: TransferQueueRepo;
    accounts: CloudAccountsRepo;
    stores: StoreRegistry;
    copier: Copier;
    retention: TransferRetention;
  },
  /** Jobs of one organisation running at once: `TRANSFER_BATCHES_PER_ORG` × `TRANSFER_JOBS_PER_BATCH`. */
  jobsPerOrganization: number,
  log: Logger,
  schedule: boolean,
) {
  const options = {
    localConcurrency: LOCAL_CONCURRENCY[QUEUES.transfersBatch],
    groupConcurrency: jobsPerOrganization,
    notifyPollingIntervalSeconds: NOTIFY_POLLING_SECONDS,
  };
  const requeue = enqueueOne(boss, (batchId) => deps.repo.queuePlaceOf(batchId));
  await boss.work<TransferBatchJob>(QUEUES.transfersBatch, options, async ([job]) => {
    if (!job) return;
    try {
      const result = await deps.executor.run(job.data.batchId, job.id);
      // A job that handed its slot to another organisation goes to the back of the queue, its batch unfinished;
      // so does the job of a worker shutting down, for another worker to take at once.
      if (result.yielded || result.stopped) await requeue(job.data.batchId, 0);
      log.info({ batchId: job.data.batchId, ...result }, 'transfer job finished');
      return result;
    } catch (error) {
      // pg-boss retries the job; the log says why.
      log.error({ err: error, batchId: job.data.batchId }, 'transfer job failed');
      throw error;
    }
  });
  await boss.work(QUEUES.transfersSweep, async () => {
    const result = await sweepTransfers({ ...deps, enqueue: requeue, log });
    if (result.queued || result.aborted) log.info(result, 'transfers swept');
    return result;
  });
  await boss.work(QUEUES.transfersRetention, async () => {
    const started = Date.now();
    const result = await deps.retention.run();
    // Logged even when nothing was due: the daily line is how an operator sees the job runs.
    log.info({ ...result, ms: Date.now() - started }, 'transfer items retention: finished batches pruned');
    return result;
  });
  if (schedule) {
    await boss.schedule(QUEUES.transfersSweep, '* * * * *');
    await boss.send(QUEUES.transfersSweep, {});
    // Daily at a quiet hour (UTC); each run carries on where the last one stopped.
    await boss.schedule(QUEUES.transfersRetention, '17 3 * * *');
  }
}

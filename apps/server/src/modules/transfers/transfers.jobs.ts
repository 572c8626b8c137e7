import type { PgBoss } from 'pg-boss';
import { LOCAL_CONCURRENCY, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import type { Copier, TransferExecutor } from './engine/executor.ts';
import { sweepTransfers, type EnqueueBatchJob } from './engine/sweep.ts';
import type { TransfersRepo } from './transfers.repo.ts';

export interface TransferBatchJob {
  batchId: string;
}

/** Queues `jobsPerBatch` jobs for a new batch, so that several worker processes share it. */
export function enqueueTransferBatch(boss: PgBoss, jobsPerBatch: number) {
  return async (batchId: string) => {
    for (let slot = 0; slot < jobsPerBatch; slot++) {
      await boss.send(QUEUES.transfersBatch, { batchId } satisfies TransferBatchJob);
    }
  };
}

function enqueueOne(boss: PgBoss): EnqueueBatchJob {
  return async (batchId, delaySeconds) => {
    await boss.send(QUEUES.transfersBatch, { batchId } satisfies TransferBatchJob, {
      startAfter: delaySeconds,
    });
  };
}

/** The batch handler, and a sweep every minute (and once at start-up: a restarted worker resumes at once). */
export async function registerTransferJobs(
  boss: PgBoss,
  deps: {
    executor: TransferExecutor;
    repo: TransfersRepo;
    accounts: CloudAccountsRepo;
    stores: StoreRegistry;
    copier: Copier;
  },
  log: Logger,
  schedule: boolean,
) {
  const options = { localConcurrency: LOCAL_CONCURRENCY[QUEUES.transfersBatch] };
  await boss.work<TransferBatchJob>(QUEUES.transfersBatch, options, async ([job]) => {
    if (!job) return;
    try {
      const result = await deps.executor.run(job.data.batchId);
      log.info({ batchId: job.data.batchId, ...result }, 'transfer job finished');
      return result;
    } catch (error) {
      // pg-boss retries the job; the log says why.
      log.error({ err: error, batchId: job.data.batchId }, 'transfer job failed');
      throw error;
    }
  });
  await boss.work(QUEUES.transfersSweep, async () => {
    const result = await sweepTransfers({ ...deps, enqueue: enqueueOne(boss), log });
    if (result.queued || result.aborted) log.info(result, 'transfers swept');
    return result;
  });
  if (schedule) {
    await boss.schedule(QUEUES.transfersSweep, '* * * * *');
    await boss.send(QUEUES.transfersSweep, {});
  }
}

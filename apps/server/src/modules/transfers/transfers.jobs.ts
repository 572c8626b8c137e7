import type { PgBoss } from 'pg-boss';
import { LOCAL_CONCURRENCY, NOTIFY_POLLING_SECONDS, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import type { Copier, TransferExecutor } from './engine/executor.ts';
import { sweepTransfers, type EnqueueBatchJob } from './engine/sweep.ts';
import type { TransfersRepo } from './transfers.repo.ts';

export interface TransferBatchJob {
  batchId: string;
}

/**
 * Every job of a batch carries its organisation as its pg-boss group: the worker's `groupConcurrency` then lets
 * at most `TRANSFER_BATCHES_PER_ORG` batches' worth of one organisation's jobs run at once (counted in the
 * database, across worker processes), and its other jobs wait while another organisation's take the free slots.
 */
function groupOf(organizationId: string) {
  return { group: { id: organizationId } };
}

/** The organisation of a batch, for its jobs' group; undefined when the batch is gone. */
export type OrganizationOfBatch = (batchId: string) => Promise<string | undefined>;

/** Queues `jobsPerBatch` jobs for a new batch, so that several worker processes share it. */
export function enqueueTransferBatch(
  boss: PgBoss,
  jobsPerBatch: number,
  organizationOf: OrganizationOfBatch,
) {
  return async (batchId: string) => {
    const organizationId = await organizationOf(batchId);
    if (!organizationId) return;
    for (let slot = 0; slot < jobsPerBatch; slot++) {
      await boss.send(QUEUES.transfersBatch, { batchId } satisfies TransferBatchJob, groupOf(organizationId));
    }
  };
}

function enqueueOne(boss: PgBoss, organizationOf: OrganizationOfBatch): EnqueueBatchJob {
  return async (batchId, delaySeconds) => {
    const organizationId = await organizationOf(batchId);
    if (!organizationId) return;
    await boss.send(QUEUES.transfersBatch, { batchId } satisfies TransferBatchJob, {
      startAfter: delaySeconds,
      ...groupOf(organizationId),
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
    const result = await sweepTransfers({
      ...deps,
      enqueue: enqueueOne(boss, (batchId) => deps.repo.organizationOf(batchId)),
      log,
    });
    if (result.queued || result.aborted) log.info(result, 'transfers swept');
    return result;
  });
  if (schedule) {
    await boss.schedule(QUEUES.transfersSweep, '* * * * *');
    await boss.send(QUEUES.transfersSweep, {});
  }
}

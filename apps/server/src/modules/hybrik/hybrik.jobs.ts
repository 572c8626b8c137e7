import type { PgBoss } from 'pg-boss';
import { LOCAL_CONCURRENCY, NOTIFY_POLLING_SECONDS, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { HybrikRunner } from './hybrik-runner.ts';
import type { EnqueueHybrikJob } from './hybrik.service.ts';

export interface HybrikJobData {
  jobId: string;
}

/** One pg-boss job per profile job, grouped by organisation so one organisation's burst leaves slots to others. */
export function enqueueHybrikJob(boss: PgBoss): EnqueueHybrikJob {
  return async (job) => {
    await boss.send(QUEUES.hybrikJob, { jobId: job.id } satisfies HybrikJobData, {
      group: { id: job.organizationId },
    });
  };
}

export const HYBRIK_JOBS_PER_ORG = 2;

export async function registerHybrikJobs(boss: PgBoss, runner: HybrikRunner, log: Logger) {
  const options = {
    localConcurrency: LOCAL_CONCURRENCY[QUEUES.hybrikJob],
    groupConcurrency: HYBRIK_JOBS_PER_ORG,
    notifyPollingIntervalSeconds: NOTIFY_POLLING_SECONDS,
  };
  await boss.work<HybrikJobData>(QUEUES.hybrikJob, options, async ([job]) => {
    if (!job) return;
    await runner.run(job.data.jobId);
    log.info({ jobId: job.data.jobId }, 'hybrik job ended');
  });
}

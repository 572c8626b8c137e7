import type { PgBoss } from 'pg-boss';
import { LOCAL_CONCURRENCY, NOTIFY_POLLING_SECONDS, QUEUES } from '../../jobs/boss.ts';
import { hybrikMessages } from '@cumulo/contract';
import { queueStateOf, type LostJobs } from '../../jobs/lost-jobs.ts';
import type { Logger } from '../../logger.ts';
import type { HybrikRunner } from './hybrik-runner.ts';
import type { HybrikRepo } from './hybrik.repo.ts';
import type { EnqueueHybrikJob } from './hybrik.service.ts';

interface HybrikJobData {
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

const HYBRIK_JOBS_PER_ORG = 2;

/** The sweep's view of `hybrik_jobs` (jobs/lost-jobs.ts): queued waits, active runs. */
export function lostHybrikJobs(repo: HybrikRepo, boss: PgBoss, enqueue: EnqueueHybrikJob): LostJobs {
  return {
    liveSince: async (before, limit) =>
      (await repo.liveSince(before, limit)).map((row) => ({
        id: row.id,
        organizationId: row.organizationId,
        waiting: row.status === 'queued',
      })),
    queueState: queueStateOf(boss, QUEUES.hybrikJob),
    resend: enqueue,
    abandon: async (jobId) => {
      await repo.fail(jobId, hybrikMessages.workerLost, []);
    },
  };
}

export async function registerHybrikJobs(
  boss: PgBoss,
  runner: HybrikRunner,
  sweep: () => Promise<{ abandoned: number; resent: number }>,
  log: Logger,
  schedule: boolean,
) {
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
  await boss.work(QUEUES.hybrikSweep, async () => {
    const result = await sweep();
    if (result.abandoned || result.resent) log.warn(result, 'hybrik jobs swept');
    return result;
  });
  if (schedule) await boss.schedule(QUEUES.hybrikSweep, '*/5 * * * *');
}

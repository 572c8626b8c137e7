import type { PgBoss } from 'pg-boss';
import { mediaMessages } from '@cumulo/contract';
import { LOCAL_CONCURRENCY, NOTIFY_POLLING_SECONDS, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { EncodingRunner } from './encoding-runner.ts';
import type { EncodingRepo } from './encoding.repo.ts';
import { queueStateOf, type LostJobs } from '../../jobs/lost-jobs.ts';
import type { EnqueueEncoding } from './encoding.service.ts';

interface EncodingJobData {
  jobId: string;
}

/**
 * One pg-boss job per encoding job, grouped by organisation: the worker's `groupConcurrency` then lets at most
 * `ENCODING_JOBS_PER_ORG` of one organisation's encodes run at once, so one burst leaves slots to others.
 */
export function enqueueEncoding(boss: PgBoss): EnqueueEncoding {
  return async (job) => {
    await boss.send(QUEUES.encodingJob, { jobId: job.id } satisfies EncodingJobData, {
      group: { id: job.organizationId },
    });
  };
}

const ENCODING_JOBS_PER_ORG = 2;

/** The sweep's view of `encoding_jobs` (jobs/lost-jobs.ts): New waits, Processing runs. */
export function lostEncodingJobs(
  repo: EncodingRepo,
  runner: EncodingRunner,
  boss: PgBoss,
  enqueue: EnqueueEncoding,
): LostJobs {
  return {
    liveSince: async (before, limit) =>
      (await repo.liveSince(before, limit)).map((row) => ({
        id: row.id,
        organizationId: row.organizationId,
        waiting: row.status === 'New',
      })),
    queueState: queueStateOf(boss, QUEUES.encodingJob),
    resend: enqueue,
    abandon: (jobId) => runner.abandon(jobId, mediaMessages.workerLost),
  };
}

export async function registerEncodingJobs(
  boss: PgBoss,
  runner: EncodingRunner,
  sweep: () => Promise<{ abandoned: number; resent: number }>,
  log: Logger,
  schedule: boolean,
) {
  const options = {
    localConcurrency: LOCAL_CONCURRENCY[QUEUES.encodingJob],
    groupConcurrency: ENCODING_JOBS_PER_ORG,
    notifyPollingIntervalSeconds: NOTIFY_POLLING_SECONDS,
  };
  await boss.work<EncodingJobData>(QUEUES.encodingJob, options, async ([job]) => {
    if (!job) return;
    await runner.run(job.data.jobId);
    log.info({ jobId: job.data.jobId }, 'encoding job ended');
  });
  await boss.work(QUEUES.encodingSweep, async () => {
    const result = await sweep();
    if (result.abandoned || result.resent) log.warn(result, 'encoding jobs swept');
    return result;
  });
  if (schedule) await boss.schedule(QUEUES.encodingSweep, '*/5 * * * *');
}

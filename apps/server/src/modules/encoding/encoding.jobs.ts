import type { PgBoss } from 'pg-boss';
import { LOCAL_CONCURRENCY, NOTIFY_POLLING_SECONDS, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { EncodingRunner } from './encoding-runner.ts';
import type { EnqueueEncoding } from './encoding.service.ts';

export interface EncodingJobData {
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

export const ENCODING_JOBS_PER_ORG = 2;

export async function registerEncodingJobs(boss: PgBoss, runner: EncodingRunner, log: Logger) {
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
}

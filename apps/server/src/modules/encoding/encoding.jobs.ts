import type { PgBoss } from 'pg-boss';
import { mediaMessages } from '@cumulo/contract';
import { LOCAL_CONCURRENCY, NOTIFY_POLLING_SECONDS, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { EncodingRunner } from './encoding-runner.ts';
import type { EncodingRepo } from './encoding.repo.ts';
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

/** What the queue holds for an encoding job: a job that may still run, only ended ones, or nothing at all. */
export type QueueState = 'pending' | 'ended' | 'none';
const PENDING_STATES = new Set(['created', 'retry', 'active']);

export function encodingQueueState(boss: PgBoss) {
  return async (jobId: string): Promise<QueueState> => {
    const jobs = await boss.findJobs<EncodingJobData>(QUEUES.encodingJob, { data: { jobId } });
    if (jobs.length === 0) return 'none';
    return jobs.some((job) => PENDING_STATES.has(job.state)) ? 'pending' : 'ended';
  };
}

/** How long a job may be New or Processing before the sweep asks the queue about it. */
export const ENCODING_SWEEP_AFTER_MS = 2 * 60_000;
const SWEEP_BATCH = 200;

/**
 * The sweep (encoding README "Guarantees"): a row that is New or Processing while the queue holds no job that may
 * still run it would stay so for ever. Its queue job ran out of retries (the worker died on every try, e.g. killed
 * for memory): Error `workerLost`, quota settled. It was never sent (the process stopped between the rows'
 * commit and the send): it is sent now.
 */
export async function sweepEncodingJobs(
  repo: EncodingRepo,
  runner: EncodingRunner,
  queueState: (jobId: string) => Promise<QueueState>,
  enqueue: EnqueueEncoding,
  now = new Date(),
) {
  const result = { abandoned: 0, resent: 0 };
  for (const row of await repo.liveSince(new Date(now.getTime() - ENCODING_SWEEP_AFTER_MS), SWEEP_BATCH)) {
    const state = await queueState(row.id);
    if (state === 'pending') continue;
    if (state === 'none' && row.status === 'New') {
      await enqueue(row);
      result.resent++;
    } else {
      await runner.abandon(row.id, mediaMessages.workerLost);
      result.abandoned++;
    }
  }
  return result;
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

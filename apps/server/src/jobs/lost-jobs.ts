import type { PgBoss } from 'pg-boss';

/**
 * Rows that a pg-boss job runs (an encode, a profile job) and that must never stay waiting or running for ever.
 * A row is lost when the queue holds no job that may still run it:
 * - its queue job ran out of retries (the worker died on every try: pg-boss's heartbeat failed it each time, e.g.
 *   a worker killed for memory) → the row ends with a reason the user reads;
 * - a waiting row never had a queue job (the process stopped between the rows' commit and the send) → sent now.
 * The modules' sweeps (`encoding.sweep`, `hybrik.sweep`) run this every five minutes.
 */

/** What the queue holds for a row: a job that may still run, only ended ones, or nothing at all. */
type QueueState = 'pending' | 'ended' | 'none';
const PENDING_STATES = new Set(['created', 'retry', 'active']);

/** The queue's state for the row `jobId` names in its payload (`{ jobId }`, as every such queue sends). */
export function queueStateOf(boss: PgBoss, queue: string) {
  return async (jobId: string): Promise<QueueState> => {
    const jobs = await boss.findJobs(queue, { data: { jobId } });
    if (jobs.length === 0) return 'none';
    return jobs.some((job) => PENDING_STATES.has(job.state)) ? 'pending' : 'ended';
  };
}

/** How long a row may wait or run before the sweep asks the queue about it. */
const LOST_JOB_AFTER_MS = 2 * 60_000;
const SWEEP_BATCH = 200;

/** A row waiting or running, as the sweep sees it. */
interface LiveRow {
  id: string;
  organizationId: string;
  /** Not started yet (New, queued): a row that was never sent can be sent now. */
  waiting: boolean;
}

export interface LostJobs {
  /** Rows waiting since before `before`, or running since before it, oldest first. */
  liveSince(before: Date, limit: number): Promise<LiveRow[]>;
  queueState(jobId: string): Promise<QueueState>;
  resend(row: LiveRow): Promise<void>;
  /** Ends a row whose queue job will never run again (a row that ended meanwhile stays as it is). */
  abandon(jobId: string): Promise<void>;
}

export async function sweepLostJobs(jobs: LostJobs, now = new Date()) {
  const result = { abandoned: 0, resent: 0 };
  for (const row of await jobs.liveSince(new Date(now.getTime() - LOST_JOB_AFTER_MS), SWEEP_BATCH)) {
    const state = await jobs.queueState(row.id);
    if (state === 'pending') continue;
    if (state === 'none' && row.waiting) {
      await jobs.resend(row);
      result.resent++;
    } else {
      await jobs.abandon(row.id);
      result.abandoned++;
    }
  }
  return result;
}

import { SYNC_FREQUENCY } from '@cumulo/contract';
import type { SyncJobRow } from '../sync.views.ts';

type ScheduledJob = Pick<SyncJobRow, 'frequency' | 'createdAt'>;

/**
 * The moment of day (and week, and month) a job's cycles start: the minute before it was created. Spreading jobs
 * over their creation times keeps an organisation's syncs from all starting at midnight; the minute before, not
 * the minute of, so that the schedule does not fire moments after the job was saved — the first scheduled cycle
 * is one period later, and "Run now" is there for a cycle at once.
 */
function anchorOf(job: ScheduledJob): Date {
  return new Date(job.createdAt.getTime() - 60_000);
}

/**
 * The cron expression (UTC) of a job's schedule: at the anchor's minute and hour every day, every week on the
 * anchor's weekday, or every month on the anchor's day (capped at the 28th, so February runs too).
 */
export function cronOf(job: ScheduledJob): string {
  const at = anchorOf(job);
  const time = `${at.getUTCMinutes()} ${at.getUTCHours()}`;
  if (job.frequency === SYNC_FREQUENCY.weekly) return `${time} * * ${at.getUTCDay()}`;
  if (job.frequency === SYNC_FREQUENCY.monthly) return `${time} ${Math.min(at.getUTCDate(), 28)} * *`;
  return `${time} * * *`;
}

/** When the schedule of `cronOf(job)` fires next after `now`. */
export function nextRunOf(job: ScheduledJob, now: Date): Date {
  const at = anchorOf(job);
  const next = new Date(now);
  next.setUTCSeconds(0, 0);
  next.setUTCHours(at.getUTCHours(), at.getUTCMinutes());
  if (job.frequency === SYNC_FREQUENCY.monthly) {
    next.setUTCDate(Math.min(at.getUTCDate(), 28));
    if (next <= now) next.setUTCMonth(next.getUTCMonth() + 1);
    return next;
  }
  if (job.frequency === SYNC_FREQUENCY.weekly) {
    next.setUTCDate(next.getUTCDate() + ((at.getUTCDay() - next.getUTCDay() + 7) % 7));
    if (next <= now) next.setUTCDate(next.getUTCDate() + 7);
    return next;
  }
  if (next <= now) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}

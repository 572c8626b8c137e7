import type { PgBoss } from 'pg-boss';
import { LOCAL_CONCURRENCY, NOTIFY_POLLING_SECONDS, QUEUES, SYNC_CYCLES_PER_ORG } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { SyncCycleJob, SyncCycleService, SyncTriggerJob } from './sync-cycles.service.ts';

/**
 * The handlers of `sync.trigger` (a job's schedule fired), `sync.cycle` (advance one cycle) and `sync.sweep`
 * (every minute, and once at start-up: a restarted worker picks up cycles its predecessor left at once).
 */
export async function registerSyncJobs(
  boss: PgBoss,
  syncCycles: SyncCycleService,
  log: Logger,
  schedule: boolean,
) {
  await boss.work<SyncTriggerJob>(QUEUES.syncTrigger, async ([job]) => {
    if (!job) return;
    const cycle = await syncCycles.trigger(job.data.syncJobId);
    if (cycle) log.info({ syncJobId: job.data.syncJobId, cycleId: cycle.id }, 'sync cycle scheduled');
    return { cycleId: cycle?.id ?? null };
  });
  const cycleOptions = {
    localConcurrency: LOCAL_CONCURRENCY[QUEUES.syncCycle],
    groupConcurrency: SYNC_CYCLES_PER_ORG,
    notifyPollingIntervalSeconds: NOTIFY_POLLING_SECONDS,
  };
  await boss.work<SyncCycleJob>(QUEUES.syncCycle, cycleOptions, async ([job]) => {
    if (!job) return;
    try {
      const outcome = await syncCycles.advance(job.data.cycleId);
      log.info({ cycleId: job.data.cycleId, outcome }, 'sync cycle step finished');
      return { outcome };
    } catch (error) {
      // pg-boss retries the job; the step resumes from what it wrote.
      log.error({ err: error, cycleId: job.data.cycleId }, 'sync cycle step failed');
      throw error;
    }
  });
  await boss.work(QUEUES.syncSweep, async () => {
    const result = await syncCycles.sweep();
    if (result.queued || result.purged || result.dropped) log.info(result, 'sync cycles swept');
    return result;
  });
  if (schedule) {
    await boss.schedule(QUEUES.syncSweep, '* * * * *');
    await boss.send(QUEUES.syncSweep, {});
  }
}

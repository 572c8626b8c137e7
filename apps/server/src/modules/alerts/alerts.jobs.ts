import type { PgBoss } from 'pg-boss';
import { LOCAL_CONCURRENCY, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { AlertsRepo } from './alerts.repo.ts';
import type { AlertsService } from './alerts.service.ts';

interface AlertCheckJob {
  organizationId: string;
}

/** Queues a check of one organisation's alerts; a check already waiting absorbs the new request (stately queue). */
export function enqueueAlertCheck(boss: PgBoss) {
  return async (organizationId: string) => {
    await boss.send(QUEUES.alertsCheck, { organizationId } satisfies AlertCheckJob, {
      singletonKey: organizationId,
    });
  };
}

/** Alert checks: after every finished inventory, and a sweep of every organisation with alerts each 15 minutes. */
export async function registerAlertJobs(
  boss: PgBoss,
  service: AlertsService,
  repo: AlertsRepo,
  log: Logger,
  schedule: boolean,
) {
  const options = { localConcurrency: LOCAL_CONCURRENCY[QUEUES.alertsCheck] };
  await boss.work<AlertCheckJob>(QUEUES.alertsCheck, options, async ([job]) => {
    if (!job) return;
    const result = await service.check(job.data.organizationId);
    if (result.fired) log.info({ organizationId: job.data.organizationId, ...result }, 'alert check');
    return result;
  });
  await boss.work(QUEUES.alertsSweep, async () => {
    const enqueue = enqueueAlertCheck(boss);
    const organizations = await repo.organizationsWithAlerts();
    for (const id of organizations) await enqueue(id);
    return { queued: organizations.length };
  });
  if (schedule) await boss.schedule(QUEUES.alertsSweep, '*/15 * * * *');
}

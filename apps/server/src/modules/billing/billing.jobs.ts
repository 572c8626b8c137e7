import type { PgBoss } from 'pg-boss';
import { QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { BillingService } from './billing.service.ts';

/**
 * The daily billing roll: subscriptions whose period ended are canceled or renewed with their invoice. Safe to run
 * twice (BillingService.rollDue re-checks each subscription under its lock and writes a period's invoice once).
 */
export async function registerBillingJobs(
  boss: PgBoss,
  service: BillingService,
  log: Logger,
  schedule: boolean,
) {
  await boss.work(QUEUES.billingRoll, async () => {
    const rolled = await service.rollDue();
    if (rolled) log.info({ rolled }, 'billing roll');
    return { rolled };
  });
  // Early each day (UTC), so a period that ended overnight is invoiced before the working day.
  if (schedule) await boss.schedule(QUEUES.billingRoll, '15 0 * * *');
}

import { PgBoss } from 'pg-boss';
import type { Logger } from '../logger.ts';

/** Queue names, one place. Each handler is safe to run twice (STYLE.md "Jobs"). */
export const QUEUES = {
  purgeExpiredIdentity: 'identity.purge-expired',
  inventoryAccount: 'inventory.account',
  inventorySweep: 'inventory.sweep',
  alertsCheck: 'alerts.check',
  alertsSweep: 'alerts.sweep',
} as const;

export interface BossOptions {
  connectionString: string;
  /** Runs cron schedules and maintenance (the worker and all-in-one roles). */
  schedule: boolean;
}

export async function startBoss(options: BossOptions, log: Logger): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: options.connectionString,
    schema: 'pgboss',
    application_name: 'cumulo-jobs',
    schedule: options.schedule,
    supervise: options.schedule,
    max: 5,
  });
  boss.on('error', (error: unknown) => log.error({ err: error }, 'job queue error'));
  await boss.start();
  for (const name of Object.values(QUEUES)) await boss.createQueue(name);
  return boss;
}

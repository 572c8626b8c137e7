import type { PgBoss } from 'pg-boss';
import type { Logger } from '../logger.ts';
import type { WorkerServices } from '../worker-services.ts';
import { withJobContext } from './job-context.ts';
import { registerIdentityJobs } from '../modules/identity/identity.jobs.ts';
import { registerInventoryJobs } from '../modules/cloud-accounts/cloud-accounts.jobs.ts';
import { enqueueAlertCheck, registerAlertJobs } from '../modules/alerts/alerts.jobs.ts';
import { registerUploadJobs } from '../modules/uploads/uploads.jobs.ts';
import { registerTransferJobs } from '../modules/transfers/transfers.jobs.ts';
import { registerSyncJobs } from '../modules/sync/sync.jobs.ts';
import { registerEncodingJobs } from '../modules/encoding/encoding.jobs.ts';
import { registerHybrikJobs } from '../modules/hybrik/hybrik.jobs.ts';
import { registerBillingJobs } from '../modules/billing/billing.jobs.ts';
import { registerAnalyticsJobs } from '../modules/analytics/analytics.jobs.ts';
import { enqueueFinanceEvaluation, registerFinanceJobs } from '../modules/finance/finance.jobs.ts';

/** Every job handler of the worker role, in one place; `schedule` also installs the cron sweeps. */
export async function registerJobs(queue: PgBoss, services: WorkerServices, log: Logger, schedule: boolean) {
  // Every handler runs in its job's context: its log lines name the job and the request that sent it.
  const boss = withJobContext(queue, log);
  await registerIdentityJobs(boss, services.identityRepo, log, schedule);
  await registerInventoryJobs(
    boss,
    services.inventory,
    services.cloudAccountsRepo,
    log,
    schedule,
    enqueueAlertCheck(boss),
  );
  await registerAnalyticsJobs(
    boss,
    services.analyticsIngest,
    services.analyticsRepo,
    log,
    schedule,
    // New bills move budgets and the accounts' billed cost, which cost alerts compare.
    async (organizationId) => {
      await enqueueFinanceEvaluation(boss)(organizationId);
      await enqueueAlertCheck(boss)(organizationId);
    },
  );
  await registerFinanceJobs(boss, services.financeAlerts, services.financeDigest, log, schedule);
  await registerAlertJobs(boss, services.alerts, services.alertsRepo, log, schedule);
  await registerUploadJobs(boss, services.uploads, log, schedule);
  await registerTransferJobs(
    boss,
    {
      executor: services.transferExecutor,
      repo: services.transfersRepo,
      itemQueue: services.transferQueueRepo,
      accounts: services.cloudAccountsRepo,
      stores: services.stores,
      copier: services.transferCopier,
      retention: services.transferRetention,
    },
    services.transferJobsPerOrganization,
    log,
    schedule,
  );
  await registerSyncJobs(boss, services.syncCycles, log, schedule);
  await registerEncodingJobs(boss, services.encodingRunner, () => services.encodingSweep(), log, schedule);
  await registerHybrikJobs(boss, services.hybrikRunner, () => services.hybrikSweep(), log, schedule);
  await registerBillingJobs(boss, services.billingRoll, log, schedule);
}

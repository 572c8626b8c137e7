import type { PgBoss } from 'pg-boss';
import { FINANCE_DIGEST_CRON } from '@cumulo/contract';
import { QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { FinanceAlertsService } from './finance-alerts.service.ts';
import type { FinanceDigest } from './finance-digest.ts';

interface FinanceEvaluateJob {
  organizationId: string;
}

/** Queues an evaluation of one organisation's budget alerts; one already waiting absorbs it (stately queue). */
export function enqueueFinanceEvaluation(boss: PgBoss) {
  return async (organizationId: string) => {
    await boss.send(QUEUES.financeEvaluate, { organizationId } satisfies FinanceEvaluateJob, {
      singletonKey: organizationId,
    });
  };
}

/** Budget alert evaluations (after every ingestion and saved alert) and, with `schedule`, the hourly digest check. */
export async function registerFinanceJobs(
  boss: PgBoss,
  alerts: FinanceAlertsService,
  digest: FinanceDigest,
  log: Logger,
  schedule: boolean,
) {
  await boss.work<FinanceEvaluateJob>(QUEUES.financeEvaluate, async ([job]) => {
    if (!job) return;
    const result = await alerts.evaluate(job.data.organizationId);
    if (result.fired) log.info({ organizationId: job.data.organizationId, ...result }, 'budget alerts fired');
    return result;
  });
  await boss.work(QUEUES.financeDigest, async () => digest.runDue());
  if (schedule) await boss.schedule(QUEUES.financeDigest, FINANCE_DIGEST_CRON);
}

import type { PgBoss } from 'pg-boss';
import { ANALYTICS_INGEST_CRON } from '@cumulo/contract';
import { QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { AnalyticsRepo } from './analytics.repo.ts';
import type { IngestJob, IngestRun } from './ingest/ingest-run.ts';

/**
 * Queues one ingestion of an account's billing bucket and records it as a queued run. The queue is `stately` and
 * keyed by account (jobs/boss.ts): two runs of one account never overlap, a request made while one runs gets one
 * later run, and requests piling up behind it collapse into that one (and so does their run row).
 */
export function enqueueIngest(boss: PgBoss, repo: AnalyticsRepo) {
  return async (job: IngestJob) => {
    await repo.queueRun(job.organizationId, job.accountId, job.trigger);
    await boss.send(QUEUES.analyticsIngest, job, { singletonKey: job.accountId });
  };
}

/** The ingestion handler (one account per job) and, with `schedule`, the six-hourly sweep of every billing bucket. */
export async function registerAnalyticsJobs(
  boss: PgBoss,
  ingest: IngestRun,
  repo: AnalyticsRepo,
  log: Logger,
  schedule: boolean,
  /** After a run finishes: budget alerts (modules/finance) and cost alerts (modules/alerts) compare the new bills. */
  afterIngest: (organizationId: string) => Promise<void> = async () => {},
) {
  await boss.work<IngestJob>(QUEUES.analyticsIngest, async ([job]) => {
    if (!job) return;
    const result = await ingest.run(job.data);
    await afterIngest(job.data.organizationId);
    return result;
  });
  await boss.work(QUEUES.analyticsSweep, async () => {
    const enqueue = enqueueIngest(boss, repo);
    const accounts = await repo.accountsWithBillingBucket();
    for (const account of accounts)
      await enqueue({ organizationId: account.organizationId, accountId: account.id, trigger: 'schedule' });
    log.info({ queued: accounts.length }, 'billing report sweep queued');
    return { queued: accounts.length };
  });
  if (schedule) await boss.schedule(QUEUES.analyticsSweep, ANALYTICS_INGEST_CRON);
}

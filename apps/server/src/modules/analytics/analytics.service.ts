import { analyticsMessages, type AnalyticsRunView } from '@cumulo/contract';
import { authorize, requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { AnalyticsRepo, IngestRunRow } from './analytics.repo.ts';
import type { IngestJob } from './ingest/ingest-run.ts';

/** How many runs GET /analytics/runs lists: enough for days of six-hourly runs and the refreshes among them. */
const RUNS_LISTED = 50;

/** The analytics calls of this session: a refresh on demand and the list of an account's ingestion runs. */
export class AnalyticsService {
  constructor(
    private readonly repo: AnalyticsRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly enqueueIngest: (job: IngestJob) => Promise<void>,
  ) {}

  /** POST /analytics/refresh: queues an ingestion of the account's billing bucket now. */
  async refresh(principal: Principal, cloudId: string) {
    const account = await this.accounts.find(principal.organizationId, cloudId);
    if (!account) throw notFound();
    authorize(principal, 'analytics.refresh');
    if (!account.billingBucket) throw badRequest(analyticsMessages.noBillingBucket(account.name));
    await this.enqueueIngest({
      organizationId: principal.organizationId,
      accountId: account.id,
      trigger: 'manual',
    });
    return { message: analyticsMessages.refreshing(account.name) };
  }

  /** GET /analytics/runs: the account's ingestion runs, newest first, with their errors in words. */
  async runs(principal: Principal, cloudId: string): Promise<AnalyticsRunView[]> {
    requireService(principal, 'analytics');
    const account = await this.accounts.find(principal.organizationId, cloudId);
    if (!account) throw notFound();
    const rows = await this.repo.runsOf(principal.organizationId, account.id, RUNS_LISTED);
    return rows.map(runView);
  }
}

const runView = (row: IngestRunRow): AnalyticsRunView => ({
  id: row.id,
  cloud_account_id: row.cloudAccountId,
  trigger: row.trigger,
  state: row.state,
  queued_at: row.queuedAt.toISOString(),
  started_at: row.startedAt?.toISOString() ?? null,
  finished_at: row.finishedAt?.toISOString() ?? null,
  periods_seen: row.periodsSeen,
  periods_replaced: row.periodsReplaced,
  periods_skipped: row.periodsSkipped,
  rows: row.rows,
  error: row.error,
});

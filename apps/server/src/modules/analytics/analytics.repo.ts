import { and, asc, desc, eq, isNotNull, sql } from 'drizzle-orm';
import type { IngestTrigger } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import {
  analyticsDailyCosts,
  analyticsIngestRuns,
  analyticsMonthlyCosts,
  analyticsReportPeriods,
  cloudAccounts,
} from '../../db/schema/index.ts';
import type { ReportPeriod, RollupRow } from './ingest/report-types.ts';

export type IngestRunRow = typeof analyticsIngestRuns.$inferSelect;
type ReportPeriodRow = typeof analyticsReportPeriods.$inferSelect;

/** How a finished run went. */
export interface RunOutcome {
  state: 'succeeded' | 'failed';
  periodsSeen: number;
  periodsReplaced: number;
  periodsSkipped: number;
  rows: number;
  error: string | null;
}

/** Rollup rows per insert: one statement binds one array per column, so the size only bounds a statement's work. */
const ROLLUP_BATCH = 5000;

/** SQL of billing-report ingestion: runs, the periods kept and their daily rollups; every query names the organisation. */
export class AnalyticsRepo {
  constructor(readonly orm: Database) {}

  /**
   * Records a requested run as queued, unless one of the account already waits: requests piling up behind a
   * waiting job collapse into it (the queue is `stately`), and so do their runs.
   */
  async queueRun(organizationId: string, accountId: string, trigger: IngestTrigger): Promise<void> {
    await this.orm.execute(sql`
      insert into ${analyticsIngestRuns} (organization_id, cloud_account_id, trigger)
      select ${organizationId}, ${accountId}, ${trigger}
      where not exists (
        select 1 from ${analyticsIngestRuns}
        where organization_id = ${organizationId} and cloud_account_id = ${accountId} and state = 'queued')`);
  }

  /** Marks the account's waiting run as running (or records one, for a job queued without a run row). */
  async startRun(organizationId: string, accountId: string, trigger: IngestTrigger): Promise<string> {
    const [queued] = await this.orm
      .select({ id: analyticsIngestRuns.id })
      .from(analyticsIngestRuns)
      .where(
        and(
          eq(analyticsIngestRuns.organizationId, organizationId),
          eq(analyticsIngestRuns.cloudAccountId, accountId),
          eq(analyticsIngestRuns.state, 'queued'),
        ),
      )
      .orderBy(asc(analyticsIngestRuns.queuedAt))
      .limit(1);
    const startedAt = new Date();
    if (queued) {
      await this.orm
        .update(analyticsIngestRuns)
        .set({ state: 'running', startedAt })
        .where(
          and(eq(analyticsIngestRuns.id, queued.id), eq(analyticsIngestRuns.organizationId, organizationId)),
        );
      return queued.id;
    }
    const [row] = await this.orm
      .insert(analyticsIngestRuns)
      .values({ organizationId, cloudAccountId: accountId, trigger, state: 'running', startedAt })
      .returning({ id: analyticsIngestRuns.id });
    if (!row) throw new Error('ingest run insert returned nothing');
    return row.id;
  }

  async finishRun(organizationId: string, runId: string, outcome: RunOutcome): Promise<void> {
    await this.orm
      .update(analyticsIngestRuns)
      .set({ ...outcome, finishedAt: new Date() })
      .where(and(eq(analyticsIngestRuns.id, runId), eq(analyticsIngestRuns.organizationId, organizationId)));
  }

  async runsOf(organizationId: string, accountId: string, limit: number): Promise<IngestRunRow[]> {
    return this.orm
      .select()
      .from(analyticsIngestRuns)
      .where(
        and(
          eq(analyticsIngestRuns.organizationId, organizationId),
          eq(analyticsIngestRuns.cloudAccountId, accountId),
        ),
      )
      .orderBy(desc(analyticsIngestRuns.queuedAt), desc(analyticsIngestRuns.startedAt))
      .limit(limit);
  }

  /** The account's current periods (the versions a run compares the manifests with). */
  async currentPeriods(organizationId: string, accountId: string): Promise<ReportPeriodRow[]> {
    return this.orm
      .select()
      .from(analyticsReportPeriods)
      .where(
        and(
          eq(analyticsReportPeriods.organizationId, organizationId),
          eq(analyticsReportPeriods.cloudAccountId, accountId),
          eq(analyticsReportPeriods.current, true),
        ),
      );
  }

  /** Deletes staged versions a crashed run left behind (with their rollups); only one run of an account runs at once. */
  async discardStaged(organizationId: string, accountId: string): Promise<void> {
    await this.orm
      .delete(analyticsReportPeriods)
      .where(
        and(
          eq(analyticsReportPeriods.organizationId, organizationId),
          eq(analyticsReportPeriods.cloudAccountId, accountId),
          eq(analyticsReportPeriods.current, false),
        ),
      );
  }

  /**
   * Writes a new version of a period beside the current one: a period row not yet current, and its rollup rows
   * in multi-row inserts. Nothing reads staged rows (every read joins the current period); `swapPeriod` makes them
   * the period's data, `discardStaged` removes them.
   */
  async stagePeriod(
    organizationId: string,
    accountId: string,
    period: ReportPeriod,
    rollups: RollupRow[],
  ): Promise<string> {
    const [row] = await this.orm
      .insert(analyticsReportPeriods)
      .values({
        organizationId,
        cloudAccountId: accountId,
        report: period.report,
        period: period.period,
        layout: period.layout,
        version: period.version,
        manifestKey: period.manifestKey,
        current: false,
        lineItems: rollups.reduce((sum, r) => sum + r.lineItems, 0),
        costNano: rollups.reduce((sum, r) => sum + r.costNano, 0n),
      })
      .returning({ id: analyticsReportPeriods.id });
    if (!row) throw new Error('report period insert returned nothing');
    for (let start = 0; start < rollups.length; start += ROLLUP_BATCH) {
      await this.#insertRollups(
        organizationId,
        accountId,
        row.id,
        rollups.slice(start, start + ROLLUP_BATCH),
      );
    }
    return row.id;
  }

  /** One statement per batch: each column travels as one array parameter through `unnest`. */
  async #insertRollups(organizationId: string, accountId: string, periodId: string, rows: RollupRow[]) {
    const column = <T>(pick: (row: RollupRow) => T) => sql.param(rows.map(pick));
    await this.orm.execute(sql`
      insert into ${analyticsDailyCosts} (organization_id, cloud_account_id, period_id, day, usage_account_id,
        line_item_type, product_code, usage_type, operation, region, resource_id, cost_nano, usage_amount, line_items)
      select ${organizationId}, ${accountId}, ${periodId}, v.*
      from unnest(${column((r) => r.day)}::date[], ${column((r) => r.usageAccountId)}::text[],
        ${column((r) => r.lineItemType)}::text[], ${column((r) => r.productCode)}::text[],
        ${column((r) => r.usageType)}::text[], ${column((r) => r.operation)}::text[],
        ${column((r) => r.region)}::text[], ${column((r) => r.resourceId)}::text[],
        ${column((r) => r.costNano.toString())}::bigint[], ${column((r) => r.usageAmount)}::double precision[],
        ${column((r) => r.lineItems)}::int[]) as v`);
  }

  /**
   * In ONE transaction: the previous version of the period (its row and, by cascade, its rollups) is deleted, the
   * staged days are summed into the period's monthly rollup, and the staged version becomes current. Readers see the old version or the new one, never both nor neither.
   */
  async swapPeriod(organizationId: string, accountId: string, stagedId: string): Promise<void> {
    await this.orm.transaction(async (tx) => {
      const [staged] = await tx
        .select()
        .from(analyticsReportPeriods)
        .where(
          and(
            eq(analyticsReportPeriods.id, stagedId),
            eq(analyticsReportPeriods.organizationId, organizationId),
            eq(analyticsReportPeriods.cloudAccountId, accountId),
          ),
        )
        .for('update');
      if (!staged) throw new Error('the staged report period vanished before its swap');
      const samePeriod = and(
        eq(analyticsReportPeriods.organizationId, organizationId),
        eq(analyticsReportPeriods.cloudAccountId, accountId),
        eq(analyticsReportPeriods.layout, staged.layout),
        eq(analyticsReportPeriods.report, staged.report),
        eq(analyticsReportPeriods.period, staged.period),
        eq(analyticsReportPeriods.current, true),
      );
      const previous = await tx
        .select({ id: analyticsReportPeriods.id })
        .from(analyticsReportPeriods)
        .where(samePeriod)
        .for('update');
      for (const old of previous) {
        await tx
          .delete(analyticsDailyCosts)
          .where(
            and(
              eq(analyticsDailyCosts.organizationId, organizationId),
              eq(analyticsDailyCosts.periodId, old.id),
            ),
          );
        await tx
          .delete(analyticsMonthlyCosts)
          .where(
            and(
              eq(analyticsMonthlyCosts.organizationId, organizationId),
              eq(analyticsMonthlyCosts.periodId, old.id),
            ),
          );
      }
      await tx.delete(analyticsReportPeriods).where(samePeriod);
      // The month's rollup is summed from the staged days inside this transaction, so it turns current with them.
      await tx.execute(sql`
        insert into ${analyticsMonthlyCosts} (organization_id, cloud_account_id, period_id, month, usage_account_id,
          line_item_type, product_code, usage_type, operation, region, resource_id, cost_nano, usage_amount,
          line_items, last_day)
        select organization_id, cloud_account_id, period_id, ${staged.period}, usage_account_id, line_item_type,
          product_code, usage_type, operation, region, resource_id, sum(cost_nano)::bigint, sum(usage_amount),
          sum(line_items)::int, max(day)
        from ${analyticsDailyCosts}
        where organization_id = ${organizationId} and period_id = ${stagedId}
        group by organization_id, cloud_account_id, period_id, usage_account_id, line_item_type, product_code,
          usage_type, operation, region, resource_id`);
      await tx
        .update(analyticsReportPeriods)
        .set({ current: true, ingestedAt: new Date() })
        .where(
          and(
            eq(analyticsReportPeriods.id, stagedId),
            eq(analyticsReportPeriods.organizationId, organizationId),
          ),
        );
    });
  }

  /** The current daily rollups of an account (newest day last), as the analytics calls will read them. */
  async currentRollups(organizationId: string, accountId: string) {
    return this.orm
      .select({
        day: analyticsDailyCosts.day,
        lineItemType: analyticsDailyCosts.lineItemType,
        productCode: analyticsDailyCosts.productCode,
        resourceId: analyticsDailyCosts.resourceId,
        costNano: analyticsDailyCosts.costNano,
        usageAmount: analyticsDailyCosts.usageAmount,
        lineItems: analyticsDailyCosts.lineItems,
      })
      .from(analyticsDailyCosts)
      .innerJoin(
        analyticsReportPeriods,
        and(
          eq(analyticsReportPeriods.id, analyticsDailyCosts.periodId),
          eq(analyticsReportPeriods.current, true),
        ),
      )
      .where(
        and(
          eq(analyticsDailyCosts.organizationId, organizationId),
          eq(analyticsDailyCosts.cloudAccountId, accountId),
        ),
      )
      .orderBy(
        asc(analyticsDailyCosts.day),
        asc(analyticsDailyCosts.productCode),
        asc(analyticsDailyCosts.lineItemType),
        asc(analyticsDailyCosts.resourceId),
      );
  }

  /** Says on the account why its billing bucket could not be read (null once a run could). */
  async setBillingError(organizationId: string, accountId: string, error: string | null): Promise<void> {
    await this.orm
      .update(cloudAccounts)
      .set({ billingError: error })
      .where(and(eq(cloudAccounts.id, accountId), eq(cloudAccounts.organizationId, organizationId)));
  }

  /** Every account with a billing bucket, for the six-hourly sweep (ids only). */
  async accountsWithBillingBucket(): Promise<Array<{ id: string; organizationId: string }>> {
    return this.orm
      .select({ id: cloudAccounts.id, organizationId: cloudAccounts.organizationId })
      .from(cloudAccounts)
      .where(isNotNull(cloudAccounts.billingBucket));
  }
}

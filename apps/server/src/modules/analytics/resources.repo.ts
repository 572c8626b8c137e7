import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { chosenPeriodsOf } from './analytics-costs.repo.ts';
import {
  analyticsDailyCosts,
  analyticsReportPeriods,
  cloudAccounts,
  transferBatches,
} from '../../db/schema/index.ts';

/** A month as the rollups are queried: its first day and the next month's first day ('YYYY-MM-DD'). */
export interface MonthRange {
  from: string;
  to: string;
}

/** One resource's month, per usage type (a resource sits in one region; its rows carry it). */
export interface ResourceUsageRow {
  resourceId: string;
  region: string;
  usageType: string;
  costNano: bigint;
  usageAmount: number;
  /** The last day ('YYYY-MM-DD') with usage (not fees, credits or tax) of this usage type, null without. */
  lastUsageDay: string | null;
}

interface FinishedTransferRow {
  id: string;
  transferredSize: number;
  finishedAt: Date;
  sourceProvider: string | null;
  destinationName: string | null;
  destinationBucket: string;
}

/** Line-item types that mean the resource was used that day (the others are billed once, whatever ran). */
const USAGE_TYPES = sql`('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage')`;

/**
 * SQL of the resource, transfer and estimate calls (modules/analytics README "Resources, invoices, transfers
 * and estimates"): reads the current versions of the daily rollups and Cumulo's own transfer batches. Every query
 * names the organisation.
 */
export class ResourcesRepo {
  constructor(private readonly orm: Database) {}

  /**
   * The month's rows of one product whose resource id matches `resource` (a LIKE pattern), per resource, region
   * and usage type, summed in SQL as exact nano-dollars; of one usage (linked) account when one is named.
   */
  async resourceUsage(
    organizationId: string,
    accountId: string,
    month: MonthRange,
    productCode: string,
    resource: string,
    usageAccountId?: string,
  ): Promise<ResourceUsageRow[]> {
    const result = await this.orm.execute<{
      resource_id: string;
      region: string;
      usage_type: string;
      cost_nano: string;
      usage_amount: number;
      last_usage_day: string | null;
    }>(sql`
      select d.resource_id, d.region, d.usage_type, sum(d.cost_nano)::text as cost_nano,
             sum(d.usage_amount)::float8 as usage_amount,
             max(d.day) filter (where d.line_item_type in ${USAGE_TYPES})::text as last_usage_day
      from ${analyticsDailyCosts} d
      join (${chosenPeriodsOf(organizationId, accountId)}) p on p.id = d.period_id
      where ${this.#month(organizationId, accountId, month)}
        and d.product_code = ${productCode} and d.resource_id like ${resource}
        ${usageAccountId === undefined ? sql`` : sql`and d.usage_account_id = ${usageAccountId}`}
      group by d.resource_id, d.region, d.usage_type
      order by d.resource_id, d.usage_type`);
    return result.rows.map((row) => ({
      resourceId: row.resource_id,
      region: row.region,
      usageType: row.usage_type,
      costNano: BigInt(row.cost_nano),
      usageAmount: Number(row.usage_amount),
      lastUsageDay: row.last_usage_day,
    }));
  }

  /** The month's last day with any data of the account ('YYYY-MM-DD'), null when the month has none. */
  async lastDataDay(organizationId: string, accountId: string, month: MonthRange): Promise<string | null> {
    const result = await this.orm.execute<{ day: string | null }>(sql`
      select max(d.day)::text as day
      from ${analyticsDailyCosts} d
      join (${chosenPeriodsOf(organizationId, accountId)}) p on p.id = d.period_id
      where ${this.#month(organizationId, accountId, month)}`);
    return result.rows[0]?.day ?? null;
  }

  /**
   * The month's AmazonS3 cost per account and bucket (resource id) of the organisation, and the accounts whose
   * ingested reports cover the month at all (their buckets without a line were billed nothing).
   */
  async billedBuckets(
    organizationId: string,
    month: MonthRange,
  ): Promise<{ costs: Map<string, bigint>; reported: Set<string> }> {
    const [costs, reported] = await Promise.all([
      this.orm.execute<{ cloud_account_id: string; resource_id: string; cost_nano: string }>(sql`
        select d.cloud_account_id, d.resource_id, sum(d.cost_nano)::text as cost_nano
        from ${analyticsDailyCosts} d
        join (${chosenPeriodsOf(organizationId, null)}) p on p.id = d.period_id
        where d.organization_id = ${organizationId} and d.day >= ${month.from}::date and d.day < ${month.to}::date
          and d.product_code = 'AmazonS3' and d.resource_id <> ''
        group by d.cloud_account_id, d.resource_id`),
      this.orm.execute<{ cloud_account_id: string }>(sql`
        select distinct p.cloud_account_id
        from ${analyticsReportPeriods} p
        where p.organization_id = ${organizationId} and p.current and p.period = ${month.from.slice(0, 7)}`),
    ]);
    return {
      costs: new Map(
        costs.rows.map((row) => [bucketKey(row.cloud_account_id, row.resource_id), BigInt(row.cost_nano)]),
      ),
      reported: new Set(reported.rows.map((row) => row.cloud_account_id)),
    };
  }

  /**
   * Per account of the organisation whose reports were ingested: the newest month they hold ('YYYY-MM') and its
   * billed total in nano-dollars, every product and line-item type (the accounts list's `total_cost`).
   */
  async newestBilledMonths(
    organizationId: string,
  ): Promise<Map<string, { month: string; costNano: bigint }>> {
    const result = await this.orm.execute<{
      cloud_account_id: string;
      period: string;
      cost_nano: string;
    }>(sql`
      select distinct on (p.cloud_account_id) p.cloud_account_id, p.period, p.cost_nano::text as cost_nano
      from (${chosenPeriodsOf(organizationId, null)}) p
      order by p.cloud_account_id, p.period desc`);
    return new Map(
      result.rows.map((row) => [
        row.cloud_account_id,
        { month: row.period, costNano: BigInt(row.cost_nano) },
      ]),
    );
  }

  /** The organisation's latest finished transfer batches, newest first, with their source's provider. */
  async finishedTransfers(organizationId: string, limit: number): Promise<FinishedTransferRow[]> {
    const result = await this.orm.execute<{
      id: string;
      transferred_size: string;
      finished_at: Date | string;
      source_provider: string | null;
      destination_name: string | null;
      destination_bucket: string;
    }>(sql`
      select b.id, b.transferred_size::text as transferred_size, b.finished_at,
             s.provider as source_provider, d.name as destination_name, b.destination_bucket
      from ${transferBatches} b
      left join ${cloudAccounts} s on s.id = b.source_cloud_account_id
      left join ${cloudAccounts} d on d.id = b.destination_cloud_account_id
      where b.organization_id = ${organizationId} and b.finished_at is not null
      order by b.finished_at desc, b.id desc
      limit ${limit}`);
    return result.rows.map((row) => ({
      id: row.id,
      transferredSize: Number(row.transferred_size),
      finishedAt: new Date(row.finished_at),
      sourceProvider: row.source_provider,
      destinationName: row.destination_name,
      destinationBucket: row.destination_bucket,
    }));
  }

  #month(organizationId: string, accountId: string, month: MonthRange): SQL {
    return sql`d.organization_id = ${organizationId} and d.cloud_account_id = ${accountId}
      and d.day >= ${month.from}::date and d.day < ${month.to}::date`;
  }
}

export const bucketKey = (accountId: string, bucket: string) => `${accountId}\n${bucket}`;

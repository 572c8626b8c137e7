import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { analyticsIngestRuns, analyticsMonthlyCosts, analyticsReportPeriods } from '../../db/schema/index.ts';

/** What the read calls narrow to: the organisation always, one account or all of them, a usage account. */
export interface CostScope {
  organizationId: string;
  /** null: every account of the organisation (the dashboard). */
  accountId: string | null;
  /** A usage (linked) account id of the report, or null for all. */
  usageAccountId: string | null;
}

/** Sums come back as decimal text of nano-dollars: the service turns them into bigint, then dollars once. */
interface MonthProductSum {
  productCode: string;
  lineItemType: string;
  costNano: bigint;
  /** 'YYYY-MM-DD' */
  lastDay: string;
}

interface UsageSum {
  usageType: string;
  operation: string;
  region: string;
  costNano: bigint;
  usageAmount: number;
}

export interface ResourceSum {
  resourceId: string;
  usageType: string;
  operation: string;
  costNano: bigint;
}

interface PeriodHeld {
  month: string;
  costNano: bigint;
  /** ISO 8601 (UTC). */
  ingestedAt: string | null;
}

export interface AccountMonthSum extends MonthProductSum {
  cloudAccountId: string;
  /** 'YYYY-MM' */
  month: string;
}

interface DashboardSum {
  cloudAccountId: string;
  productCode: string;
  usageType: string;
  resourceId: string | null;
  costNano: bigint;
}

/**
 * SQL of the analytics read calls (issue 24). They read `analytics_monthly_costs`, the per-month rollup the swap
 * writes beside the daily rows, and only the periods each month is read from (`chosenPeriods`). Every query names
 * the organisation; money is summed as bigint in PostgreSQL and leaves it as text.
 */
export class AnalyticsCostsRepo {
  constructor(private readonly orm: Database) {}

  /** The month's cost per product code and line-item type, with the last day of data of each. */
  async monthByProduct(scope: CostScope, month: string): Promise<MonthProductSum[]> {
    const result = await this.orm.execute<{
      product_code: string;
      line_item_type: string;
      cost_nano: string;
      last_day: string;
    }>(sql`
      ${chosenPeriods(scope)}
      select m.product_code, m.line_item_type, sum(m.cost_nano)::text as cost_nano, max(m.last_day)::text as last_day
      from ${analyticsMonthlyCosts} m join chosen c on c.id = m.period_id
      where ${monthRows(scope, month)}
      group by m.product_code, m.line_item_type`);
    return result.rows.map((row) => ({
      productCode: row.product_code,
      lineItemType: row.line_item_type,
      costNano: BigInt(row.cost_nano),
      lastDay: row.last_day,
    }));
  }

  /** Each month's cost from `from` to `to` ('YYYY-MM', inclusive); months without data are absent. */
  async monthTotals(scope: CostScope, from: string, to: string): Promise<Map<string, bigint>> {
    const result = await this.orm.execute<{ month: string; cost_nano: string }>(sql`
      ${chosenPeriods(scope)}
      select m.month, sum(m.cost_nano)::text as cost_nano
      from ${analyticsMonthlyCosts} m join chosen c on c.id = m.period_id
      where m.organization_id = ${scope.organizationId} and m.month between ${from} and ${to}
        ${accountFilter(scope)}
      group by m.month`);
    return new Map(result.rows.map((row) => [row.month, BigInt(row.cost_nano)]));
  }

  /** The products' month by usage type, operation and region. */
  async usageOf(scope: CostScope, month: string, productCodes: readonly string[]): Promise<UsageSum[]> {
    const result = await this.orm.execute<{
      usage_type: string;
      operation: string;
      region: string;
      cost_nano: string;
      usage_amount: number;
    }>(sql`
      ${chosenPeriods(scope)}
      select m.usage_type, m.operation, m.region, sum(m.cost_nano)::text as cost_nano,
        sum(m.usage_amount) as usage_amount
      from ${analyticsMonthlyCosts} m join chosen c on c.id = m.period_id
      where ${monthRows(scope, month)} and m.product_code = any(${sql.param([...productCodes])}::text[])
      group by m.usage_type, m.operation, m.region`);
    return result.rows.map((row) => ({
      usageType: row.usage_type,
      operation: row.operation,
      region: row.region,
      costNano: BigInt(row.cost_nano),
      usageAmount: Number(row.usage_amount),
    }));
  }

  /** One product's month by resource id ('' = unattributed), usage type and operation. */
  async resourcesOf(scope: CostScope, month: string, productCode: string): Promise<ResourceSum[]> {
    const result = await this.orm.execute<{
      resource_id: string;
      usage_type: string;
      operation: string;
      cost_nano: string;
    }>(sql`
      ${chosenPeriods(scope)}
      select m.resource_id, m.usage_type, m.operation, sum(m.cost_nano)::text as cost_nano
      from ${analyticsMonthlyCosts} m join chosen c on c.id = m.period_id
      where ${monthRows(scope, month)} and m.product_code = ${productCode}
      group by m.resource_id, m.usage_type, m.operation`);
    return result.rows.map((row) => ({
      resourceId: row.resource_id,
      usageType: row.usage_type,
      operation: row.operation,
      costNano: BigInt(row.cost_nano),
    }));
  }

  /**
   * The months the account's reports hold, newest first, with their cost and when they were read; narrowed to one
   * usage account, each month's cost is that account's ($0 in a month that bills it nothing).
   */
  async periodsHeld(scope: CostScope): Promise<PeriodHeld[]> {
    const cost =
      scope.usageAccountId === null
        ? sql`c.cost_nano`
        : sql`coalesce((select sum(m.cost_nano) from ${analyticsMonthlyCosts} m
            where m.period_id = c.id and m.organization_id = ${scope.organizationId}
              and m.usage_account_id = ${scope.usageAccountId}), 0)`;
    const result = await this.orm.execute<{
      period: string;
      cost_nano: string;
      ingested_at: string | null;
    }>(sql`
      ${chosenPeriods(scope)}
      select c.period, (${cost})::text as cost_nano, ${isoText(sql`c.ingested_at`)} as ingested_at
      from chosen c order by c.period desc`);
    return result.rows.map((row) => ({
      month: row.period,
      costNano: BigInt(row.cost_nano),
      ingestedAt: row.ingested_at,
    }));
  }

  /** The usage (linked) accounts the account's reports name. */
  async usageAccounts(scope: CostScope): Promise<string[]> {
    const result = await this.orm.execute<{ usage_account_id: string }>(sql`
      ${chosenPeriods(scope)}
      select distinct m.usage_account_id
      from ${analyticsMonthlyCosts} m join chosen c on c.id = m.period_id
      where m.organization_id = ${scope.organizationId} ${accountFilter(scope)}
      order by m.usage_account_id`);
    return result.rows.map((row) => row.usage_account_id);
  }

  /** When a run last read the account's billing bucket successfully (ISO 8601). */
  async lastSucceededAt(organizationId: string, accountId: string): Promise<string | null> {
    const result = await this.orm.execute<{ finished_at: string | null }>(sql`
      select ${isoText(sql`max(finished_at)`)} as finished_at from ${analyticsIngestRuns}
      where organization_id = ${organizationId} and cloud_account_id = ${accountId} and state = 'succeeded'`);
    return result.rows[0]?.finished_at ?? null;
  }

  /**
   * Finance's actuals (issue 25): each month from `from` to `to` ('YYYY-MM', inclusive) per account, product code and
   * line-item type, with the month's last day of data, over one account or all of the organisation's.
   */
  async monthsByAccountProduct(
    scope: Pick<CostScope, 'organizationId' | 'accountId'>,
    from: string,
    to: string,
  ): Promise<AccountMonthSum[]> {
    const full: CostScope = { ...scope, usageAccountId: null };
    const result = await this.orm.execute<{
      cloud_account_id: string;
      month: string;
      product_code: string;
      line_item_type: string;
      cost_nano: string;
      last_day: string;
    }>(sql`
      ${chosenPeriods(full)}
      select m.cloud_account_id, m.month, m.product_code, m.line_item_type, sum(m.cost_nano)::text as cost_nano,
        max(m.last_day)::text as last_day
      from ${analyticsMonthlyCosts} m join chosen c on c.id = m.period_id
      where m.organization_id = ${scope.organizationId} and m.month between ${from} and ${to}
        ${accountFilter(full)}
      group by m.cloud_account_id, m.month, m.product_code, m.line_item_type`);
    return result.rows.map((row) => ({
      cloudAccountId: row.cloud_account_id,
      month: row.month,
      productCode: row.product_code,
      lineItemType: row.line_item_type,
      costNano: BigInt(row.cost_nano),
      lastDay: row.last_day,
    }));
  }

  /** The accounts of the organisation with at least one current report period. */
  async accountsWithReports(organizationId: string): Promise<Set<string>> {
    const result = await this.orm.execute<{ cloud_account_id: string }>(sql`
      select distinct cloud_account_id from ${analyticsReportPeriods}
      where organization_id = ${organizationId} and current`);
    return new Set(result.rows.map((row) => row.cloud_account_id));
  }

  /**
   * The month's costliest (account, product, usage type, resource) items over the organisation's accounts; the
   * resource is kept only for the products named in `resourceProducts` (buckets, databases), else null.
   */
  async costliestItems(
    scope: CostScope,
    month: string,
    resourceProducts: readonly string[],
    limit: number,
  ): Promise<DashboardSum[]> {
    const result = await this.orm.execute<{
      cloud_account_id: string;
      product_code: string;
      usage_type: string;
      resource_id: string | null;
      cost_nano: string;
    }>(sql`
      ${chosenPeriods(scope)}
      select m.cloud_account_id, m.product_code, m.usage_type, r.resource_id, sum(m.cost_nano)::text as cost_nano
      from ${analyticsMonthlyCosts} m join chosen c on c.id = m.period_id,
        lateral (select case when m.product_code = any(${sql.param([...resourceProducts])}::text[])
          then m.resource_id end as resource_id) r
      where ${monthRows(scope, month)}
      group by m.cloud_account_id, m.product_code, m.usage_type, r.resource_id
      order by sum(m.cost_nano) desc, m.product_code, m.usage_type
      limit ${limit}`);
    return result.rows.map((row) => ({
      cloudAccountId: row.cloud_account_id,
      productCode: row.product_code,
      usageType: row.usage_type,
      resourceId: row.resource_id,
      costNano: BigInt(row.cost_nano),
    }));
  }
}

/**
 * `with chosen as (…)`: per account and month, the ONE current report period the calls read. A bucket may hold
 * several reports of the same month (a daily and an hourly CUR, a legacy report beside a CUR 2.0 export), each the
 * whole bill: summing them would count it twice. The one with the most line items is the most detailed (resource
 * ids, hours); ties go to CUR 2.0, then the report's name, so the choice is stable.
 */
function chosenPeriods(scope: CostScope): SQL {
  return sql`with chosen as (${chosenPeriodsOf(scope.organizationId, scope.accountId)})`;
}

/**
 * The periods the read calls sum, as a subquery: of each account and month, one current period — the report with
 * the most line items, then CUR 2.0, then by name — so two reports of one bill in a bucket (daily and hourly, or
 * legacy beside 2.0) are never added up. Every read of the rollups joins it, so they all count the same report.
 */
export function chosenPeriodsOf(organizationId: string, accountId: string | null): SQL {
  const account = accountId === null ? sql`` : sql`and cloud_account_id = ${accountId}`;
  return sql`select distinct on (cloud_account_id, period) id, cloud_account_id, period, cost_nano, ingested_at
    from ${analyticsReportPeriods}
    where organization_id = ${organizationId} and current ${account}
    order by cloud_account_id, period, line_items desc, layout desc, report`;
}

function accountFilter(scope: CostScope): SQL {
  const account = scope.accountId === null ? sql`` : sql`and m.cloud_account_id = ${scope.accountId}`;
  const usage = scope.usageAccountId === null ? sql`` : sql`and m.usage_account_id = ${scope.usageAccountId}`;
  return sql`${account} ${usage}`;
}

function monthRows(scope: CostScope, month: string): SQL {
  return sql`m.organization_id = ${scope.organizationId} and m.month = ${month} ${accountFilter(scope)}`;
}

/** A timestamptz as ISO 8601 text in UTC, as the answers carry it (raw queries return timestamps as text). */
function isoText(value: SQL): SQL {
  return sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

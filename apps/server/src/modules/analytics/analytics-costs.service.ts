import {
  ALLOCATION_PRODUCTS,
  COST_CATEGORIES,
  PROJECTED_LINE_ITEM_TYPES,
  UNATTRIBUTED,
  analyticsReadMessages,
  costCategoryOf,
  productLabelOf,
  type AllocationMonthlyCost,
  type AllocationProduct,
  type AnalyticsOverview,
  type AnalyticsPeriods,
  type AnalyticsPeriodsQuery,
  type AnalyticsQuery,
  type BucketCost,
  type DashboardAnalyticsItem,
  type DatabaseCost,
  type ProductTotalCost,
} from '@cumulo/contract';
import { requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import { requirePackage, type Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { AnalyticsCostsRepo, CostScope, ResourceSum } from './analytics-costs.repo.ts';

/** How many items the dashboard shows (spec 000 §3 "Analytics items shown on the dashboard"). */
const DASHBOARD_ITEMS = 10;
/** The trend's length: the year ending at the chosen month. */
const TREND_MONTHS = 12;
const S3 = 'AmazonS3';
const RDS = 'AmazonRDS';
const PROJECTED: ReadonlySet<string> = new Set(PROJECTED_LINE_ITEM_TYPES);

/** Nano-dollars to dollars, once, after every sum was made in integers. */
const dollars = (nano: bigint) => Number(nano) / 1e9;

/**
 * The analytics read calls (issue 24; spec 002 §7 "Analytics and cost"): an account's month from its billing
 * reports' rollups. Every call needs the analytics ACL and the Analytics package, and reads only an account of the
 * caller's organisation.
 */
export class AnalyticsCostsService {
  constructor(
    private readonly repo: AnalyticsCostsRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly entitlements: Pick<Entitlements, 'may'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** GET /analytics: categories, the month's actual and forecast, the cards' figures and the year's trend. */
  async overview(principal: Principal, query: AnalyticsQuery): Promise<AnalyticsOverview> {
    const { scope, month, accountId } = await this.#scope(principal, query);
    const [sums, totals, ingestedAt] = await Promise.all([
      this.repo.monthByProduct(scope, month),
      this.repo.monthTotals(scope, shiftMonth(month, 1 - TREND_MONTHS), month),
      this.repo.lastSucceededAt(principal.organizationId, accountId),
    ]);
    let actual = 0n;
    let projected = 0n;
    let dataThrough: string | null = null;
    const byProduct = new Map<string, bigint>();
    const byType = new Map<string, bigint>();
    for (const sum of sums) {
      actual += sum.costNano;
      if (PROJECTED.has(sum.lineItemType)) projected += sum.costNano;
      byProduct.set(sum.productCode, (byProduct.get(sum.productCode) ?? 0n) + sum.costNano);
      byType.set(sum.lineItemType, (byType.get(sum.lineItemType) ?? 0n) + sum.costNano);
      if (dataThrough === null || sum.lastDay > dataThrough) dataThrough = sum.lastDay;
    }
    const categoryCost = (name: string) =>
      [...byProduct]
        .filter(([code]) => costCategoryOf(code) === name)
        .reduce((total, [, cost]) => total + cost, 0n);
    const categories = COST_CATEGORIES.map((name) => {
      const products = [...byProduct]
        .filter(([code]) => costCategoryOf(code) === name)
        .sort(costliestFirst)
        .map(([code, cost]) => ({ label: productLabelOf(code), name: code, monthly_actual: dollars(cost) }));
      return { name, monthly_actual: dollars(categoryCost(name)), size: products.length, products };
    }).filter((category) => category.size > 0);
    return {
      month,
      categories,
      monthly_actual: dollars(actual),
      monthly_forecast: dollars(
        forecastNano(actual, projected, dataThrough, month, currentMonth(this.now())),
      ),
      compute_cost: dollars(categoryCost('Compute')),
      storage_cost: dollars(categoryCost('Storage')),
      line_item_types: [...byType]
        .sort(costliestFirst)
        .map(([type, cost]) => ({ line_item_type: type, cost: dollars(cost) })),
      trend: Array.from({ length: TREND_MONTHS }, (_, index) => {
        const at = shiftMonth(month, index + 1 - TREND_MONTHS);
        return { month: at, monthly_actual: dollars(totals.get(at) ?? 0n) };
      }),
      data_through: dataThrough,
      ingested_at: ingestedAt,
    };
  }

  /** GET /analytics/product: every product code's month, costliest first. */
  async products(principal: Principal, query: AnalyticsQuery): Promise<ProductTotalCost[]> {
    const { scope, month } = await this.#scope(principal, query);
    const byProduct = new Map<string, bigint>();
    for (const sum of await this.repo.monthByProduct(scope, month))
      byProduct.set(sum.productCode, (byProduct.get(sum.productCode) ?? 0n) + sum.costNano);
    return [...byProduct].sort(costliestFirst).map(([code, cost]) => ({
      product_code: code,
      label: productLabelOf(code),
      total_cost: dollars(cost),
    }));
  }

  /** GET /analytics/allocation/{product}: one product's month by usage type, operation and region. */
  async allocation(
    principal: Principal,
    product: AllocationProduct,
    query: AnalyticsQuery,
  ): Promise<AllocationMonthlyCost> {
    const { scope, month } = await this.#scope(principal, query);
    const sums = await this.repo.usageOf(scope, month, ALLOCATION_PRODUCTS[product]);
    const usage = new Map<string, { cost: bigint; amount: number }>();
    const operations = new Map<string, bigint>();
    const regions = new Map<string, bigint>();
    let total = 0n;
    for (const sum of sums) {
      total += sum.costNano;
      const held = usage.get(sum.usageType) ?? { cost: 0n, amount: 0 };
      usage.set(sum.usageType, { cost: held.cost + sum.costNano, amount: held.amount + sum.usageAmount });
      operations.set(sum.operation, (operations.get(sum.operation) ?? 0n) + sum.costNano);
      regions.set(sum.region, (regions.get(sum.region) ?? 0n) + sum.costNano);
    }
    return {
      product,
      total_cost: dollars(total),
      usage_types: [...usage]
        .map(([type, held]): [string, bigint, number] => [type, held.cost, held.amount])
        .sort((a, b) => compareCost(a[1], b[1]) || a[0].localeCompare(b[0]))
        .map(([type, cost, amount]) => ({ usage_type: type, cost: dollars(cost), usage_amount: amount })),
      operations: [...operations]
        .sort(costliestFirst)
        .map(([operation, cost]) => ({ operation, cost: dollars(cost) })),
      regions: [...regions].sort(costliestFirst).map(([region, cost]) => ({ region, cost: dollars(cost) })),
    };
  }

  /** GET /analytics/detail/buckets: the month's S3 cost per bucket → usage type → operation. */
  async buckets(principal: Principal, query: AnalyticsQuery): Promise<BucketCost[]> {
    const { scope, month } = await this.#scope(principal, query);
    return resourceTree(await this.repo.resourcesOf(scope, month, S3), (id) => id).map((node) => ({
      bucket_name: node.name,
      cost: node.cost,
      usage_types: node.usage_types,
    }));
  }

  /** GET /analytics/detail/databases: the month's RDS cost per database → usage type → operation. */
  async databases(principal: Principal, query: AnalyticsQuery): Promise<DatabaseCost[]> {
    const { scope, month } = await this.#scope(principal, query);
    return resourceTree(await this.repo.resourcesOf(scope, month, RDS), databaseNameOf).map((node) => ({
      database_name: node.name,
      cost: node.cost,
      usage_types: node.usage_types,
    }));
  }

  /**
   * GET /analytics/periods: the months held, newest first, with their cost (one linked account's when asked), and
   * every usage account the reports name (not narrowed: the filter lists them all).
   */
  async periods(principal: Principal, query: AnalyticsPeriodsQuery): Promise<AnalyticsPeriods> {
    const { scope } = await this.#scope(principal, query);
    const [months, usageAccounts] = await Promise.all([
      this.repo.periodsHeld(scope),
      this.repo.usageAccounts({ ...scope, usageAccountId: null }),
    ]);
    return {
      months: months.map((held) => ({
        month: held.month,
        cost: dollars(held.costNano),
        ingested_at: held.ingestedAt,
      })),
      usage_accounts: usageAccounts,
    };
  }

  /** GET /analytics/dashboard: this month's costliest items over every account of the organisation. */
  async dashboard(principal: Principal): Promise<DashboardAnalyticsItem[]> {
    await this.#gate(principal);
    const scope: CostScope = {
      organizationId: principal.organizationId,
      accountId: null,
      usageAccountId: null,
    };
    const items = await this.repo.costliestItems(scope, currentMonth(this.now()), [S3, RDS], DASHBOARD_ITEMS);
    return items.map((item) => ({
      cloud_account_id: item.cloudAccountId,
      product_name: productLabelOf(item.productCode),
      usage_type: item.usageType,
      total_cost: dollars(item.costNano),
      bucket_name:
        item.productCode === S3 && item.resourceId !== null ? item.resourceId || UNATTRIBUTED : null,
      database_name:
        item.productCode === RDS && item.resourceId !== null ? databaseNameOf(item.resourceId) : null,
    }));
  }

  async #gate(principal: Principal) {
    requireService(principal, 'analytics');
    await requirePackage(
      this.entitlements,
      principal.organizationId,
      'analytics',
      analyticsReadMessages.packageRequired,
    );
  }

  /**
   * The gate, then the account of the caller's organisation (404 otherwise) and the month (the current UTC month
   * when none is given). Only AWS delivers billing reports Cumulo reads: any other provider's account is a 400 in
   * words; an AWS account without a billing bucket or data answers empty months.
   */
  async #scope(principal: Principal, query: Partial<AnalyticsQuery> & { cloudId: string }) {
    await this.#gate(principal);
    const account = await this.accounts.find(principal.organizationId, query.cloudId);
    if (!account) throw notFound();
    if (account.provider !== 'aws') throw badRequest(analyticsReadMessages.noReports(account.name));
    const scope: CostScope = {
      organizationId: principal.organizationId,
      accountId: account.id,
      usageAccountId: query.awsAccountId ?? null,
    };
    return { scope, month: query.month ?? currentMonth(this.now()), accountId: account.id };
  }
}

/**
 * The month's forecast (spec 000 §5: total ÷ day of month × days in month). Only usage line items
 * (PROJECTED_LINE_ITEM_TYPES) accrue by the day; fees, tax, credits and refunds are billed once and added as they
 * are. The day is that of the last data (`data_through`): AWS delivers a day's usage hours later, so dividing by
 * today's date would under-forecast. A month already over is its actual; a month without data forecasts 0.
 */
export function forecastNano(
  actual: bigint,
  projected: bigint,
  dataThrough: string | null,
  month: string,
  current: string,
): bigint {
  if (month !== current || dataThrough === null) return actual;
  const day = Number(dataThrough.slice(8, 10));
  const [year, monthNumber] = month.split('-').map(Number);
  const daysInMonth = new Date(Date.UTC(year ?? 1970, monthNumber ?? 1, 0)).getUTCDate();
  return (projected * BigInt(daysInMonth)) / BigInt(day) + (actual - projected);
}

/** The database name in an RDS resource id (`arn:aws:rds:<region>:<account>:db:<name>`); blank → UNATTRIBUTED. */
export function databaseNameOf(resourceId: string): string {
  if (!resourceId) return UNATTRIBUTED;
  const marker = resourceId.indexOf(':db:');
  return marker >= 0 ? resourceId.slice(marker + 4) : resourceId;
}

const compareCost = (a: bigint, b: bigint) => (a > b ? -1 : a < b ? 1 : 0);
const costliestFirst = (a: [string, bigint], b: [string, bigint]) =>
  compareCost(a[1], b[1]) || a[0].localeCompare(b[0]);

function currentMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** 'YYYY-MM' moved by `by` months. */
function shiftMonth(month: string, by: number): string {
  const [year, monthNumber] = month.split('-').map(Number);
  const at = new Date(Date.UTC(year ?? 1970, (monthNumber ?? 1) - 1 + by, 1));
  return at.toISOString().slice(0, 7);
}

/** Resource → usage type → operation, each level costliest first; blank resource ids gather under UNATTRIBUTED. */
function resourceTree(sums: ResourceSum[], nameOf: (resourceId: string) => string) {
  const tree = new Map<string, Map<string, Map<string, bigint>>>();
  for (const sum of sums) {
    const name = sum.resourceId ? nameOf(sum.resourceId) : UNATTRIBUTED;
    const usage = tree.get(name) ?? new Map<string, Map<string, bigint>>();
    tree.set(name, usage);
    const operations = usage.get(sum.usageType) ?? new Map<string, bigint>();
    usage.set(sum.usageType, operations);
    operations.set(sum.operation, (operations.get(sum.operation) ?? 0n) + sum.costNano);
  }
  const total = (values: Iterable<bigint>) => [...values].reduce((t, v) => t + v, 0n);
  return [...tree]
    .map(([name, usage]) => {
      const types = [...usage].map(([type, operations]): [string, bigint, Map<string, bigint>] => [
        type,
        total(operations.values()),
        operations,
      ]);
      return { name, costNano: total(types.map((t) => t[1])), types };
    })
    .sort((a, b) => compareCost(a.costNano, b.costNano) || a.name.localeCompare(b.name))
    .map((node) => ({
      name: node.name,
      cost: dollars(node.costNano),
      usage_types: node.types
        .sort((a, b) => compareCost(a[1], b[1]) || a[0].localeCompare(b[0]))
        .map(([type, cost, operations]) => ({
          usage_type: type,
          cost: dollars(cost),
          operations: [...operations]
            .sort(costliestFirst)
            .map(([operation, value]) => ({ operation, cost: dollars(value) })),
        })),
    }));
}

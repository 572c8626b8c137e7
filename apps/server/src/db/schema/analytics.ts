import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/** One ingestion of an account's billing reports (issue 24): what started it, how it went, in words. */
export const analyticsIngestRuns = pgTable(
  'analytics_ingest_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    trigger: text('trigger', {
      enum: ['connect', 'billing_bucket_saved', 'manual', 'schedule'],
    }).notNull(),
    state: text('state', { enum: ['queued', 'running', 'succeeded', 'failed'] })
      .notNull()
      .default('queued'),
    queuedAt: timestamp('queued_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    periodsSeen: integer('periods_seen').notNull().default(0),
    periodsReplaced: integer('periods_replaced').notNull().default(0),
    periodsSkipped: integer('periods_skipped').notNull().default(0),
    /** Line items read by this run (of the periods it replaced). */
    rows: bigint('rows', { mode: 'number' }).notNull().default(0),
    /** Why the run failed, in words, naming the file and line where there is one. */
    error: text('error'),
  },
  (t) => [index('analytics_ingest_runs_account_idx').on(t.organizationId, t.cloudAccountId, t.queuedAt)],
);

/**
 * The report periods kept: one current row per (account, layout, report, period). A new version is written under a new
 * row with `current` false (staged), then one transaction marks it current and deletes the previous row and its
 * rollups (analytics.repo.ts `swapPeriod`).
 */
export const analyticsReportPeriods = pgTable(
  'analytics_report_periods',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    report: text('report').notNull(),
    /** 'YYYY-MM' */
    period: text('period').notNull(),
    layout: text('layout', { enum: ['cur-legacy', 'cur2'] }).notNull(),
    version: text('version').notNull(),
    manifestKey: text('manifest_key').notNull(),
    current: boolean('current').notNull().default(false),
    lineItems: bigint('line_items', { mode: 'number' }).notNull().default(0),
    costNano: bigint('cost_nano', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    ingestedAt: timestamp('ingested_at', { withTimezone: true }),
  },
  (t) => [
    // At most one current version of a period; staged rows (current = false) may sit beside it.
    uniqueIndex('analytics_report_periods_current_key')
      .on(t.cloudAccountId, t.layout, t.report, t.period)
      .where(sql`${t.current}`),
    index('analytics_report_periods_org_idx').on(t.organizationId, t.cloudAccountId),
  ],
);

/** Daily cost and usage of a period, per usage account, line-item type, product, usage type, operation, region, resource. */
export const analyticsDailyCosts = pgTable(
  'analytics_daily_costs',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    periodId: uuid('period_id')
      .notNull()
      .references(() => analyticsReportPeriods.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    usageAccountId: text('usage_account_id').notNull(),
    lineItemType: text('line_item_type').notNull(),
    productCode: text('product_code').notNull(),
    usageType: text('usage_type').notNull(),
    operation: text('operation').notNull(),
    region: text('region').notNull(),
    /** '' is the unattributed group (a blank resource id in the report). */
    resourceId: text('resource_id').notNull(),
    costNano: bigint('cost_nano', { mode: 'bigint' }).notNull(),
    usageAmount: doublePrecision('usage_amount').notNull(),
    lineItems: integer('line_items').notNull(),
  },
  (t) => [
    index('analytics_daily_costs_day_idx').on(t.organizationId, t.cloudAccountId, t.day),
    index('analytics_daily_costs_product_idx').on(t.organizationId, t.cloudAccountId, t.productCode, t.day),
    index('analytics_daily_costs_period_idx').on(t.periodId),
  ],
);

/**
 * The month of a period per usage account, line-item type, product, usage type, operation, region and resource:
 * the daily rows summed, written by the same swap transaction as they are (analytics.repo.ts `swapPeriod`), so the
 * read calls sum ~30 times fewer rows than the daily table holds (README "Rollups").
 */
export const analyticsMonthlyCosts = pgTable(
  'analytics_monthly_costs',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    periodId: uuid('period_id')
      .notNull()
      .references(() => analyticsReportPeriods.id, { onDelete: 'cascade' }),
    /** 'YYYY-MM', the period's month. */
    month: text('month').notNull(),
    usageAccountId: text('usage_account_id').notNull(),
    lineItemType: text('line_item_type').notNull(),
    productCode: text('product_code').notNull(),
    usageType: text('usage_type').notNull(),
    operation: text('operation').notNull(),
    region: text('region').notNull(),
    /** '' is the unattributed group (a blank resource id in the report). */
    resourceId: text('resource_id').notNull(),
    costNano: bigint('cost_nano', { mode: 'bigint' }).notNull(),
    usageAmount: doublePrecision('usage_amount').notNull(),
    lineItems: integer('line_items').notNull(),
    /** The last day of the month with a line of this key. */
    lastDay: date('last_day', { mode: 'string' }).notNull(),
  },
  (t) => [
    index('analytics_monthly_costs_month_idx').on(t.organizationId, t.cloudAccountId, t.month),
    // The dashboard reads one month of every account of the organisation.
    index('analytics_monthly_costs_org_month_idx').on(t.organizationId, t.month),
    index('analytics_monthly_costs_period_idx').on(t.periodId),
  ],
);

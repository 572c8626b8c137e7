import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { CostCategory, LogsFrequency } from '@cumulo/contract';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/**
 * One month's budget of one cloud account and label (issue 25; spec 002 §3 "Budget row"). `label` is
 * `BUDGET_TOTAL_LABEL` for the cloud's own budget, else a product code or a custom product's name (its sub budgets).
 * Money in integer cents. A yearly amount is stored spread over its months; no row means no budget.
 */
export const financeBudgets = pgTable(
  'finance_budgets',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    /** The month's first day. */
    month: date('month', { mode: 'string' }).notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.cloudAccountId, t.label, t.month] }),
    index('finance_budgets_org_month_idx').on(t.organizationId, t.month),
  ],
);

/** A custom product (spec 002 §3 "Product (custom)"): a name budgets can be set for, with its category. */
export const financeProducts = pgTable(
  'finance_products',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    category: text('category').$type<CostCategory>().notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('finance_products_org_name_idx').on(t.organizationId, sql`lower(${t.name})`)],
);

/**
 * A budget alert (spec 002 §3 "Budget alert"): one per cloud account and label. A percentage is null when that
 * alert is off. `start`/`end` are first days of months, inclusive.
 */
export const financeAlerts = pgTable(
  'finance_alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    actualPercent: integer('actual_percent'),
    forecastPercent: integer('forecast_percent'),
    start: date('start', { mode: 'string' }).notNull(),
    end: date('end', { mode: 'string' }).notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('finance_alerts_org_cloud_label_idx').on(t.organizationId, t.cloudAccountId, t.label)],
);

/**
 * One firing of an alert: at most one per alert, month and kind (AWS Budgets: an alert fires once per period, on
 * the first crossing). The primary key is the guarantee: the evaluation that inserts the row is the one that
 * notifies, so a re-delivered month or two evaluations at once never notify twice.
 */
export const financeAlertFirings = pgTable(
  'finance_alert_firings',
  {
    alertId: uuid('alert_id')
      .notNull()
      .references(() => financeAlerts.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    month: date('month', { mode: 'string' }).notNull(),
    kind: text('kind', { enum: ['actual', 'forecast'] }).notNull(),
    /** What crossed: the actual or forecast and the budget, in cents, and the threshold. */
    valueCents: bigint('value_cents', { mode: 'number' }).notNull(),
    budgetCents: bigint('budget_cents', { mode: 'number' }).notNull(),
    percent: integer('percent').notNull(),
    firedAt: timestamp('fired_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.month, t.kind] })],
);

/** Finance settings of an organisation (spec 002 §3 "Finance settings"); no row means the defaults. */
export const financeSettings = pgTable('finance_settings', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  alertEmails: text('alert_emails')
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  logsEmails: text('logs_emails')
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  logsFrequency: text('logs_frequency').$type<LogsFrequency>().notNull().default('Monthly'),
  showDollarSign: boolean('show_dollar_sign').notNull().default(true),
  showDecimal: boolean('show_decimal').notNull().default(true),
  showBorder: boolean('show_border').notNull().default(true),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One audit digest per organisation and period (a day, a week from Monday or a calendar month, UTC): the row is
 * claimed before the mail goes, so two workers never send one period twice; `sentAt` null with `error` set is a
 * failed attempt the next hourly check retries.
 */
export const financeDigests = pgTable(
  'finance_digests',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    frequency: text('frequency').$type<LogsFrequency>().notNull(),
    periodStart: timestamp('period_start', { withTimezone: true }).notNull(),
    periodEnd: timestamp('period_end', { withTimezone: true }).notNull(),
    entries: integer('entries').notNull().default(0),
    recipients: integer('recipients').notNull().default(0),
    claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    error: text('error'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.frequency, t.periodStart] }),
    index('finance_digests_org_claimed_idx').on(t.organizationId, t.claimedAt),
  ],
);

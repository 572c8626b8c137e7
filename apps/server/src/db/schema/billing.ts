import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';

// Billing (modules/billing/README.md). PostgreSQL is the source of truth: a gateway (manual or Stripe) holds the
// money side, and what it says lands here through the service or a verified webhook. Money is in USD cents.

/** The organisation as a customer of the configured gateway. */
export const billingCustomers = pgTable('billing_customers', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  gateway: text('gateway', { enum: ['manual', 'stripe'] }).notNull(),
  /** The gateway's customer id (Stripe `cus_…`; the manual gateway's own id). */
  customerRef: text('customer_ref').notNull(),
  email: text('email').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/**
 * A card on file (spec 002 §3 "Payment profile"). Only brand, last 4 digits and expiry are kept; the number and
 * CVC go to the gateway and nowhere else.
 */
export const paymentProfiles = pgTable(
  'payment_profiles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    gateway: text('gateway', { enum: ['manual', 'stripe'] }).notNull(),
    /** The gateway's payment method id (Stripe `pm_…`). */
    gatewayRef: text('gateway_ref').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    cardType: text('card_type').notNull(),
    last4: text('last4').notNull(),
    expirationMonth: smallint('expiration_month').notNull(),
    expirationYear: smallint('expiration_year').notNull(),
    billingCountry: text('billing_country').notNull().default(''),
    billingZip: text('billing_zip').notNull().default(''),
    isDefault: boolean('is_default').notNull().default(false),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** Removed cards stay for the history of invoices paid with them. */
    removedAt: timestamp('removed_at', { withTimezone: true }),
  },
  (t) => [
    index('payment_profiles_org_idx').on(t.organizationId),
    uniqueIndex('payment_profiles_one_default')
      .on(t.organizationId)
      .where(sql`${t.isDefault} and ${t.removedAt} is null`),
  ],
);

/** A plan or package subscription. One live plan and one live subscription per package per organisation. */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['plan', 'package'] }).notNull(),
    productHandle: text('product_handle').notNull(),
    period: text('period', { enum: ['monthly', 'annually'] }).notNull(),
    state: text('state', { enum: ['active', 'past_due', 'pending_cancel', 'canceled'] }).notNull(),
    priceCents: bigint('price_cents', { mode: 'number' }).notNull(),
    couponCode: text('coupon_code'),
    gateway: text('gateway', { enum: ['manual', 'stripe'] }).notNull(),
    /** The gateway's subscription id (Stripe `sub_…`), null for a free plan nothing is charged for. */
    gatewayRef: text('gateway_ref'),
    currentPeriodStart: timestamp('current_period_start', { withTimezone: true }).notNull(),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }).notNull(),
    canceledAt: timestamp('canceled_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    uniqueIndex('subscriptions_one_live_product')
      .on(t.organizationId, t.productHandle)
      .where(sql`${t.state} <> 'canceled'`),
    uniqueIndex('subscriptions_one_live_plan')
      .on(t.organizationId)
      .where(sql`${t.kind} = 'plan' and ${t.state} <> 'canceled'`),
    index('subscriptions_gateway_ref_idx').on(t.gatewayRef),
  ],
);

/** The append-only history of a subscription (GET /billing/events/subscription/{id}); a trigger refuses edits. */
export const subscriptionEvents = pgTable(
  'subscription_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** created, plan_changed, canceled, cancel_scheduled, reactivated, renewed, payment_failed, payment_succeeded … */
    type: text('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    authorUserId: uuid('author_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** 'user', 'gateway' (a webhook) or 'operator'. */
    source: text('source', { enum: ['user', 'gateway', 'operator', 'system'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('subscription_events_sub_idx').on(t.subscriptionId, t.id)],
);

/** Coupons an operator created (GET /billing/coupons/validate/{code}). Codes are stored upper-case. */
export const coupons = pgTable('coupons', {
  code: text('code').primaryKey(),
  percentOff: integer('percent_off'),
  amountOffCents: bigint('amount_off_cents', { mode: 'number' }),
  validUntil: timestamp('valid_until', { withTimezone: true }),
  maxRedemptions: integer('max_redemptions'),
  timesRedeemed: integer('times_redeemed').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/**
 * Bytes counted against a quota in one period: 'trial' while the organisation has no card, else the calendar month
 * 'YYYY-MM'. `reserved` holds what queued work may still use; a reservation that would pass the limit is refused
 * by one conditional UPDATE, so concurrent requests never overshoot.
 */
export const quotaCounters = pgTable(
  'quota_counters',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    quota: text('quota').notNull(),
    period: text('period').notNull(),
    used: bigint('used', { mode: 'number' }).notNull().default(0),
    reserved: bigint('reserved', { mode: 'number' }).notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.quota, t.period] })],
);

/**
 * One piece of work's hold on a quota (a transfer batch, an upload session, an encoding job): `ref` names it.
 * Settling turns the reservation into what the work really used, once.
 */
export const quotaReservations = pgTable(
  'quota_reservations',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    quota: text('quota').notNull(),
    ref: text('ref').notNull(),
    period: text('period').notNull(),
    reserved: bigint('reserved', { mode: 'number' }).notNull().default(0),
    used: bigint('used', { mode: 'number' }).notNull().default(0),
    settledAt: timestamp('settled_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.quota, t.ref] })],
);

/** An invoice: subscription fees and metered overage of a period. The manual gateway's are marked paid by an operator. */
export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    number: bigserial('number', { mode: 'number' }).notNull(),
    subscriptionId: uuid('subscription_id').references(() => subscriptions.id, { onDelete: 'set null' }),
    state: text('state', { enum: ['open', 'paid', 'void'] }).notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    currency: text('currency').notNull().default('usd'),
    lines: jsonb('lines')
      .$type<Array<{ description: string; amount_cents: number; quantity?: number }>>()
      .notNull()
      .default([]),
    gateway: text('gateway', { enum: ['manual', 'stripe'] }).notNull(),
    gatewayRef: text('gateway_ref'),
    periodStart: timestamp('period_start', { withTimezone: true }).notNull(),
    periodEnd: timestamp('period_end', { withTimezone: true }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    paidNote: text('paid_note'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    index('invoices_org_idx').on(t.organizationId, t.createdAt),
    uniqueIndex('invoices_gateway_ref_key').on(t.gatewayRef),
  ],
);

/** A member's request to the Owner: a package, a quote, a service or more quota (spec 002 §7). */
export const billingRequests = pgTable(
  'billing_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    requesterId: uuid('requester_id').references(() => users.id, { onDelete: 'set null' }),
    kind: text('kind', { enum: ['package', 'quote', 'service', 'quota_extension'] }).notNull(),
    subject: text('subject'),
    message: text('message').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('billing_requests_org_idx').on(t.organizationId, t.createdAt)],
);

/** Webhook events already applied, by the gateway's event id: a redelivered event changes nothing. */
export const gatewayEvents = pgTable('gateway_events', {
  id: text('id').primaryKey(),
  gateway: text('gateway', { enum: ['manual', 'stripe'] }).notNull(),
  type: text('type').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

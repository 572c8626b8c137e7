import { and, asc, desc, eq, inArray, isNull, lte, ne, sql } from 'drizzle-orm';
import { ROLE_ID } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import {
  billingCustomers,
  billingRequests,
  coupons,
  gatewayEvents,
  invoices,
  organizations,
  paymentProfiles,
  quotaCounters,
  quotaReservations,
  subscriptionEvents,
  subscriptions,
  users,
} from '../../db/schema/index.ts';

export type PaymentProfileRow = typeof paymentProfiles.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;
type CouponRow = typeof coupons.$inferSelect;
export type InvoiceRow = typeof invoices.$inferSelect;
type CustomerRow = typeof billingCustomers.$inferSelect;

/** States in which a subscription still grants what it sells. */
const LIVE_STATES = ['active', 'pending_cancel', 'past_due'] as const;

/** What one quota holds in one period. */
interface Counter {
  used: number;
  reserved: number;
}

/**
 * SQL of billing: cards, subscriptions and their events, coupons, invoices, members' requests and the quota
 * counters. Every read of organisation data filters by its id.
 */
export class BillingRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: BillingRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new BillingRepo(tx as unknown as Database)));
  }

  // ——— Quotas ———

  /** Whether the organisation has a card on file: without one it is in trial. */
  async hasLiveCard(organizationId: string): Promise<boolean> {
    const [row] = await this.orm
      .select({ id: paymentProfiles.id })
      .from(paymentProfiles)
      .where(and(eq(paymentProfiles.organizationId, organizationId), isNull(paymentProfiles.removedAt)))
      .limit(1);
    return row !== undefined;
  }

  async counter(organizationId: string, quota: string, period: string): Promise<Counter> {
    const [row] = await this.orm
      .select({ used: quotaCounters.used, reserved: quotaCounters.reserved })
      .from(quotaCounters)
      .where(
        and(
          eq(quotaCounters.organizationId, organizationId),
          eq(quotaCounters.quota, quota),
          eq(quotaCounters.period, period),
        ),
      );
    return row ?? { used: 0, reserved: 0 };
  }

  /** The organisation's paid seats: its active members beyond the first (spec 002 §9: each added user is billed). */
  async seats(organizationId: string): Promise<number> {
    const [row] = await this.orm
      .select({ active: sql<number>`count(*)::int` })
      .from(users)
      .where(and(eq(users.organizationId, organizationId), eq(users.active, true)));
    return Math.max(0, (row?.active ?? 0) - 1);
  }

  async counters(organizationId: string, period: string): Promise<Map<string, Counter>> {
    const rows = await this.orm
      .select({ quota: quotaCounters.quota, used: quotaCounters.used, reserved: quotaCounters.reserved })
      .from(quotaCounters)
      .where(and(eq(quotaCounters.organizationId, organizationId), eq(quotaCounters.period, period)));
    return new Map(rows.map((r) => [r.quota, { used: r.used, reserved: r.reserved }]));
  }

  /**
   * Adds `bytes` to the period's reserved amount, only while used + reserved + bytes stays within `limit` (null:
   * no limit). One conditional UPDATE: PostgreSQL re-checks the condition on the row a concurrent reservation
   * just changed, so reservations racing each other never pass the limit together. False when refused.
   */
  async addReserved(
    organizationId: string,
    quota: string,
    period: string,
    bytes: number,
    limit: number | null,
  ): Promise<boolean> {
    await this.orm.insert(quotaCounters).values({ organizationId, quota, period }).onConflictDoNothing();
    const rows = await this.orm
      .update(quotaCounters)
      .set({ reserved: sql`${quotaCounters.reserved} + ${bytes}`, updatedAt: sql`now()` })
      .where(
        and(
          eq(quotaCounters.organizationId, organizationId),
          eq(quotaCounters.quota, quota),
          eq(quotaCounters.period, period),
          limit === null
            ? undefined
            : sql`${quotaCounters.used} + ${quotaCounters.reserved} + ${bytes} <= ${limit}`,
        ),
      )
      .returning({ used: quotaCounters.used });
    return rows.length > 0;
  }

  /**
   * Holds `bytes` for the work `ref`, added to what it already holds. A ref settled before is held anew (its
   * used bytes stay counted; the next settle adds what it uses then).
   */
  async holdReservation(organizationId: string, quota: string, ref: string, period: string, bytes: number) {
    await this.orm
      .insert(quotaReservations)
      .values({ organizationId, quota, ref, period, reserved: bytes })
      .onConflictDoUpdate({
        target: [quotaReservations.organizationId, quotaReservations.quota, quotaReservations.ref],
        set: {
          reserved: sql`case when ${quotaReservations.settledAt} is null
            then ${quotaReservations.reserved} + excluded.reserved else excluded.reserved end`,
          period: sql`case when ${quotaReservations.settledAt} is null
            then ${quotaReservations.period} else excluded.period end`,
          settledAt: sql`null`,
        },
      });
  }

  /** The reservation of `ref` while unsettled, locked until the transaction ends. */
  async lockOpenReservation(organizationId: string, quota: string, ref: string) {
    const [row] = await this.orm
      .select()
      .from(quotaReservations)
      .where(
        and(
          eq(quotaReservations.organizationId, organizationId),
          eq(quotaReservations.quota, quota),
          eq(quotaReservations.ref, ref),
          isNull(quotaReservations.settledAt),
        ),
      )
      .for('update');
    return row;
  }

  async reservationExists(organizationId: string, quota: string, ref: string): Promise<boolean> {
    const [row] = await this.orm
      .select({ ref: quotaReservations.ref })
      .from(quotaReservations)
      .where(
        and(
          eq(quotaReservations.organizationId, organizationId),
          eq(quotaReservations.quota, quota),
          eq(quotaReservations.ref, ref),
        ),
      );
    return row !== undefined;
  }

  async markSettled(organizationId: string, quota: string, ref: string, usedBytes: number) {
    await this.orm
      .update(quotaReservations)
      .set({ used: sql`${quotaReservations.used} + ${usedBytes}`, reserved: 0, settledAt: sql`now()` })
      .where(
        and(
          eq(quotaReservations.organizationId, organizationId),
          eq(quotaReservations.quota, quota),
          eq(quotaReservations.ref, ref),
        ),
      );
  }

  /** Records usage of a ref never reserved, once: false when the ref is already known. */
  async insertSettledUsage(
    organizationId: string,
    quota: string,
    ref: string,
    period: string,
    usedBytes: number,
  ): Promise<boolean> {
    const rows = await this.orm
      .insert(quotaReservations)
      .values({ organizationId, quota, ref, period, used: usedBytes, settledAt: sql`now()` })
      .onConflictDoNothing()
      .returning({ ref: quotaReservations.ref });
    return rows.length > 0;
  }

  /** Moves `released` bytes out of reserved (never below 0) and adds `used` to used. */
  async applyToCounter(
    organizationId: string,
    quota: string,
    period: string,
    released: number,
    used: number,
  ) {
    await this.orm
      .insert(quotaCounters)
      .values({ organizationId, quota, period, used })
      .onConflictDoUpdate({
        target: [quotaCounters.organizationId, quotaCounters.quota, quotaCounters.period],
        set: {
          used: sql`${quotaCounters.used} + ${used}`,
          reserved: sql`greatest(0, ${quotaCounters.reserved} - ${released})`,
          updatedAt: sql`now()`,
        },
      });
  }

  // ——— Subscriptions ———

  async livePlan(organizationId: string): Promise<SubscriptionRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(subscriptions)
      .where(
        and(
          eq(subscriptions.organizationId, organizationId),
          eq(subscriptions.kind, 'plan'),
          ne(subscriptions.state, 'canceled'),
        ),
      );
    return row;
  }

  /** The organisation's subscriptions that still grant something, oldest first. */
  async liveSubscriptions(organizationId: string): Promise<SubscriptionRow[]> {
    return this.orm
      .select()
      .from(subscriptions)
      .where(
        and(eq(subscriptions.organizationId, organizationId), inArray(subscriptions.state, [...LIVE_STATES])),
      )
      .orderBy(asc(subscriptions.createdAt));
  }

  async holdsPackage(organizationId: string, handle: string): Promise<boolean> {
    const [row] = await this.orm
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(
        and(
          eq(subscriptions.organizationId, organizationId),
          eq(subscriptions.kind, 'package'),
          eq(subscriptions.productHandle, handle),
          inArray(subscriptions.state, [...LIVE_STATES]),
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  async subscription(organizationId: string, id: string): Promise<SubscriptionRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.organizationId, organizationId), eq(subscriptions.id, id)));
    return row;
  }

  /** The subscription, locked until the transaction ends (one change at a time). */
  async lockSubscription(organizationId: string, id: string): Promise<SubscriptionRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.organizationId, organizationId), eq(subscriptions.id, id)))
      .for('update');
    return row;
  }

  async insertSubscription(values: typeof subscriptions.$inferInsert): Promise<SubscriptionRow> {
    const [row] = await this.orm.insert(subscriptions).values(values).returning();
    if (!row) throw new Error('subscription insert returned no row');
    return row;
  }

  async updateSubscription(
    organizationId: string,
    id: string,
    values: Partial<typeof subscriptions.$inferInsert>,
  ): Promise<SubscriptionRow> {
    const [row] = await this.orm
      .update(subscriptions)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(eq(subscriptions.organizationId, organizationId), eq(subscriptions.id, id)))
      .returning();
    if (!row) throw new Error('subscription update matched no row');
    return row;
  }

  /** Subscriptions of every organisation whose paid period has ended by `now` (the daily roll). */
  async subscriptionsDue(now: Date): Promise<SubscriptionRow[]> {
    return this.orm
      .select()
      .from(subscriptions)
      .where(and(inArray(subscriptions.state, [...LIVE_STATES]), lte(subscriptions.currentPeriodEnd, now)))
      .orderBy(asc(subscriptions.currentPeriodEnd));
  }

  async insertEvent(values: typeof subscriptionEvents.$inferInsert): Promise<void> {
    await this.orm.insert(subscriptionEvents).values(values);
  }

  async events(organizationId: string, subscriptionId: string) {
    return this.orm
      .select({
        id: subscriptionEvents.id,
        type: subscriptionEvents.type,
        data: subscriptionEvents.data,
        createdAt: subscriptionEvents.createdAt,
        authorEmail: users.email,
        source: subscriptionEvents.source,
      })
      .from(subscriptionEvents)
      .leftJoin(users, eq(users.id, subscriptionEvents.authorUserId))
      .where(
        and(
          eq(subscriptionEvents.organizationId, organizationId),
          eq(subscriptionEvents.subscriptionId, subscriptionId),
        ),
      )
      .orderBy(asc(subscriptionEvents.id));
  }

  // ——— Cards and customers ———

  async customer(organizationId: string): Promise<CustomerRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.organizationId, organizationId));
    return row;
  }

  async insertCustomer(values: typeof billingCustomers.$inferInsert): Promise<void> {
    await this.orm.insert(billingCustomers).values(values).onConflictDoNothing();
  }

  async liveCards(organizationId: string): Promise<PaymentProfileRow[]> {
    return this.orm
      .select()
      .from(paymentProfiles)
      .where(and(eq(paymentProfiles.organizationId, organizationId), isNull(paymentProfiles.removedAt)))
      .orderBy(desc(paymentProfiles.isDefault), asc(paymentProfiles.createdAt));
  }

  async liveCard(organizationId: string, id: string): Promise<PaymentProfileRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(paymentProfiles)
      .where(
        and(
          eq(paymentProfiles.organizationId, organizationId),
          eq(paymentProfiles.id, id),
          isNull(paymentProfiles.removedAt),
        ),
      );
    return row;
  }

  async insertCard(values: typeof paymentProfiles.$inferInsert): Promise<PaymentProfileRow> {
    const [row] = await this.orm.insert(paymentProfiles).values(values).returning();
    if (!row) throw new Error('payment profile insert returned no row');
    return row;
  }

  /** Clears the organisation's default card, so another can become it (one default per organisation). */
  async clearDefaultCard(organizationId: string) {
    await this.orm
      .update(paymentProfiles)
      .set({ isDefault: false })
      .where(and(eq(paymentProfiles.organizationId, organizationId), eq(paymentProfiles.isDefault, true)));
  }

  async removeCard(organizationId: string, id: string) {
    await this.orm
      .update(paymentProfiles)
      .set({ removedAt: sql`now()`, isDefault: false })
      .where(and(eq(paymentProfiles.organizationId, organizationId), eq(paymentProfiles.id, id)));
  }

  async makeDefaultCard(organizationId: string, id: string) {
    await this.clearDefaultCard(organizationId);
    await this.orm
      .update(paymentProfiles)
      .set({ isDefault: true })
      .where(and(eq(paymentProfiles.organizationId, organizationId), eq(paymentProfiles.id, id)));
  }

  // ——— Webhooks ———

  /** Notes a gateway event as applied; false when it was already (a redelivery). */
  async claimGatewayEvent(id: string, gateway: 'manual' | 'stripe', type: string): Promise<boolean> {
    const rows = await this.orm
      .insert(gatewayEvents)
      .values({ id, gateway, type })
      .onConflictDoNothing()
      .returning({ id: gatewayEvents.id });
    return rows.length > 0;
  }

  /** The subscription a gateway names, locked; webhooks carry no organisation, the gateway's id finds it. */
  async lockSubscriptionByRef(gatewayRef: string): Promise<SubscriptionRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.gatewayRef, gatewayRef))
      .for('update');
    return row;
  }

  /** Writes a gateway's invoice, or brings the one already written to its new state. */
  async upsertGatewayInvoice(values: typeof invoices.$inferInsert) {
    await this.orm
      .insert(invoices)
      .values(values)
      .onConflictDoUpdate({
        target: invoices.gatewayRef,
        set: { state: values.state, amountCents: values.amountCents, paidAt: values.paidAt ?? null },
      });
  }

  // ——— Coupons, invoices, requests ———

  async coupon(code: string): Promise<CouponRow | undefined> {
    const [row] = await this.orm.select().from(coupons).where(eq(coupons.code, code.toUpperCase()));
    return row;
  }

  /** Counts a redemption while the coupon has any left; false when it has none. */
  async redeemCoupon(code: string): Promise<boolean> {
    const rows = await this.orm
      .update(coupons)
      .set({ timesRedeemed: sql`${coupons.timesRedeemed} + 1` })
      .where(
        and(
          eq(coupons.code, code.toUpperCase()),
          sql`(${coupons.maxRedemptions} is null or ${coupons.timesRedeemed} < ${coupons.maxRedemptions})`,
          sql`(${coupons.validUntil} is null or ${coupons.validUntil} > now())`,
        ),
      )
      .returning({ code: coupons.code });
    return rows.length > 0;
  }

  async insertInvoice(values: typeof invoices.$inferInsert): Promise<InvoiceRow | undefined> {
    const [row] = await this.orm.insert(invoices).values(values).onConflictDoNothing().returning();
    return row;
  }

  /** The invoice of a subscription's period, if the roll already wrote it. */
  async invoiceOfPeriod(subscriptionId: string, periodStart: Date): Promise<InvoiceRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(invoices)
      .where(and(eq(invoices.subscriptionId, subscriptionId), eq(invoices.periodStart, periodStart)));
    return row;
  }

  /** Marks an open invoice paid by its number (the operator command); undefined when none is open. */
  async markInvoicePaid(number: number, note: string | null): Promise<InvoiceRow | undefined> {
    const [row] = await this.orm
      .update(invoices)
      .set({ state: 'paid', paidAt: sql`now()`, paidNote: note })
      .where(and(eq(invoices.number, number), eq(invoices.state, 'open')))
      .returning();
    return row;
  }

  async insertRequest(values: typeof billingRequests.$inferInsert): Promise<void> {
    await this.orm.insert(billingRequests).values(values);
  }

  // ——— Organisation and people ———

  async organization(organizationId: string) {
    const [row] = await this.orm.select().from(organizations).where(eq(organizations.id, organizationId));
    return row;
  }

  /** Holds the organisation's row until the transaction ends: its card and plan changes then run one at a time. */
  async lockOrganization(organizationId: string) {
    await this.orm
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for('update');
  }

  async member(organizationId: string, userId: string) {
    const [row] = await this.orm
      .select({ email: users.email, firstName: users.firstName, lastName: users.lastName })
      .from(users)
      .where(and(eq(users.organizationId, organizationId), eq(users.id, userId)));
    return row;
  }

  /** The organisation's active Owners, who receive members' requests. */
  async owners(organizationId: string) {
    return this.orm
      .select({ email: users.email, firstName: users.firstName })
      .from(users)
      .where(
        and(
          eq(users.organizationId, organizationId),
          eq(users.roleId, ROLE_ID.Owner),
          eq(users.active, true),
        ),
      );
  }
}

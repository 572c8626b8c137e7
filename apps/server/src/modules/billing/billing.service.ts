import dayjs from 'dayjs';
import {
  FREE_PLAN_HANDLE,
  PACKAGES,
  PLANS,
  billingMessages,
  messages,
  normaliseCardNumber,
  packageByHandle,
  planByHandle,
  type BillingInfoView,
  type BillingPeriod,
  type CreateSubscriptionBody,
  type CreditCardAttributes,
  type PackageDefinition,
  type PackageView,
  type PlanDefinition,
  type SubscriptionView,
} from '@cumulo/contract';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, forbidden, notFound } from '../../errors.ts';
import type { ClientInfo, IdentityService } from '../identity/identity.service.ts';
import { recordAudit } from '../audit/audit.writer.ts';
import {
  cardAdded,
  cardMadeDefault,
  cardRemoved,
  subscriptionAdded,
  subscriptionChanged,
} from './billing.audit.ts';
import type { BillingRepo, PaymentProfileRow, SubscriptionRow } from './billing.repo.ts';
import {
  cardInput,
  dollars,
  paymentProfileView,
  periodEnd,
  planView,
  subscriptionView,
} from './billing.views.ts';
import type { EntitlementsService } from './entitlements.service.ts';
import { CardDeclined, type GatewayPrice, type PaymentGateway } from './gateway.ts';

/** Who changes billing: a member acting (Principal) or, for a new desktop customer, the Owner just created. */
type Actor = Pick<Principal, 'userId' | 'organizationId' | 'role'>;

type Product = { kind: 'plan'; plan: PlanDefinition } | { kind: 'package'; pkg: PackageDefinition };

/** A plan's fee for its period, in cents (plans are priced by the month). */
const planPriceCents = (plan: PlanDefinition, period: BillingPeriod) =>
  plan.subscription_fee_monthly * 100 * (period === 'annually' ? 12 : 1);
const packagePriceCents = (pkg: PackageDefinition, period: BillingPeriod) =>
  (period === 'annually' ? pkg.price_annually : pkg.price_monthly) * 100;

const isUniqueViolation = (error: unknown) =>
  (error as { cause?: { code?: string } }).cause?.code === '23505' ||
  (error as { code?: string }).code === '23505';

/** Moves from the held plan to another: upgrades only, never to a plan sold by quote, never from a canceled one. */
function refusePlanChange(
  current: SubscriptionRow,
  target: PlanDefinition,
): asserts target is PlanDefinition & { handle: string } {
  if (current.kind !== 'plan') throw badRequest(billingMessages.notPlan);
  if (target.handle === null) throw badRequest(billingMessages.quoteNeeded);
  if (current.state === 'canceled') throw badRequest(billingMessages.alreadyCanceled);
  const from = planByHandle(current.productHandle);
  if (target.handle === current.productHandle) throw badRequest(billingMessages.samePlan);
  if (from && target.order < from.order) throw badRequest(billingMessages.downgrade);
}

/** A saved card that is the card described (last four digits and expiry, as the list shows it), other than `except`. */
function sameCard(
  saved: PaymentProfileRow[],
  card: { last4: string; expMonth: number; expYear: number },
  except: string | null,
): PaymentProfileRow | undefined {
  return saved.find(
    (row) =>
      row.id !== except &&
      row.last4 === card.last4 &&
      row.expirationMonth === card.expMonth &&
      row.expirationYear === card.expYear,
  );
}

/**
 * Plans, packages, cards and subscriptions (README "Flow"). The gateway carries out payments; PostgreSQL holds
 * the truth, and every change of a subscription writes its event in the same transaction. Only Owners change
 * anything (`billing.change`); members ask them through BillingRequests.
 */
export class BillingService {
  constructor(
    private readonly repo: BillingRepo,
    private readonly entitlements: EntitlementsService,
    private readonly gateway: PaymentGateway,
    private readonly identity: IdentityService,
    private readonly entitleAll: boolean,
    private readonly now: () => Date = () => new Date(),
  ) {}

  // ——— Reads ———

  async products(principal: Principal) {
    const plan = await this.repo.livePlan(principal.organizationId);
    return { plans: PLANS.map((p) => planView(p, plan?.productHandle ?? null)) };
  }

  async packages(principal: Principal): Promise<{ packages: PackageView[] }> {
    const live = await this.repo.liveSubscriptions(principal.organizationId);
    return {
      packages: PACKAGES.map((pkg) => {
        const sub = live.find((s) => s.kind === 'package' && s.productHandle === pkg.handle);
        return {
          id: pkg.handle,
          handle: pkg.handle,
          title: pkg.title,
          description: pkg.description,
          price_monthly: pkg.price_monthly,
          price_annually: pkg.price_annually,
          active: this.entitleAll || sub !== undefined,
          subscription_id: sub?.id ?? null,
          period: sub?.period ?? null,
        };
      }),
    };
  }

  async billingInfo(principal: Principal): Promise<BillingInfoView> {
    const org = principal.organizationId;
    const standing = await this.entitlements.standing(org);
    const [live, quota, seats] = await Promise.all([
      this.repo.liveSubscriptions(org),
      this.entitlements.usage(org, standing),
      this.repo.seats(org),
    ]);
    const planRow = live.find((s) => s.kind === 'plan');
    const plan = planRow && planByHandle(planRow.productHandle);
    return {
      plan: plan ? planView(plan, plan.handle) : null,
      subscription_id: planRow?.id ?? null,
      has_billing_info: standing.hasCard,
      in_trial: standing.inTrial,
      gateway: this.gateway.name,
      subscriptions: live.map(subscriptionView),
      quota,
      seats,
    };
  }

  async subscription(principal: Principal, id: string): Promise<SubscriptionView> {
    const row = await this.repo.subscription(principal.organizationId, id);
    if (!row) throw notFound();
    return subscriptionView(row);
  }

  async events(principal: Principal, subscriptionId: string) {
    if (!(await this.repo.subscription(principal.organizationId, subscriptionId))) throw notFound();
    const rows = await this.repo.events(principal.organizationId, subscriptionId);
    return {
      events: rows.map((e) => ({
        id: String(e.id),
        type: e.type,
        created_at: e.createdAt.toISOString(),
        author: e.authorEmail ?? (e.source === 'user' ? null : e.source),
        data: e.data,
      })),
    };
  }

  async cards(principal: Principal) {
    const rows = await this.repo.liveCards(principal.organizationId);
    return { billing_payment_profiles: rows.map(paymentProfileView) };
  }

  async validateCoupon(code: string) {
    const coupon = await this.#liveCoupon(code);
    return {
      code: code.toUpperCase(),
      valid: coupon !== undefined,
      percent_off: coupon?.percentOff ?? null,
      amount_off: coupon?.amountOffCents == null ? null : dollars(coupon.amountOffCents),
      message: coupon ? '' : billingMessages.couponInvalid,
    };
  }

  // ——— Cards ———

  async addCard(principal: Principal, card: CreditCardAttributes, makeDefault = false) {
    authorize(principal, 'billing.change');
    const row = await this.#addCard(principal, card, makeDefault);
    return { message: billingMessages.cardAdded, payment_profile: paymentProfileView(row) };
  }

  /** Replaces a card: the new one is added, the old one removed, and the default stays the default. */
  async replaceCard(principal: Principal, id: string, card: CreditCardAttributes, makeDefault = false) {
    authorize(principal, 'billing.change');
    const old = await this.repo.liveCard(principal.organizationId, id);
    if (!old) throw notFound();
    const row = await this.#addCard(principal, card, makeDefault || old.isDefault, old.id);
    await this.#removeCard(principal, old);
    return { message: billingMessages.cardAdded, payment_profile: paymentProfileView(row) };
  }

  /** PUT /billing/payment_profiles/{id}/default: the card the gateway charges from now on ("Make default"). */
  async makeDefaultCard(principal: Principal, id: string) {
    authorize(principal, 'billing.change');
    const card = await this.repo.liveCard(principal.organizationId, id);
    if (!card) throw notFound();
    if (!card.isDefault) await this.#makeDefault(principal, card);
    const row = (await this.repo.liveCard(principal.organizationId, id)) ?? card;
    const view = paymentProfileView(row);
    return { message: billingMessages.cardMadeDefault(view.masked_card_number), payment_profile: view };
  }

  async removeCard(principal: Principal, id: string) {
    authorize(principal, 'billing.change');
    const card = await this.repo.liveCard(principal.organizationId, id);
    if (!card) throw notFound();
    await this.#removeCard(principal, card);
    return { message: billingMessages.cardRemoved };
  }

  // ——— Subscriptions ———

  /** POST /billing/subscriptions/: a package, or the plan by handle (an upgrade when one is held). */
  async subscribe(principal: Principal, body: CreateSubscriptionBody) {
    authorize(principal, 'billing.change');
    const product = this.#product(body.product_handle);
    const org = principal.organizationId;
    if (product.kind === 'package') {
      const organization = await this.repo.organization(org);
      if (organization?.isCbs) throw forbidden(billingMessages.cbsNoPurchase, 'CBS');
      if (await this.repo.holdsPackage(org, product.pkg.handle))
        throw badRequest(billingMessages.alreadyHeld);
    }
    // Every refusal that does not need the card comes before the card is saved: a request refused for its coupon
    // or its plan must not leave a new default card behind.
    const current = product.kind === 'plan' ? await this.repo.livePlan(org) : null;
    if (product.kind === 'plan' && current) refusePlanChange(current, product.plan);
    if (product.kind === 'package' && body.coupon_code && !(await this.#liveCoupon(body.coupon_code)))
      throw badRequest(billingMessages.couponInvalid);
    if (body.credit_card_attributes) await this.#addCard(principal, body.credit_card_attributes, true);
    if (!(await this.repo.hasLiveCard(org))) throw badRequest(billingMessages.noCardForSubscription);

    if (product.kind === 'plan') {
      const row = current
        ? await this.#changePlan(principal, current, product.plan)
        : await this.#startPlan(principal, product.plan, body.period);
      return {
        message: billingMessages.subscribedTo(product.plan.title),
        subscription: subscriptionView(row),
      };
    }
    const row = await this.#startPackage(principal, product.pkg, body.period, body.coupon_code);
    return { message: billingMessages.subscribed, subscription: subscriptionView(row) };
  }

  /** PUT /billing/subscriptions/{id}/product_change/{productId}: upgrades only (spec 002 §4). */
  async changeProduct(principal: Principal, id: string, productId: string) {
    authorize(principal, 'billing.change');
    const current = await this.repo.subscription(principal.organizationId, id);
    if (!current) throw notFound();
    const quoted = PLANS.find((p) => p.handle === null && p.title.toLowerCase() === productId.toLowerCase());
    if (quoted) throw badRequest(billingMessages.quoteNeeded);
    const target = planByHandle(productId);
    if (!target) throw badRequest(billingMessages.unknownProduct);
    const row = await this.#changePlan(principal, current, target);
    return { message: billingMessages.subscribedTo(target.title), subscription: subscriptionView(row) };
  }

  /** DELETE /billing/subscriptions/{id}: ends the subscription when its paid period ends. */
  async cancel(principal: Principal, id: string) {
    authorize(principal, 'billing.change');
    const current = await this.repo.subscription(principal.organizationId, id);
    if (!current) throw notFound();
    if (current.state === 'canceled') throw badRequest(billingMessages.alreadyCanceled);
    if (current.kind === 'plan' && current.productHandle === FREE_PLAN_HANDLE)
      throw badRequest(billingMessages.freePlanNotCancelable);
    let row = current;
    if (current.state !== 'pending_cancel') {
      if (current.gatewayRef) await this.gateway.cancelSubscription(current.gatewayRef);
      row = await this.#change(
        principal,
        id,
        { state: 'pending_cancel', canceledAt: this.now() },
        (changed) => ({
          type: 'cancel_scheduled',
          data: { ends_at: changed.currentPeriodEnd.toISOString() },
        }),
      );
    }
    return {
      message: billingMessages.cancelScheduled(dayjs(row.currentPeriodEnd).format('YYYY-MM-DD')),
      subscription: subscriptionView(row),
    };
  }

  /** PUT /billing/subscriptions/{id}/reactivate: undoes a scheduled cancel. */
  async reactivate(principal: Principal, id: string) {
    authorize(principal, 'billing.change');
    const current = await this.repo.subscription(principal.organizationId, id);
    if (!current) throw notFound();
    if (current.state !== 'pending_cancel') throw badRequest(billingMessages.notScheduledToEnd);
    if (current.gatewayRef) await this.gateway.reactivateSubscription(current.gatewayRef);
    const row = await this.#change(principal, id, { state: 'active', canceledAt: null }, () => ({
      type: 'reactivated',
      data: {},
    }));
    return { message: billingMessages.reactivated, subscription: subscriptionView(row) };
  }

  /**
   * POST /billing/desktop/subscriptions/new_customer, signed out: a new organisation and Owner for the e-mail,
   * subscribed to the plan with the card, and a mail to set a password. An address that has an account gets a
   * mail instead; the answer is the same, so the form tells nobody who has an account.
   */
  async newCustomer(
    input: {
      productHandle: string;
      customer: { first_name: string; last_name: string; email: string };
      card: CreditCardAttributes;
      couponCode?: string;
    },
    client: ClientInfo,
  ) {
    const plan = planByHandle(input.productHandle);
    if (!plan) throw badRequest(billingMessages.unknownProduct);
    // A code that is not live is refused before an account exists. A live one has nothing to take off the free
    // plan, which costs nothing; coupons apply to packages (POST /billing/subscriptions/).
    if (input.couponCode && !(await this.#liveCoupon(input.couponCode)))
      throw badRequest(billingMessages.couponInvalid, { coupon_code: [billingMessages.couponInvalid] });
    const opened = await this.identity.openCustomerAccount(
      {
        email: input.customer.email,
        firstName: input.customer.first_name,
        lastName: input.customer.last_name,
      },
      client,
    );
    if (opened) {
      const owner: Actor = { ...opened, role: 'Owner' };
      try {
        // The first card puts the organisation on the free plan; another plan is an upgrade from it.
        await this.#addCard(owner, input.card, true);
        const current = await this.repo.livePlan(opened.organizationId);
        if (current && current.productHandle !== plan.handle) await this.#changePlan(owner, current, plan);
      } catch (error) {
        await this.identity.discardCustomerAccount(opened.organizationId);
        throw error;
      }
      await this.identity.mailPasswordSetup(opened.organizationId, opened.userId);
    }
    return { message: messages.resetEmailSent };
  }

  // ——— Inside ———

  #product(handle: string): Product {
    const plan = planByHandle(handle);
    if (plan) return { kind: 'plan', plan };
    const pkg = packageByHandle(handle);
    if (pkg) return { kind: 'package', pkg };
    throw badRequest(billingMessages.unknownProduct);
  }

  async #customerRef(actor: Actor): Promise<string> {
    const existing = await this.repo.customer(actor.organizationId);
    if (existing) return existing.customerRef;
    const [organization, member] = await Promise.all([
      this.repo.organization(actor.organizationId),
      this.repo.member(actor.organizationId, actor.userId),
    ]);
    const ref = await this.gateway.createCustomer({
      organizationId: actor.organizationId,
      name: organization?.name ?? '',
      email: member?.email ?? '',
    });
    await this.repo.insertCustomer({
      organizationId: actor.organizationId,
      gateway: this.gateway.name,
      customerRef: ref,
      email: member?.email ?? '',
    });
    return (await this.repo.customer(actor.organizationId))?.customerRef ?? ref;
  }

  /**
   * Hands the card to the gateway and keeps brand, last 4 and expiry. The first card moves the organisation out
   * of trial onto the free plan (created here when it holds none).
   */
  async #addCard(
    actor: Actor,
    card: CreditCardAttributes,
    makeDefault: boolean,
    replacing: string | null = null,
  ): Promise<PaymentProfileRow> {
    // The same card twice would be listed twice: refused before the gateway sees it, and again under the
    // organisation's lock for two adds at once (then the gateway's copy is removed). The card being replaced may be
    // given again, to change its details.
    const same = {
      last4: normaliseCardNumber(card.full_number).slice(-4),
      expMonth: card.expiration_month,
      expYear: card.expiration_year,
    };
    if (sameCard(await this.repo.liveCards(actor.organizationId), same, replacing))
      throw badRequest(billingMessages.cardAlreadySaved);
    const customerRef = await this.#customerRef(actor);
    const first = !(await this.repo.hasLiveCard(actor.organizationId));
    const stored = await this.gateway
      .addCard(customerRef, cardInput(card), makeDefault || first)
      .catch((error: unknown) => {
        // The gateway's own words (spec 002 §8: billing errors show the first provider error).
        if (error instanceof CardDeclined) throw badRequest(error.message);
        throw error;
      });
    const now = this.now();
    const added = await this.repo.transaction(async (tx) => {
      // Two first cards at once must not both create the free plan or both become the default.
      await tx.lockOrganization(actor.organizationId);
      if (sameCard(await tx.liveCards(actor.organizationId), stored, replacing)) return null;
      const isDefault = makeDefault || !(await tx.hasLiveCard(actor.organizationId));
      if (isDefault) await tx.clearDefaultCard(actor.organizationId);
      const row = await tx.insertCard({
        organizationId: actor.organizationId,
        gateway: this.gateway.name,
        gatewayRef: stored.ref,
        firstName: card.first_name,
        lastName: card.last_name,
        cardType: stored.brand,
        last4: stored.last4,
        expirationMonth: stored.expMonth,
        expirationYear: stored.expYear,
        billingCountry: card.billing_country,
        billingZip: card.billing_zip,
        isDefault,
        createdBy: actor.userId,
      });
      await recordAudit(tx.orm, actor, cardAdded(row));
      if (!(await tx.livePlan(actor.organizationId))) {
        const free = await tx.insertSubscription({
          organizationId: actor.organizationId,
          kind: 'plan',
          productHandle: FREE_PLAN_HANDLE,
          period: 'monthly',
          state: 'active',
          priceCents: 0,
          gateway: this.gateway.name,
          gatewayRef: null,
          currentPeriodStart: now,
          currentPeriodEnd: periodEnd(now, 'monthly'),
          createdBy: actor.userId,
        });
        await tx.insertEvent({
          subscriptionId: free.id,
          organizationId: actor.organizationId,
          type: 'created',
          data: { product: FREE_PLAN_HANDLE, period: 'monthly', price: 0, reason: 'first card' },
          authorUserId: actor.userId,
          source: 'user',
        });
        await recordAudit(tx.orm, actor, subscriptionAdded(free));
      }
      return row;
    });
    if (added) return added;
    await this.gateway.removeCard(customerRef, stored.ref);
    throw badRequest(billingMessages.cardAlreadySaved);
  }

  async #removeCard(actor: Actor, card: PaymentProfileRow) {
    const { organizationId } = actor;
    const customer = await this.repo.customer(organizationId);
    if (customer) await this.gateway.removeCard(customer.customerRef, card.gatewayRef);
    const next = await this.repo.transaction(async (tx) => {
      await tx.lockOrganization(organizationId);
      // Read again under the lock: a card being replaced was the default until its successor took over.
      const wasDefault = (await tx.liveCard(organizationId, card.id))?.isDefault ?? false;
      await tx.removeCard(organizationId, card.id);
      await recordAudit(tx.orm, actor, cardRemoved(card));
      if (!wasDefault) return null;
      const [first] = await tx.liveCards(organizationId);
      if (first) {
        await tx.makeDefaultCard(organizationId, first.id);
        await recordAudit(tx.orm, actor, cardMadeDefault(first));
      }
      return first ?? null;
    });
    // The gateway charges its own default: without this, Stripe would be left with none once the default card was
    // detached, and the next invoice would find no card although the page shows one as the default.
    if (next && customer) await this.gateway.setDefaultCard(customer.customerRef, next.gatewayRef);
  }

  async #makeDefault(actor: Actor, card: PaymentProfileRow) {
    const customer = await this.repo.customer(actor.organizationId);
    if (customer) await this.gateway.setDefaultCard(customer.customerRef, card.gatewayRef);
    await this.repo.transaction(async (tx) => {
      await tx.lockOrganization(actor.organizationId);
      await tx.makeDefaultCard(actor.organizationId, card.id);
      await recordAudit(tx.orm, actor, cardMadeDefault(card));
    });
  }

  async #startPlan(actor: Actor, plan: PlanDefinition, period: BillingPeriod): Promise<SubscriptionRow> {
    const priceCents = planPriceCents(plan, period);
    return this.#insertSubscription(
      actor,
      'plan',
      plan.handle ?? FREE_PLAN_HANDLE,
      period,
      priceCents,
      null,
      {
        productHandle: plan.handle ?? FREE_PLAN_HANDLE,
        title: plan.title,
        period,
        amountCents: priceCents,
      },
    );
  }

  async #startPackage(
    actor: Actor,
    pkg: PackageDefinition,
    period: BillingPeriod,
    couponCode: string | undefined,
  ): Promise<SubscriptionRow> {
    let priceCents = packagePriceCents(pkg, period);
    let coupon: { code: string; percentOff: number | null; amountOffCents: number | null } | null = null;
    if (couponCode) {
      const found = await this.#liveCoupon(couponCode);
      if (!found || !(await this.repo.redeemCoupon(found.code)))
        throw badRequest(billingMessages.couponInvalid);
      coupon = { code: found.code, percentOff: found.percentOff, amountOffCents: found.amountOffCents };
      if (found.percentOff) priceCents = Math.round((priceCents * (100 - found.percentOff)) / 100);
      if (found.amountOffCents) priceCents = Math.max(0, priceCents - found.amountOffCents);
    }
    return this.#insertSubscription(actor, 'package', pkg.handle, period, priceCents, coupon, {
      productHandle: pkg.handle,
      title: pkg.title,
      period,
      amountCents: priceCents,
    });
  }

  async #insertSubscription(
    actor: Actor,
    kind: 'plan' | 'package',
    handle: string,
    period: BillingPeriod,
    priceCents: number,
    coupon: { code: string; percentOff: number | null; amountOffCents: number | null } | null,
    price: GatewayPrice,
  ): Promise<SubscriptionRow> {
    const customerRef = await this.#customerRef(actor);
    const billed =
      priceCents > 0
        ? await this.gateway.createSubscription(customerRef, price, {
            couponCode: coupon?.code,
            percentOff: coupon?.percentOff,
            amountOffCents: coupon?.amountOffCents,
          })
        : null;
    const start = billed?.currentPeriodStart ?? this.now();
    return this.repo
      .transaction(async (tx) => {
        const row = await tx.insertSubscription({
          organizationId: actor.organizationId,
          kind,
          productHandle: handle,
          period,
          state: billed?.state ?? 'active',
          priceCents,
          couponCode: coupon?.code ?? null,
          gateway: this.gateway.name,
          gatewayRef: billed?.ref ?? null,
          currentPeriodStart: start,
          currentPeriodEnd: billed?.currentPeriodEnd ?? periodEnd(start, period),
          createdBy: actor.userId,
        });
        await tx.insertEvent({
          subscriptionId: row.id,
          organizationId: actor.organizationId,
          type: 'created',
          data: { product: handle, period, price: dollars(priceCents), coupon: coupon?.code ?? null },
          authorUserId: actor.userId,
          source: 'user',
        });
        await recordAudit(tx.orm, actor, subscriptionAdded(row));
        return row;
      })
      .catch((error: unknown) => {
        // Two subscribe calls at once: the one-live-product index lets one through.
        if (isUniqueViolation(error)) throw badRequest(billingMessages.alreadyHeld);
        throw error;
      });
  }

  async #changePlan(
    actor: Actor,
    current: SubscriptionRow,
    target: PlanDefinition,
  ): Promise<SubscriptionRow> {
    refusePlanChange(current, target);
    const priceCents = planPriceCents(target, current.period);
    const price = {
      productHandle: target.handle,
      title: target.title,
      period: current.period,
      amountCents: priceCents,
    };
    const billed = current.gatewayRef
      ? await this.gateway.changeSubscription(current.gatewayRef, price)
      : priceCents > 0
        ? await this.gateway.createSubscription(await this.#customerRef(actor), price, {})
        : null;
    return this.#change(
      actor,
      current.id,
      {
        productHandle: target.handle,
        priceCents,
        state: 'active',
        canceledAt: null,
        gatewayRef: billed?.ref ?? current.gatewayRef,
        currentPeriodStart: billed?.currentPeriodStart ?? current.currentPeriodStart,
        currentPeriodEnd: billed?.currentPeriodEnd ?? current.currentPeriodEnd,
      },
      () => ({ type: 'plan_changed', data: { from: current.productHandle, to: target.handle } }),
    );
  }

  /** Changes a subscription and writes its event in one transaction. */
  async #change(
    actor: Actor,
    id: string,
    values: Partial<SubscriptionRow>,
    event: (row: SubscriptionRow) => { type: string; data: Record<string, unknown> },
  ): Promise<SubscriptionRow> {
    return this.repo.transaction(async (tx) => {
      const before = await tx.lockSubscription(actor.organizationId, id);
      if (!before) throw notFound();
      const row = await tx.updateSubscription(actor.organizationId, id, values);
      const changed = subscriptionChanged(before, row);
      if (changed) await recordAudit(tx.orm, actor, changed);
      const { type, data } = event(row);
      await tx.insertEvent({
        subscriptionId: id,
        organizationId: actor.organizationId,
        type,
        data,
        authorUserId: actor.userId,
        source: 'user',
      });
      return row;
    });
  }

  async #liveCoupon(code: string) {
    const coupon = await this.repo.coupon(code.trim());
    if (!coupon) return undefined;
    if (coupon.validUntil && coupon.validUntil <= this.now()) return undefined;
    if (coupon.maxRedemptions !== null && coupon.timesRedeemed >= coupon.maxRedemptions) return undefined;
    return coupon;
  }
}

import dayjs from 'dayjs';
import {
  FREE_PLAN_HANDLE,
  PACKAGES,
  PLANS,
  billingMessages,
  maskCardNumber,
  messages,
  packageByHandle,
  planByHandle,
  type BillingInfoView,
  type BillingPeriod,
  type CreateSubscriptionBody,
  type CreditCardAttributes,
  type PackageDefinition,
  type PackageView,
  type PaymentProfileView,
  type PlanDefinition,
  type SubscriptionView,
} from '@cumulo/contract';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../http/auth.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import type { Logger } from '../../logger.ts';
import type { MailService } from '../../mail/mail.service.ts';
import type { ClientInfo, IdentityService } from '../identity/identity.service.ts';
import type { BillingRepo, PaymentProfileRow, SubscriptionRow } from './billing.repo.ts';
import { ownerRequestMail } from './billing.mail.ts';
import { monthPeriod, type EntitlementsService } from './entitlements.service.ts';
import {
  BadSignature,
  CardDeclined,
  type CardInput,
  type GatewayEvent,
  type GatewayPrice,
  type PaymentGateway,
} from './gateway.ts';

const GiB = 1024 ** 3;

/** Who changes billing: a member acting (Principal) or, for a new desktop customer, the Owner just created. */
type Actor = Pick<Principal, 'userId' | 'organizationId' | 'role'>;

/** A bell entry for the organisation's Owners only. */
export type OwnerBell = (notice: {
  organizationId: string;
  title: string;
  description: string;
  status: 'normal';
  link: string;
  audience: 'owners';
}) => Promise<void>;

type Product = { kind: 'plan'; plan: PlanDefinition } | { kind: 'package'; pkg: PackageDefinition };

const productTitle = (row: Pick<SubscriptionRow, 'kind' | 'productHandle'>) =>
  (row.kind === 'plan'
    ? planByHandle(row.productHandle)?.title
    : packageByHandle(row.productHandle)?.title) ?? row.productHandle;

const dollars = (cents: number) => cents / 100;

export function subscriptionView(row: SubscriptionRow): SubscriptionView {
  return {
    id: row.id,
    kind: row.kind,
    product_handle: row.productHandle,
    title: productTitle(row),
    period: row.period,
    state: row.state,
    price: dollars(row.priceCents),
    coupon_code: row.couponCode,
    current_period_started_at: row.currentPeriodStart.toISOString(),
    current_period_ends_at: row.currentPeriodEnd.toISOString(),
    canceled_at: row.canceledAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/** What an answer shows of a card: the mask and last 4, never more. */
export function paymentProfileView(row: PaymentProfileRow): PaymentProfileView {
  const brand = row.cardType as PaymentProfileView['card_type'];
  return {
    id: row.id,
    first_name: row.firstName,
    last_name: row.lastName,
    masked_card_number: maskCardNumber(row.last4),
    expiration_month: row.expirationMonth,
    expiration_year: row.expirationYear,
    card_type: brand,
    default: row.isDefault,
    created_at: row.createdAt.toISOString(),
  };
}

function planView(plan: PlanDefinition, currentHandle: string | null) {
  return {
    handle: plan.handle,
    title: plan.title,
    order: plan.order,
    subscription_fee_monthly: plan.subscription_fee_monthly,
    sub_title: plan.sub_title,
    pre_description: plan.pre_description,
    description: plan.description,
    action_text: plan.action_text,
    current: plan.handle !== null && plan.handle === currentHandle,
  };
}

function cardInput(card: CreditCardAttributes): CardInput {
  return {
    number: card.full_number,
    cvc: card.cvv,
    expMonth: card.expiration_month,
    expYear: card.expiration_year,
    firstName: card.first_name,
    lastName: card.last_name,
    address: {
      line1: card.billing_address,
      line2: card.billing_address_2,
      city: card.billing_city,
      state: card.billing_state,
      zip: card.billing_zip,
      country: card.billing_country,
    },
  };
}

/** A plan's fee for its period, in cents (plans are priced by the month). */
const planPriceCents = (plan: PlanDefinition, period: BillingPeriod) =>
  plan.subscription_fee_monthly * 100 * (period === 'annually' ? 12 : 1);
const packagePriceCents = (pkg: PackageDefinition, period: BillingPeriod) =>
  (period === 'annually' ? pkg.price_annually : pkg.price_monthly) * 100;

const periodEnd = (start: Date, period: BillingPeriod) =>
  dayjs(start)
    .add(1, period === 'annually' ? 'year' : 'month')
    .toDate();

const isUniqueViolation = (error: unknown) =>
  (error as { cause?: { code?: string } }).cause?.code === '23505' ||
  (error as { code?: string }).code === '23505';

/**
 * Plans, packages, cards and subscriptions (README "Flow"). The gateway carries out payments; PostgreSQL holds
 * the truth, and every change of a subscription writes its event in the same transaction. Only Owners change
 * anything (`billing.change`); every member may ask the Owners for something.
 */
export class BillingService {
  constructor(
    private readonly repo: BillingRepo,
    private readonly entitlements: EntitlementsService,
    private readonly gateway: PaymentGateway,
    private readonly identity: IdentityService,
    private readonly mail: MailService,
    private readonly bell: OwnerBell,
    private readonly publicUrl: string,
    private readonly log: Logger,
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
    const [live, quota] = await Promise.all([
      this.repo.liveSubscriptions(org),
      this.entitlements.usage(org, standing),
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
    const row = await this.#addCard(principal, card, makeDefault || old.isDefault);
    await this.#removeCard(principal.organizationId, old);
    return { message: billingMessages.cardAdded, payment_profile: paymentProfileView(row) };
  }

  async removeCard(principal: Principal, id: string) {
    authorize(principal, 'billing.change');
    const card = await this.repo.liveCard(principal.organizationId, id);
    if (!card) throw notFound();
    await this.#removeCard(principal.organizationId, card);
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
    if (body.credit_card_attributes) await this.#addCard(principal, body.credit_card_attributes, true);
    if (!(await this.repo.hasLiveCard(org))) throw badRequest(billingMessages.noCardForSubscription);

    if (product.kind === 'plan') {
      const current = await this.repo.livePlan(org);
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
    if (current.state !== 'pending_cancel') {
      if (current.gatewayRef) await this.gateway.cancelSubscription(current.gatewayRef);
      await this.#change(principal, id, { state: 'pending_cancel', canceledAt: this.now() }, (row) => ({
        type: 'cancel_scheduled',
        data: { ends_at: row.currentPeriodEnd.toISOString() },
      }));
    }
    const row = await this.#own(principal, id);
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
    },
    client: ClientInfo,
  ) {
    const plan = planByHandle(input.productHandle);
    if (!plan) throw badRequest(billingMessages.unknownProduct);
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

  // ——— Members' requests ———

  async requestQuote(principal: Principal, body: { message: string; package_id?: string }) {
    const pkg = body.package_id ? this.#packageNamed(body.package_id) : undefined;
    return this.#askOwners(principal, {
      kind: 'quote',
      subject: pkg?.handle ?? null,
      message: body.message,
      title: 'A quote is requested',
      description: (name) => `${name} asks for a quote${pkg ? ` for ${pkg.title}` : ''}: ${body.message}`,
      link: '/plan',
    });
  }

  async requestService(principal: Principal, body: { service_name: string; plan: BillingPeriod }) {
    const pkg = this.#packageNamed(body.service_name);
    if (!pkg) throw badRequest(billingMessages.unknownProduct);
    return this.#askOwners(principal, {
      kind: 'package',
      subject: pkg.handle,
      message: body.plan,
      title: `${pkg.title} is requested`,
      description: (name) => `${name} asks you to activate the ${pkg.title} package (${body.plan}).`,
      link: '/pricings',
    });
  }

  async requestExtension(principal: Principal, body: { message: string }) {
    return this.#askOwners(principal, {
      kind: 'quota_extension',
      subject: null,
      message: body.message,
      title: 'A quota extension is requested',
      description: (name) => `${name} asks for a higher quota limit: ${body.message}`,
      link: '/billing',
    });
  }

  // ——— The daily roll ———

  /**
   * Rolls every subscription whose period ended by `now`: a scheduled cancel ends, an active one starts its next
   * period with an invoice of the ended one (fee, and for a plan the cloud-to-cloud bytes beyond its inclusion).
   * Safe to run twice: each subscription is locked and re-checked, and a period's invoice is written once.
   * Subscriptions a payment company bills (a gateway ref outside the manual gateway) roll by its webhooks.
   */
  async rollDue(now = this.now()): Promise<number> {
    let rolled = 0;
    for (const due of await this.repo.subscriptionsDue(now)) {
      if (due.gatewayRef && due.gateway !== 'manual') continue;
      try {
        if (await this.#roll(due.organizationId, due.id, now)) rolled++;
      } catch (error) {
        this.log.error({ err: error, subscriptionId: due.id }, 'billing roll failed for a subscription');
      }
    }
    return rolled;
  }

  // ——— Webhooks ———

  /**
   * A gateway's webhook: verified by the adapter (a bad signature is refused with 400 and changes nothing), applied
   * once per event id, in one transaction with the subscription's event.
   */
  async applyWebhook(rawBody: Buffer, signature: string | undefined) {
    let event: GatewayEvent;
    try {
      event = this.gateway.readWebhook(rawBody, signature);
    } catch (error) {
      if (error instanceof BadSignature) throw badRequest(billingMessages.badSignature);
      throw error;
    }
    await this.repo.transaction(async (tx) => {
      if (event.type === 'ignored') return;
      if (!(await tx.claimGatewayEvent(event.id, this.gateway.name, event.type))) return;
      const sub = event.subscriptionRef ? await tx.lockSubscriptionByRef(event.subscriptionRef) : undefined;
      const record = async (
        type: string,
        values: Parameters<BillingRepo['updateSubscription']>[2],
        data: Record<string, unknown>,
      ) => {
        if (!sub) return;
        await tx.updateSubscription(sub.organizationId, sub.id, values);
        await tx.insertEvent({
          subscriptionId: sub.id,
          organizationId: sub.organizationId,
          type,
          data: { ...data, gateway_event: event.id },
          source: 'gateway',
        });
      };
      switch (event.type) {
        case 'subscription.updated':
          return record(
            'updated',
            {
              state: event.state,
              currentPeriodStart: event.currentPeriodStart,
              currentPeriodEnd: event.currentPeriodEnd,
            },
            { state: event.state, period_ends_at: event.currentPeriodEnd.toISOString() },
          );
        case 'subscription.canceled':
          return record('canceled', { state: 'canceled' }, {});
        case 'invoice.paid':
          if (sub) {
            await tx.upsertGatewayInvoice({
              organizationId: sub.organizationId,
              subscriptionId: sub.id,
              state: 'paid',
              amountCents: event.amountCents,
              gateway: this.gateway.name,
              gatewayRef: event.invoiceRef,
              periodStart: event.periodStart,
              periodEnd: event.periodEnd,
              paidAt: this.now(),
            });
          }
          return record('payment_succeeded', sub?.state === 'past_due' ? { state: 'active' } : {}, {
            invoice: event.invoiceRef,
            amount: dollars(event.amountCents),
          });
        case 'invoice.payment_failed':
          return record(
            'payment_failed',
            { state: 'past_due' },
            {
              invoice: event.invoiceRef,
              amount: dollars(event.amountCents),
            },
          );
      }
    });
    return { received: true };
  }

  // ——— Inside ———

  #product(handle: string): Product {
    const plan = planByHandle(handle);
    if (plan) return { kind: 'plan', plan };
    const pkg = packageByHandle(handle);
    if (pkg) return { kind: 'package', pkg };
    throw badRequest(billingMessages.unknownProduct);
  }

  #packageNamed(name: string): PackageDefinition | undefined {
    return packageByHandle(name) ?? PACKAGES.find((p) => p.title.toLowerCase() === name.toLowerCase());
  }

  async #own(actor: Actor, id: string): Promise<SubscriptionRow> {
    const row = await this.repo.subscription(actor.organizationId, id);
    if (!row) throw notFound();
    return row;
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
  async #addCard(actor: Actor, card: CreditCardAttributes, makeDefault: boolean): Promise<PaymentProfileRow> {
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
    return this.repo.transaction(async (tx) => {
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
      }
      return row;
    });
  }

  async #removeCard(organizationId: string, card: PaymentProfileRow) {
    const customer = await this.repo.customer(organizationId);
    if (customer) await this.gateway.removeCard(customer.customerRef, card.gatewayRef);
    await this.repo.transaction(async (tx) => {
      await tx.removeCard(organizationId, card.id);
      if (card.isDefault) {
        const [next] = await tx.liveCards(organizationId);
        if (next) await tx.makeDefaultCard(organizationId, next.id);
      }
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
    if (current.kind !== 'plan') throw badRequest(billingMessages.notPlan);
    if (target.handle === null) throw badRequest(billingMessages.quoteNeeded);
    if (current.state === 'canceled') throw badRequest(billingMessages.alreadyCanceled);
    const from = planByHandle(current.productHandle);
    if (target.handle === current.productHandle) throw badRequest(billingMessages.samePlan);
    if (from && target.order < from.order) throw badRequest(billingMessages.downgrade);
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
      if (!(await tx.lockSubscription(actor.organizationId, id))) throw notFound();
      const row = await tx.updateSubscription(actor.organizationId, id, values);
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

  async #askOwners(
    principal: Principal,
    request: {
      kind: 'package' | 'quote' | 'service' | 'quota_extension';
      subject: string | null;
      message: string;
      title: string;
      description: (requester: string) => string;
      link: string;
    },
  ) {
    const org = principal.organizationId;
    await this.repo.insertRequest({
      organizationId: org,
      requesterId: principal.userId,
      kind: request.kind,
      subject: request.subject,
      message: request.message,
    });
    // An Owner asking for a quote asks us, not themselves: the request is kept for the operator.
    if (principal.role === 'Owner') return { message: billingMessages.messageSent };
    const member = await this.repo.member(org, principal.userId);
    const name = member ? `${member.firstName} ${member.lastName}`.trim() || member.email : 'A member';
    const description = request.description(name);
    await this.bell({
      organizationId: org,
      title: request.title,
      description,
      status: 'normal',
      link: request.link,
      audience: 'owners',
    });
    for (const owner of await this.repo.owners(org)) {
      try {
        await this.mail.send(
          ownerRequestMail(
            owner.email,
            owner.firstName,
            request.title,
            description,
            `${this.publicUrl}${request.link}`,
          ),
        );
      } catch (error) {
        // The bell already carries the request; a mail outage must not fail the member's call.
        this.log.warn({ err: error, organizationId: org }, 'billing request e-mail could not be sent');
      }
    }
    return { message: billingMessages.requestSent };
  }

  async #roll(organizationId: string, id: string, now: Date): Promise<boolean> {
    const due = await this.repo.subscription(organizationId, id);
    if (!due || due.currentPeriodEnd > now || due.state === 'canceled') return false;
    const overage = due.kind === 'plan' ? await this.#overage(due) : null;
    if (overage && this.gateway.name !== 'manual') {
      const customer = await this.repo.customer(organizationId);
      if (customer)
        await this.gateway.addUsageCharge(customer.customerRef, {
          description: overage.description,
          amountCents: overage.amountCents,
          idempotencyKey: `overage:${due.id}:${due.currentPeriodStart.toISOString()}`,
        });
    }
    return this.repo.transaction(async (tx) => {
      const row = await tx.lockSubscription(organizationId, id);
      if (!row || row.currentPeriodEnd > now || row.state === 'canceled') return false;
      if (row.state === 'pending_cancel') {
        await tx.updateSubscription(organizationId, id, { state: 'canceled' });
        await tx.insertEvent({
          subscriptionId: id,
          organizationId,
          type: 'canceled',
          data: { ended_at: row.currentPeriodEnd.toISOString() },
          source: 'system',
        });
        return true;
      }
      const lines: Array<{ description: string; amount_cents: number; quantity?: number }> = [];
      if (row.priceCents > 0)
        lines.push({ description: `${productTitle(row)} (${row.period})`, amount_cents: row.priceCents });
      if (overage && this.gateway.name === 'manual')
        lines.push({
          description: overage.description,
          amount_cents: overage.amountCents,
          quantity: overage.gb,
        });
      const amountCents = lines.reduce((sum, line) => sum + line.amount_cents, 0);
      if (amountCents > 0 && !(await tx.invoiceOfPeriod(id, row.currentPeriodStart))) {
        await tx.insertInvoice({
          organizationId,
          subscriptionId: id,
          state: 'open',
          amountCents,
          lines,
          gateway: this.gateway.name,
          periodStart: row.currentPeriodStart,
          periodEnd: row.currentPeriodEnd,
        });
      }
      const nextEnd = periodEnd(row.currentPeriodEnd, row.period);
      await tx.updateSubscription(organizationId, id, {
        currentPeriodStart: row.currentPeriodEnd,
        currentPeriodEnd: nextEnd,
      });
      await tx.insertEvent({
        subscriptionId: id,
        organizationId,
        type: 'renewed',
        data: { period_ends_at: nextEnd.toISOString(), invoiced: dollars(amountCents) },
        source: 'system',
      });
      return true;
    });
  }

  /** The cloud-to-cloud bytes of the ended period's month beyond the plan's inclusion, priced per GB. */
  async #overage(row: SubscriptionRow) {
    const plan = planByHandle(row.productHandle);
    const included = plan?.included.c2c;
    if (!plan || included === undefined || included < 0) return null;
    const counter = await this.repo.counter(row.organizationId, 'c2c', monthPeriod(row.currentPeriodStart));
    const beyond = counter.used - included;
    if (beyond <= 0) return null;
    const gb = Math.ceil(beyond / GiB);
    const amountCents = Math.round(gb * plan.c2c_overage_per_gb * 100);
    return {
      gb,
      amountCents,
      description: `Cloud-to-cloud transfer beyond the ${plan.title} plan's inclusion: ${gb} GB`,
    };
  }
}

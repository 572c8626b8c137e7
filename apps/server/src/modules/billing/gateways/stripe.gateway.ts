import Stripe from 'stripe';
import { cardBrandNamed } from '@cumulo/contract';
import {
  BadSignature,
  CardDeclined,
  type CardInput,
  type GatewayCustomer,
  type GatewayEvent,
  type GatewayPrice,
  type GatewaySubscription,
  type PaymentGateway,
  type StoredCard,
} from '../gateway.ts';

interface StripeGatewayOptions {
  secretKey: string;
  /** The webhook endpoint's signing secret (`whsec_…`); without it every webhook is refused. */
  webhookSecret?: string;
  /** Another API base than Stripe's (the offline mock in tests, a proxy): its host, port and protocol are used. */
  apiBase?: URL;
}

/** Every price is billed in one currency: the contract's prices are US dollars. */
const CURRENCY = 'usd';

/** Stripe's product ids are ours: one product per plan or package handle, created on first use and reused. */
const stripeProductId = (handle: string) => `cumulo_${handle}`;

/**
 * One coupon per code and discount, so a code whose discount changes gets a new Stripe coupon instead of
 * silently billing the old one.
 */
function stripeCouponId(
  code: string,
  discount: { percentOff?: number | null; amountOffCents?: number | null },
) {
  const safeCode = code.replace(/[^A-Za-z0-9_-]/g, '_');
  return discount.percentOff
    ? `cumulo_${safeCode}_p${discount.percentOff}`
    : `cumulo_${safeCode}_a${discount.amountOffCents}`;
}

/** Stripe's subscription states reduced to ours; a scheduled cancel is its own state for us. */
export function subscriptionState(subscription: {
  status: Stripe.Subscription.Status;
  cancel_at_period_end: boolean;
}): GatewaySubscription['state'] {
  switch (subscription.status) {
    case 'canceled':
    case 'incomplete_expired':
      return 'canceled';
    case 'active':
    case 'trialing':
      return subscription.cancel_at_period_end ? 'pending_cancel' : 'active';
    default:
      // past_due, unpaid, incomplete, paused: something is owed or the payment has not gone through.
      return 'past_due';
  }
}

/**
 * Stripe takes two-letter country codes; the spec's new-customer form sends `USA` (BILLING_COUNTRY). Anything else
 * that is not two letters is left out rather than refused: the address is informative, the card is what is checked.
 */
function stripeCountry(country: string) {
  const upper = country.trim().toUpperCase();
  if (upper === 'USA') return 'US';
  return /^[A-Z]{2}$/.test(upper) ? upper : undefined;
}

const fromUnix = (seconds: number) => new Date(seconds * 1000);

function periodOf(subscription: Stripe.Subscription) {
  // Since API version 2025-03-31 the billing period lives on each item; ours have one item.
  const item = subscription.items.data[0];
  if (!item) throw new Error(`Stripe subscription ${subscription.id} has no item`);
  return {
    currentPeriodStart: fromUnix(item.current_period_start),
    currentPeriodEnd: fromUnix(item.current_period_end),
  };
}

function toGatewaySubscription(subscription: Stripe.Subscription): GatewaySubscription {
  return { ref: subscription.id, state: subscriptionState(subscription), ...periodOf(subscription) };
}

const isMissing = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing';
const alreadyExists = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_already_exists';

/** Stripe's card errors carry the words to show (spec 001 §8 shows the provider's first error). */
async function declinedAsCardDeclined<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError) throw new CardDeclined(error.message);
    throw error;
  }
}

const idOf = (ref: string | { id: string } | null) =>
  ref === null || typeof ref === 'string' ? ref : ref.id;

/**
 * The `stripe` adapter of PaymentGateway on the official SDK, at the API version the SDK pins. Cards become
 * PaymentMethods created from the raw number the server received (the account needs raw card data access, the
 * billing README "Stripe"); the number and CVC go to Stripe and nowhere else.
 */
export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe' as const;
  private readonly stripe: Stripe;
  private readonly webhookSecret: string | undefined;

  constructor(options: StripeGatewayOptions) {
    const base = options.apiBase;
    this.stripe = new Stripe(options.secretKey, {
      telemetry: false,
      ...(base && {
        host: base.hostname,
        port: base.port || (base.protocol === 'http:' ? 80 : 443),
        protocol: base.protocol === 'http:' ? 'http' : 'https',
      }),
    });
    this.webhookSecret = options.webhookSecret;
  }

  async createCustomer(customer: GatewayCustomer): Promise<string> {
    const created = await this.stripe.customers.create({
      name: customer.name,
      email: customer.email,
      metadata: { organization_id: customer.organizationId },
    });
    return created.id;
  }

  async addCard(customerRef: string, card: CardInput, makeDefault: boolean): Promise<StoredCard> {
    const country = stripeCountry(card.address.country);
    const paymentMethod = await declinedAsCardDeclined(async () => {
      const created = await this.stripe.paymentMethods.create({
        type: 'card',
        card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
        billing_details: {
          name: `${card.firstName} ${card.lastName}`.trim(),
          address: {
            line1: card.address.line1,
            line2: card.address.line2 || undefined,
            city: card.address.city,
            state: card.address.state,
            postal_code: card.address.zip,
            country,
          },
        },
      });
      // Attaching is where Stripe checks the card with the issuer: a declined card fails here.
      return this.stripe.paymentMethods.attach(created.id, { customer: customerRef });
    });
    if (makeDefault) await this.setDefaultCard(customerRef, paymentMethod.id);
    const details = paymentMethod.card;
    if (!details) throw new Error(`Stripe payment method ${paymentMethod.id} is not a card`);
    return {
      ref: paymentMethod.id,
      brand: cardBrandNamed(details.brand),
      last4: details.last4,
      expMonth: details.exp_month,
      expYear: details.exp_year,
    };
  }

  async removeCard(_customerRef: string, cardRef: string): Promise<void> {
    await this.stripe.paymentMethods.detach(cardRef);
  }

  async setDefaultCard(customerRef: string, cardRef: string): Promise<void> {
    await this.stripe.customers.update(customerRef, {
      invoice_settings: { default_payment_method: cardRef },
    });
  }

  async createSubscription(
    customerRef: string,
    price: GatewayPrice,
    options: { couponCode?: string; percentOff?: number | null; amountOffCents?: number | null },
  ): Promise<GatewaySubscription> {
    const priceData = await this.priceData(price);
    const coupon = options.couponCode ? await this.coupon(options.couponCode, options) : undefined;
    const subscription = await declinedAsCardDeclined(() =>
      this.stripe.subscriptions.create({
        customer: customerRef,
        items: [{ price_data: priceData }],
        ...(coupon && { discounts: [{ coupon }] }),
        // Either the first payment goes through and the subscription is active, or the call fails with the
        // card's error: billing never keeps a subscription that was not paid.
        payment_behavior: 'error_if_incomplete',
        metadata: { product_handle: price.productHandle },
      }),
    );
    return toGatewaySubscription(subscription);
  }

  async changeSubscription(subscriptionRef: string, price: GatewayPrice): Promise<GatewaySubscription> {
    const current = await this.stripe.subscriptions.retrieve(subscriptionRef);
    const item = current.items.data[0];
    if (!item) throw new Error(`Stripe subscription ${subscriptionRef} has no item`);
    const priceData = await this.priceData(price);
    const subscription = await declinedAsCardDeclined(() =>
      this.stripe.subscriptions.update(subscriptionRef, {
        items: [{ id: item.id, price_data: priceData }],
        // An upgrade takes effect now; the unused part of the old price is credited and the difference billed at once.
        proration_behavior: 'always_invoice',
        payment_behavior: 'error_if_incomplete',
        metadata: { product_handle: price.productHandle },
      }),
    );
    return toGatewaySubscription(subscription);
  }

  async cancelSubscription(subscriptionRef: string): Promise<GatewaySubscription> {
    const subscription = await this.stripe.subscriptions.update(subscriptionRef, {
      cancel_at_period_end: true,
    });
    return toGatewaySubscription(subscription);
  }

  async reactivateSubscription(subscriptionRef: string): Promise<GatewaySubscription> {
    const subscription = await this.stripe.subscriptions.update(subscriptionRef, {
      cancel_at_period_end: false,
    });
    return toGatewaySubscription(subscription);
  }

  async addUsageCharge(
    customerRef: string,
    charge: { description: string; amountCents: number; idempotencyKey: string },
  ): Promise<void> {
    await this.stripe.invoiceItems.create(
      {
        customer: customerRef,
        amount: charge.amountCents,
        currency: CURRENCY,
        description: charge.description,
      },
      // A retried job must not bill the same usage twice.
      { idempotencyKey: charge.idempotencyKey },
    );
  }

  readWebhook(rawBody: Buffer, signature: string | undefined): GatewayEvent {
    // Never verify against an empty secret: anyone could sign with it.
    if (!this.webhookSecret) throw new BadSignature('No Stripe webhook secret is configured');
    if (!signature) throw new BadSignature('The Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret);
    } catch (error) {
      throw new BadSignature(error instanceof Error ? error.message : 'The Stripe signature does not verify');
    }
    switch (event.type) {
      case 'customer.subscription.updated': {
        const subscription = event.data.object;
        return {
          id: event.id,
          type: 'subscription.updated',
          subscriptionRef: subscription.id,
          state: subscriptionState(subscription),
          ...periodOf(subscription),
        };
      }
      case 'customer.subscription.deleted':
        return { id: event.id, type: 'subscription.canceled', subscriptionRef: event.data.object.id };
      case 'invoice.paid': {
        const invoice = event.data.object;
        // An invoice's own period is the one before the subscription's; its subscription line tells the paid period.
        const line = invoice.lines.data[0];
        return {
          id: event.id,
          type: 'invoice.paid',
          invoiceRef: invoice.id,
          subscriptionRef: subscriptionOfInvoice(invoice),
          amountCents: invoice.amount_paid,
          periodStart: fromUnix(line?.period.start ?? invoice.period_start),
          periodEnd: fromUnix(line?.period.end ?? invoice.period_end),
        };
      }
      case 'invoice.payment_failed': {
        const invoice = event.data.object;
        return {
          id: event.id,
          type: 'invoice.payment_failed',
          invoiceRef: invoice.id,
          subscriptionRef: subscriptionOfInvoice(invoice),
          amountCents: invoice.amount_due,
        };
      }
      default:
        return { id: event.id, type: 'ignored', gatewayType: event.type };
    }
  }

  private async priceData(price: GatewayPrice) {
    return {
      currency: CURRENCY,
      product: await this.product(price.productHandle, price.title),
      unit_amount: price.amountCents,
      recurring: { interval: price.period === 'monthly' ? ('month' as const) : ('year' as const) },
    };
  }

  private async product(handle: string, title: string): Promise<string> {
    const id = stripeProductId(handle);
    try {
      return (await this.stripe.products.retrieve(id)).id;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    try {
      return (await this.stripe.products.create({ id, name: title })).id;
    } catch (error) {
      // Another request created it between our two calls.
      if (alreadyExists(error)) return id;
      throw error;
    }
  }

  private async coupon(
    code: string,
    discount: { percentOff?: number | null; amountOffCents?: number | null },
  ): Promise<string> {
    const id = stripeCouponId(code, discount);
    try {
      return (await this.stripe.coupons.retrieve(id)).id;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    const off = discount.percentOff
      ? { percent_off: discount.percentOff }
      : { amount_off: discount.amountOffCents ?? 0, currency: CURRENCY };
    try {
      return (await this.stripe.coupons.create({ id, name: code, duration: 'forever', ...off })).id;
    } catch (error) {
      if (alreadyExists(error)) return id;
      throw error;
    }
  }
}

function subscriptionOfInvoice(invoice: Stripe.Invoice): string | null {
  return idOf(invoice.parent?.subscription_details?.subscription ?? null);
}

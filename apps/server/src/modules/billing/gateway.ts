/**
 * The one seam between billing and a payment company (ARCHITECTURE "payments", STYLE "interfaces only where there
 * are several real implementations"). Two adapters: `manual` (gateways/manual.gateway.ts, the self-hosted default:
 * cards validated and kept as brand, last 4 and expiry; an instance operator marks invoices paid) and `stripe`
 * (gateways/stripe.gateway.ts, the official `stripe` package). `BILLING_GATEWAY` selects one in services.ts.
 * Adapters hold no business rule and read no env; the billing service decides, the adapter carries it out.
 * The shared suite `gateways/gateway-contract.ts` runs against both.
 */
import type { CardBrand } from '@cumulo/contract';

type GatewayName = 'manual' | 'stripe';

/** A card as the form sends it. The number and CVC pass through to the gateway and are never stored or logged. */
export interface CardInput {
  number: string;
  cvc: string | undefined;
  expMonth: number;
  expYear: number;
  firstName: string;
  lastName: string;
  address: {
    line1: string;
    line2: string;
    city: string;
    state: string;
    zip: string;
    country: string;
  };
}

/** What may be kept of a card. */
export interface StoredCard {
  /** The gateway's id for the payment method. */
  ref: string;
  /** In the spec's card_type words (`cardBrandNamed` maps a gateway's own). */
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface GatewayCustomer {
  organizationId: string;
  name: string;
  email: string;
}

/** A price the gateway bills: a product handle and period, at an amount the billing service computed. */
export interface GatewayPrice {
  productHandle: string;
  title: string;
  period: 'monthly' | 'annually';
  amountCents: number;
}

export interface GatewaySubscription {
  /** The gateway's subscription id; null when nothing is billed through the gateway (a free plan). */
  ref: string | null;
  state: 'active' | 'past_due' | 'pending_cancel' | 'canceled';
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
}

/** A gateway's event, verified and reduced to what billing acts on. */
export type GatewayEvent =
  | {
      id: string;
      type: 'subscription.updated';
      subscriptionRef: string;
      state: GatewaySubscription['state'];
      currentPeriodStart: Date;
      currentPeriodEnd: Date;
    }
  | { id: string; type: 'subscription.canceled'; subscriptionRef: string }
  | {
      id: string;
      type: 'invoice.paid';
      invoiceRef: string;
      subscriptionRef: string | null;
      amountCents: number;
      periodStart: Date;
      periodEnd: Date;
    }
  | {
      id: string;
      type: 'invoice.payment_failed';
      invoiceRef: string;
      subscriptionRef: string | null;
      amountCents: number;
    }
  | { id: string; type: 'ignored'; gatewayType: string };

/** A card the gateway refused, with the gateway's words (shown as the first provider error, spec 001 §8). */
export class CardDeclined extends Error {
  override readonly name = 'CardDeclined';
}
/** A webhook whose signature does not verify: refused, nothing changes. */
export class BadSignature extends Error {
  override readonly name = 'BadSignature';
}

export interface PaymentGateway {
  readonly name: GatewayName;
  /** Creates the customer once; returns the gateway's customer id. */
  createCustomer(customer: GatewayCustomer): Promise<string>;
  /** Adds a card to the customer; throws CardDeclined with the gateway's words. */
  addCard(customerRef: string, card: CardInput, makeDefault: boolean): Promise<StoredCard>;
  removeCard(customerRef: string, cardRef: string): Promise<void>;
  setDefaultCard(customerRef: string, cardRef: string): Promise<void>;
  createSubscription(
    customerRef: string,
    price: GatewayPrice,
    options: { couponCode?: string; percentOff?: number | null; amountOffCents?: number | null },
  ): Promise<GatewaySubscription>;
  /** Moves a subscription to another price now (an upgrade), prorated by the gateway. */
  changeSubscription(subscriptionRef: string, price: GatewayPrice): Promise<GatewaySubscription>;
  /** Cancels at the end of the paid period (state pending_cancel). */
  cancelSubscription(subscriptionRef: string): Promise<GatewaySubscription>;
  /** Undoes a scheduled cancel. */
  reactivateSubscription(subscriptionRef: string): Promise<GatewaySubscription>;
  /** Bills metered usage (cloud-to-cloud bytes beyond a plan's inclusion) on the next invoice. */
  addUsageCharge(
    customerRef: string,
    charge: { description: string; amountCents: number; idempotencyKey: string },
  ): Promise<void>;
  /** Verifies and reads a webhook; throws BadSignature. The manual gateway has no webhooks and always throws. */
  readWebhook(rawBody: Buffer, signature: string | undefined): GatewayEvent;
}

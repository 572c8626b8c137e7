import { randomUUID } from 'node:crypto';
import dayjs from 'dayjs';
import { cardBrand, cvcValid, expiryInFuture, luhnValid, normaliseCardNumber } from '@cumulo/contract';
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

/**
 * The self-hosted default: no payment company. A card is checked (Luhn, expiry in the future, CVC) and only its
 * brand, last 4 digits and expiry leave this adapter; invoices are written by the billing service and an instance
 * operator marks them paid (`billing:mark-paid`). Periods run from now, a month or a year.
 */
export class ManualGateway implements PaymentGateway {
  readonly name = 'manual' as const;

  constructor(private readonly now: () => Date = () => new Date()) {}

  async createCustomer(customer: GatewayCustomer): Promise<string> {
    return `manual_cus_${customer.organizationId}`;
  }

  async addCard(_customerRef: string, card: CardInput): Promise<StoredCard> {
    const digits = normaliseCardNumber(card.number);
    const brand = cardBrand(digits);
    if (!luhnValid(digits)) throw new CardDeclined('The card number is not valid.');
    if (!expiryInFuture(card.expMonth, card.expYear, this.now()))
      throw new CardDeclined('The card has expired.');
    if (card.cvc !== undefined && !cvcValid(card.cvc, brand))
      throw new CardDeclined("The card's security code is not valid.");
    return {
      ref: `manual_${randomUUID()}`,
      brand,
      last4: digits.slice(-4),
      expMonth: card.expMonth,
      expYear: card.expYear,
    };
  }

  async removeCard(): Promise<void> {}

  async setDefaultCard(): Promise<void> {}

  async createSubscription(_customerRef: string, price: GatewayPrice): Promise<GatewaySubscription> {
    return this.#period(`manual_sub_${randomUUID()}`, price.period, this.now());
  }

  async changeSubscription(subscriptionRef: string, price: GatewayPrice): Promise<GatewaySubscription> {
    // An upgrade starts a new period now; the operator's next invoice carries the new price.
    return this.#period(subscriptionRef, price.period, this.now());
  }

  async cancelSubscription(subscriptionRef: string): Promise<GatewaySubscription> {
    return { ...this.#period(subscriptionRef, 'monthly', this.now()), state: 'pending_cancel' };
  }

  async reactivateSubscription(subscriptionRef: string): Promise<GatewaySubscription> {
    return this.#period(subscriptionRef, 'monthly', this.now());
  }

  /** Overage is written on the manual invoice by the billing service; nothing to send anywhere. */
  async addUsageCharge(): Promise<void> {}

  readWebhook(_rawBody: Buffer, _signature: string | undefined): GatewayEvent {
    throw new BadSignature('the manual gateway takes no webhooks');
  }

  #period(ref: string, period: 'monthly' | 'annually', start: Date): GatewaySubscription {
    const end = dayjs(start)
      .add(1, period === 'annually' ? 'year' : 'month')
      .toDate();
    return { ref, state: 'active', currentPeriodStart: start, currentPeriodEnd: end };
  }
}

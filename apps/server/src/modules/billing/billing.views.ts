import dayjs from 'dayjs';
import {
  cardBrandNamed,
  maskCardNumber,
  packageByHandle,
  planByHandle,
  type BillingPeriod,
  type CreditCardAttributes,
  type PaymentProfileView,
  type PlanDefinition,
  type SubscriptionView,
} from '@cumulo/contract';
import type { PaymentProfileRow, SubscriptionRow } from './billing.repo.ts';
import type { CardInput } from './gateway.ts';

// The shapes billing answers in, and the few conversions its services share.

export const productTitle = (row: Pick<SubscriptionRow, 'kind' | 'productHandle'>) =>
  (row.kind === 'plan'
    ? planByHandle(row.productHandle)?.title
    : packageByHandle(row.productHandle)?.title) ?? row.productHandle;

export const dollars = (cents: number) => cents / 100;

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
  // Rows written before Stripe's brand names were mapped ('mastercard') read as the spec's words too.
  const brand = cardBrandNamed(row.cardType);
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

export function planView(plan: PlanDefinition, currentHandle: string | null) {
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

export function cardInput(card: CreditCardAttributes): CardInput {
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

/** Where a period that starts at `start` ends: a month or a year later. */
export const periodEnd = (start: Date, period: BillingPeriod) =>
  dayjs(start)
    .add(1, period === 'annually' ? 'year' : 'month')
    .toDate();

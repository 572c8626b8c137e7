import { cardLabel } from '@cumulo/contract';
import { changesOf, type AuditEvent } from '../audit/audit.writer.ts';
import type { PaymentProfileRow, SubscriptionRow } from './billing.repo.ts';
import { dollars, productTitle } from './billing.views.ts';

// The audit entries of billing changes. A card is named by brand and last 4 digits: its number and CVC never
// reach the server's tables, let alone the trail.

const cardState = (card: PaymentProfileRow) => ({
  card: cardLabel(card.cardType, card.last4),
  expiration: `${String(card.expirationMonth).padStart(2, '0')}/${card.expirationYear}`,
  holder: `${card.firstName} ${card.lastName}`.trim(),
  default: card.isDefault,
});

const cardEvent = (card: PaymentProfileRow): Pick<AuditEvent, 'entity' | 'resource' | 'resourceId'> => ({
  entity: 'Payment card',
  resource: cardLabel(card.cardType, card.last4),
  resourceId: card.id,
});

export const cardAdded = (card: PaymentProfileRow): AuditEvent => ({
  ...cardEvent(card),
  type: 'Added',
  changes: changesOf(null, cardState(card)),
});

export const cardRemoved = (card: PaymentProfileRow): AuditEvent => ({
  ...cardEvent(card),
  type: 'Deleted',
  changes: changesOf(cardState(card), null),
});

export const cardMadeDefault = (card: PaymentProfileRow): AuditEvent => ({
  ...cardEvent(card),
  type: 'Modified',
  changes: changesOf({ default: false }, { default: true }),
});

const subscriptionState = (row: SubscriptionRow) => ({
  product: productTitle(row),
  period: row.period,
  state: row.state,
  price: dollars(row.priceCents),
  coupon: row.couponCode,
});

export const subscriptionAdded = (row: SubscriptionRow): AuditEvent => ({
  entity: 'Subscription',
  type: 'Added',
  resource: productTitle(row),
  resourceId: row.id,
  changes: changesOf(null, subscriptionState(row)),
});

/** A subscription's change (plan changed, cancel scheduled, reactivated, renewed, a gateway's update); null when nothing shown changed. */
export function subscriptionChanged(before: SubscriptionRow, after: SubscriptionRow): AuditEvent | null {
  const changes = changesOf(
    { ...subscriptionState(before), period_ends_at: before.currentPeriodEnd },
    { ...subscriptionState(after), period_ends_at: after.currentPeriodEnd },
  );
  return changes.length
    ? {
        entity: 'Subscription',
        type: 'Modified',
        resource: productTitle(after),
        resourceId: after.id,
        changes,
      }
    : null;
}

import { billingMessages } from '@cumulo/contract';
import { badRequest } from '../../errors.ts';
import { recordAudit } from '../audit/audit.writer.ts';
import { subscriptionChanged } from './billing.audit.ts';
import type { BillingRepo } from './billing.repo.ts';
import { dollars } from './billing.views.ts';
import { BadSignature, type GatewayEvent, type PaymentGateway } from './gateway.ts';

/** A payment company's webhooks, applied to the subscriptions it bills. */
export class GatewayWebhooks {
  constructor(
    private readonly repo: BillingRepo,
    private readonly gateway: PaymentGateway,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * A gateway's webhook: verified by the adapter (a bad signature is refused with 400 and changes nothing), applied
   * once per event id, in one transaction with the subscription's event.
   */
  async apply(rawBody: Buffer, signature: string | undefined) {
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
        const after = await tx.updateSubscription(sub.organizationId, sub.id, values);
        const changed = subscriptionChanged(sub, after);
        // The payment company acted, not a member: Cumulo is the entry's author.
        if (changed) await recordAudit(tx.orm, { organizationId: sub.organizationId, userId: null }, changed);
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
}

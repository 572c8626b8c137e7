import { SEAT_PRICE_MONTHLY, planByHandle } from '@cumulo/contract';
import type { Logger } from '../../logger.ts';
import { recordAudit } from '../audit/audit.writer.ts';
import { subscriptionChanged } from './billing.audit.ts';
import type { BillingRepo, SubscriptionRow } from './billing.repo.ts';
import { dollars, periodEnd, productTitle } from './billing.views.ts';
import { monthPeriod } from './entitlements.service.ts';
import type { UsageGateway } from './gateways/usage-gateway.ts';

const GiB = 1024 ** 3;

/** The daily roll of subscription periods (README "Flow" 5), run by the `billing.roll` job. */
export class BillingRoll {
  constructor(
    private readonly repo: BillingRepo,
    private readonly gateway: UsageGateway,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

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

  async #roll(organizationId: string, id: string, now: Date): Promise<boolean> {
    const due = await this.repo.subscription(organizationId, id);
    if (!due || due.currentPeriodEnd > now || due.state === 'canceled') return false;
    const usage =
      due.kind === 'plan'
        ? [await this.#overage(due), await this.#seats(due)].filter((line) => line !== null)
        : [];
    if (usage.length > 0 && this.gateway.name !== 'manual') {
      const customer = await this.repo.customer(organizationId);
      if (customer)
        for (const line of usage)
          await this.gateway.addUsageCharge(customer.customerRef, {
            description: line.description,
            amountCents: line.amountCents,
            idempotencyKey: `${line.key}:${due.id}:${due.currentPeriodStart.toISOString()}`,
          });
    }
    return this.repo.transaction(async (tx) => {
      const row = await tx.lockSubscription(organizationId, id);
      if (!row || row.currentPeriodEnd > now || row.state === 'canceled') return false;
      // What the roll does, Cumulo does by itself: its entries have no member as author.
      const cumulo = { organizationId, userId: null };
      if (row.state === 'pending_cancel') {
        const ended = await tx.updateSubscription(organizationId, id, { state: 'canceled' });
        const changed = subscriptionChanged(row, ended);
        if (changed) await recordAudit(tx.orm, cumulo, changed);
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
      if (this.gateway.name === 'manual')
        for (const line of usage)
          lines.push({
            description: line.description,
            amount_cents: line.amountCents,
            quantity: line.quantity,
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
      const renewed = await tx.updateSubscription(organizationId, id, {
        currentPeriodStart: row.currentPeriodEnd,
        currentPeriodEnd: nextEnd,
      });
      const changed = subscriptionChanged(row, renewed);
      if (changed) await recordAudit(tx.orm, cumulo, changed);
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
      key: 'overage',
      quantity: gb,
      amountCents,
      description: `Cloud-to-cloud transfer beyond the ${plan.title} plan's inclusion: ${gb} GB`,
    };
  }

  /**
   * The members beyond the first, at SEAT_PRICE_MONTHLY each for every month of the ended period, counted when
   * the period is invoiced (active members then; no proration within a period).
   */
  async #seats(row: SubscriptionRow) {
    const seats = await this.repo.seats(row.organizationId);
    if (seats === 0) return null;
    const months = row.period === 'annually' ? 12 : 1;
    return {
      key: 'seats',
      quantity: seats,
      amountCents: seats * SEAT_PRICE_MONTHLY * 100 * months,
      description: `Members beyond the first: ${seats} × $${SEAT_PRICE_MONTHLY}/month (${row.period})`,
    };
  }
}

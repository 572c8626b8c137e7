import {
  FREE_PLAN_HANDLE,
  PACKAGES,
  QUOTA_KEYS,
  QUOTA_UNLIMITED,
  TRIAL_QUOTAS,
  billingMessages,
  formatBytes,
  planByHandle,
  type PackageHandle,
  type PlanDefinition,
  type QuotaKey,
  type QuotaUsage,
} from '@cumulo/contract';
import type { BillingRepo } from './billing.repo.ts';
import { QuotaExceeded, type Entitlements } from './entitlements.ts';

/** Where an organisation stands: in trial (no card) or on a plan, and which period its quotas count in. */
interface BillingStanding {
  hasCard: boolean;
  inTrial: boolean;
  plan: PlanDefinition | undefined;
  /** 'trial' without a card, else the calendar month 'YYYY-MM' (UTC). */
  period: string;
}

/** The calendar month a date falls in, as quota periods name it. */
export function monthPeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}

const quotaTitle = (quota: QuotaKey) =>
  quota === 'encoding' ? billingMessages.encodingQuotaTitle : billingMessages.transfersQuotaTitle;

/**
 * The entitlements every module asks (entitlements.ts). In trial the limits are TRIAL_QUOTAS and work past them is
 * refused; with a card the total shown is the plan's monthly inclusion (-1 when it names none) and nothing is
 * refused (usage beyond the inclusion is billed). `entitleAll` (BILLING_ENTITLE_ALL) holds every package and
 * leaves every quota unlimited.
 */
export class EntitlementsService implements Entitlements {
  constructor(
    private readonly repo: BillingRepo,
    private readonly entitleAll: boolean,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async standing(organizationId: string): Promise<BillingStanding> {
    const [hasCard, planRow] = await Promise.all([
      this.repo.hasLiveCard(organizationId),
      this.repo.livePlan(organizationId),
    ]);
    const plan = hasCard
      ? planByHandle(planRow?.productHandle ?? FREE_PLAN_HANDLE)
      : planRow && planByHandle(planRow.productHandle);
    return {
      hasCard,
      inTrial: !hasCard && !this.entitleAll,
      plan,
      period: hasCard ? monthPeriod(this.now()) : 'trial',
    };
  }

  async may(organizationId: string, pkg: PackageHandle): Promise<boolean> {
    if (this.entitleAll) return true;
    return this.repo.holdsPackage(organizationId, pkg);
  }

  /** The titles of the packages the organisation holds (the profile's packages[]). */
  async heldPackages(organizationId: string): Promise<Array<{ title: string }>> {
    if (this.entitleAll) return PACKAGES.map((p) => ({ title: p.title }));
    const live = await this.repo.liveSubscriptions(organizationId);
    const held = new Set(live.filter((s) => s.kind === 'package').map((s) => s.productHandle));
    return PACKAGES.filter((p) => held.has(p.handle)).map((p) => ({ title: p.title }));
  }

  async remaining(organizationId: string, quota: QuotaKey): Promise<QuotaUsage & { remaining: number }> {
    const standing = await this.standing(organizationId);
    const counter = await this.repo.counter(organizationId, quota, standing.period);
    return this.#usage(standing, quota, counter.used + counter.reserved);
  }

  /** Used and total of every quota (the profile's and billing info's `quota`). */
  async usage(organizationId: string, standing?: BillingStanding): Promise<Record<QuotaKey, QuotaUsage>> {
    const at = standing ?? (await this.standing(organizationId));
    const counters = await this.repo.counters(organizationId, at.period);
    const entries = QUOTA_KEYS.map((quota) => {
      const counter = counters.get(quota);
      const { used, total } = this.#usage(at, quota, (counter?.used ?? 0) + (counter?.reserved ?? 0));
      return [quota, { used, total }] as const;
    });
    return Object.fromEntries(entries) as Record<QuotaKey, QuotaUsage>;
  }

  async reserve(organizationId: string, quota: QuotaKey, ref: string, bytes: number): Promise<void> {
    const amount = Math.max(0, Math.round(bytes));
    const standing = await this.standing(organizationId);
    const limit = this.#refusalLimit(standing, quota);
    const held = await this.repo.transaction(async (tx) => {
      const ok = await tx.addReserved(organizationId, quota, standing.period, amount, limit);
      if (ok) await tx.holdReservation(organizationId, quota, ref, standing.period, amount);
      return ok;
    });
    if (held || limit === null) return;
    const counter = await this.repo.counter(organizationId, quota, standing.period);
    const remainingBytes = Math.max(0, limit - counter.used - counter.reserved);
    throw new QuotaExceeded(
      quota,
      remainingBytes,
      quotaTitle(quota),
      billingMessages.quotaRemaining(formatBytes(remainingBytes)),
    );
  }

  async settle(organizationId: string, quota: QuotaKey, ref: string, usedBytes: number): Promise<void> {
    const used = Math.max(0, Math.round(usedBytes));
    const settled = await this.repo.transaction(async (tx) => {
      const open = await tx.lockOpenReservation(organizationId, quota, ref);
      if (!open) return false;
      await tx.markSettled(organizationId, quota, ref, used);
      await tx.applyToCounter(organizationId, quota, open.period, open.reserved, used);
      return true;
    });
    // Work settled without a reservation is counted like a report after the fact (once per ref).
    if (!settled && !(await this.repo.reservationExists(organizationId, quota, ref))) {
      await this.record(organizationId, quota, ref, used);
    }
  }

  async record(organizationId: string, quota: QuotaKey, ref: string, usedBytes: number): Promise<void> {
    const used = Math.max(0, Math.round(usedBytes));
    const { period } = await this.standing(organizationId);
    await this.repo.transaction(async (tx) => {
      if (await tx.insertSettledUsage(organizationId, quota, ref, period, used)) {
        await tx.applyToCounter(organizationId, quota, period, 0, used);
      }
    });
  }

  /** The bytes past which work is refused, or null when nothing is refused. */
  #refusalLimit(standing: BillingStanding, quota: QuotaKey): number | null {
    if (this.entitleAll || standing.hasCard) return null;
    return TRIAL_QUOTAS[quota];
  }

  #usage(standing: BillingStanding, quota: QuotaKey, used: number): QuotaUsage & { remaining: number } {
    const total = this.entitleAll
      ? QUOTA_UNLIMITED
      : standing.hasCard
        ? (standing.plan?.included[quota] ?? QUOTA_UNLIMITED)
        : TRIAL_QUOTAS[quota];
    const remaining = total === QUOTA_UNLIMITED ? QUOTA_UNLIMITED : Math.max(0, total - used);
    return { used, total, remaining };
  }
}

import type { PackageHandle, QuotaKey, QuotaUsage } from '@cumulo/contract';
import { forbidden } from '../../errors.ts';

/**
 * The one answer to "may this organisation use this, and how much is left?" (ARCHITECTURE "Entitlements").
 * Every module asks it; none reads billing tables. Implemented by EntitlementsService (entitlements.service.ts).
 *
 * Quota rule: an organisation without a card on file is in trial and limited to TRIAL_QUOTAS (contract); work that
 * would pass the limit is refused with QuotaExceeded. With a card, quotas count (the plan's inclusion, then
 * metered overage) and nothing is refused. BILLING_ENTITLE_ALL=true makes every quota unlimited and every
 * package held.
 */
export interface Entitlements {
  /** Whether the organisation holds package P (an active or pending-cancel subscription, or entitle-all). */
  may(organizationId: string, pkg: PackageHandle): Promise<boolean>;
  /** Used and total of quota Q in the current period; total -1 is unlimited. `used` includes live reservations. */
  remaining(organizationId: string, quota: QuotaKey): Promise<QuotaUsage & { remaining: number }>;
  /**
   * Holds `bytes` more of quota Q for the work named `ref` (e.g. `transfer:<batchId>`), atomically: concurrent
   * reservations never pass the limit together. Adds to an existing reservation of the same ref. Throws
   * QuotaExceeded (with the remaining bytes) when it would pass the limit; nothing is held then.
   */
  reserve(organizationId: string, quota: QuotaKey, ref: string, bytes: number): Promise<void>;
  /**
   * Settles the work's reservation to what it really used: the counter's used grows by `usedBytes`, the
   * reservation is released. Safe to call twice (the second call changes nothing).
   */
  settle(organizationId: string, quota: QuotaKey, ref: string, usedBytes: number): Promise<void>;
  /** Counts usage that had no reservation (e.g. a finished upload reported after the fact). Never refuses. */
  record(organizationId: string, quota: QuotaKey, ref: string, usedBytes: number): Promise<void>;
}

/** Over quota: the HTTP layer answers 403 with the spec's title and the remaining amount. */
export class QuotaExceeded extends Error {
  override readonly name = 'QuotaExceeded';
  constructor(
    readonly quota: QuotaKey,
    /** What is left, in bytes. */
    readonly remainingBytes: number,
    /** 'Transfers Quota Limit' or 'Encoding Quota Limit' (spec 001 §5). */
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** The code of a refusal because the organisation lacks a paid package: the web shows the subscription modal. */
const PACKAGE_REQUIRED = 'PACKAGE_REQUIRED';

/**
 * Refuses (403 PACKAGE_REQUIRED, `message` in words) an organisation that does not hold `pkg`. The services of a
 * paid screen call it in every method, reads included (spec 002 §2: analytics needs Analytics, finance Finance).
 */
export async function requirePackage(
  entitlements: Pick<Entitlements, 'may'>,
  organizationId: string,
  pkg: PackageHandle,
  message: string,
): Promise<void> {
  if (!(await entitlements.may(organizationId, pkg))) throw forbidden(message, PACKAGE_REQUIRED);
}

import type { ProviderName } from './providers.ts';

/** Size units of the price calculator, in GB (spec 000 §9). */
export const SIZE_UNITS_GB = { GB: 1, TB: 1024, PB: 1048576 } as const;
export type SizeUnit = keyof typeof SIZE_UNITS_GB;

const GB = 1024 ** 3;
const TB_IN_GB = 1024;

/**
 * Storage price per GB-month by tier (spec 000 §9). The spec's aws tiers read "first 50 TB, next 400 TB, above
 * 500 TB"; we follow AWS's own published boundaries (50 TB, then up to 500 TB) so no range is left unpriced.
 * Azure uses the same boundaries.
 */
export const STORAGE_PRICE_TIERS: Record<
  'aws' | 'azure' | 'wasabi' | 'google',
  ReadonlyArray<{ uptoGb: number; perGb: number }>
> = {
  aws: [
    { uptoGb: 50 * TB_IN_GB, perGb: 0.023 },
    { uptoGb: 500 * TB_IN_GB, perGb: 0.022 },
    { uptoGb: Number.POSITIVE_INFINITY, perGb: 0.021 },
  ],
  azure: [
    { uptoGb: 50 * TB_IN_GB, perGb: 0.0184 },
    { uptoGb: 500 * TB_IN_GB, perGb: 0.0177 },
    { uptoGb: Number.POSITIVE_INFINITY, perGb: 0.017 },
  ],
  wasabi: [{ uptoGb: Number.POSITIVE_INFINITY, perGb: 0.0049 }],
  google: [{ uptoGb: Number.POSITIVE_INFINITY, perGb: 0.026 }],
};

/** Egress price per GB (spec 000 §9). */
export const EGRESS_PER_GB = { wasabi: 0, azure: 0.087, aws: 0.15, google: 0.12 } as const;

/** Wasabi's list price per TB-month, quoted separately by the spec for Wasabi account costs. */
export const WASABI_PRICE_PER_TB_MONTH = 5.99;

/** Cloud-to-cloud transfer charge per GB (issue: $0.15/GB). */
export const TRANSFER_CHARGE_PER_GB = 0.15;

/** Which price table estimates a provider's storage (S3-compatible stores are priced like aws). */
export function priceTableFor(provider: ProviderName): keyof typeof STORAGE_PRICE_TIERS {
  if (provider === 'azure' || provider === 'wasabi' || provider === 'google') return provider;
  return 'aws';
}

/** Monthly storage cost in USD of `gb` gigabytes under a tiered table. */
export function monthlyStorageCostGb(table: keyof typeof STORAGE_PRICE_TIERS, gb: number): number {
  let cost = 0;
  let floor = 0;
  for (const tier of STORAGE_PRICE_TIERS[table]) {
    if (gb <= floor) break;
    cost += (Math.min(gb, tier.uptoGb) - floor) * tier.perGb;
    floor = tier.uptoGb;
  }
  return cost;
}

/** Estimated monthly cost in USD of a bucket of `bytes` on `provider`. */
export function estimateMonthlyCost(provider: ProviderName, bytes: number): number {
  return monthlyStorageCostGb(priceTableFor(provider), bytes / GB);
}

/** The calculator's size rule: rounded to a whole number, at least 1 (spec 000 §5). */
export function calculatorSize(value: number): number {
  return Number.isFinite(value) ? Math.max(1, Math.round(value)) : 1;
}

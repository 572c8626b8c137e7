import {
  EGRESS_PER_GB,
  SIZE_UNITS_GB,
  STORAGE_PRICE_TIERS,
  calculatorSize,
  formatUsd,
  monthlyStorageCostGb,
  type ProviderName,
  type SizeUnit,
} from '@cumulo/contract';

type PriceTable = keyof typeof STORAGE_PRICE_TIERS;

/** The four columns of the comparison, in the spec's order (spec 000 §2 Cloud compare screen). */
const COMPARED_PROVIDERS: ReadonlyArray<{ table: PriceTable; label: string; logo: ProviderName }> = [
  { table: 'wasabi', label: 'Wasabi', logo: 'wasabi' },
  { table: 'azure', label: 'Azure', logo: 'azure' },
  { table: 'aws', label: 'S3', logo: 'aws' },
  { table: 'google', label: 'Google', logo: 'google' },
];

export interface ProviderPrice {
  table: PriceTable;
  label: string;
  logo: ProviderName;
  /** Price per GB-month of the first tier. */
  perGb: number;
  storageMonthly: number;
  /** Downloading the stored amount once. */
  egress: number;
  total: number;
}

/** The size the calculator prices, in GB: the whole-number size (min 1, spec 000 §5) times its unit. */
export function comparedGb(size: number, unit: SizeUnit): number {
  return calculatorSize(size) * SIZE_UNITS_GB[unit];
}

/** Monthly storage cost plus the egress of reading the same amount back once, per provider. */
export function comparePrices(gb: number): ProviderPrice[] {
  return COMPARED_PROVIDERS.map(({ table, label, logo }) => {
    const storageMonthly = monthlyStorageCostGb(table, gb);
    const egress = EGRESS_PER_GB[table] * gb;
    return {
      table,
      label,
      logo,
      perGb: STORAGE_PRICE_TIERS[table][0]?.perGb ?? 0,
      storageMonthly,
      egress,
      total: storageMonthly + egress,
    };
  });
}

/**
 * A tick of the chart's dollar axis: whole dollars where the axis steps by whole dollars, cents otherwise — at
 * 1 GB the whole chart spans cents, and whole-dollar ticks all read "$0".
 */
export function axisUsd(value: number): string {
  if (Number.isInteger(value)) return formatUsd(value, 0);
  // Steps such as 0.045 keep their third decimal: rounded to cents, neighbouring ticks would lie.
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
  }).format(value);
}

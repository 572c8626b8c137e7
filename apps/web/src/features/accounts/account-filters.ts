import dayjs from 'dayjs';
import type { CloudAccountView } from '@cumulo/contract';
import type { StorageView } from './accounts-api.ts';

/** Provider types the filter offers (spec 000 §9 "Provider types in filters"). */
export const PROVIDER_TYPE_FILTERS = ['all', 'aws', 'wasabi', 'azure'] as const;
type ProviderTypeFilter = (typeof PROVIDER_TYPE_FILTERS)[number];

export const ALL_REGIONS = 'all';

/** Slider maximum when there are no accounts (spec 000 §5). */
const DEFAULT_SLIDER_MAX = 100;

const BYTES_PER_GB = 1024 ** 3;

/** A closed range of a slider: both ends included. */
export type SliderRange = readonly [number, number];

/** The filter panel's state (spec 000 §2, §5). Dates are local calendar days, 'YYYY-MM-DD'. */
export interface AccountFilters {
  search: string;
  type: ProviderTypeFilter;
  createdFrom: string | null;
  createdTo: string | null;
  region: string;
  /** Account usage in GB; null means the slider was not moved (its whole range, whatever the maximum). */
  usageGb: SliderRange | null;
  /** Account monthly cost estimate in USD; null as for usage. */
  costUsd: SliderRange | null;
}

export const NO_FILTERS: AccountFilters = {
  search: '',
  type: 'all',
  createdFrom: null,
  createdTo: null,
  region: ALL_REGIONS,
  usageGb: null,
  costUsd: null,
};

/** One account as the list shows it: its buckets split by the UI's `hidden` flag (spec 000 §3). */
export interface FilteredAccount {
  account: CloudAccountView;
  visibleBuckets: StorageView[];
  hiddenBucketCount: number;
}

export function bytesToGb(bytes: number): number {
  return bytes / BYTES_PER_GB;
}

/**
 * Usage slider maximum: the highest account usage in GB plus 2, or 100 without accounts (spec 000 §5).
 * The usage is rounded up to a whole GB first so the slider moves in whole steps and still covers that account.
 */
export function usageSliderMax(accounts: readonly CloudAccountView[]): number {
  if (accounts.length === 0) return DEFAULT_SLIDER_MAX;
  return Math.ceil(Math.max(...accounts.map((a) => bytesToGb(a.total_bytes_used)))) + 2;
}

/** Cost slider maximum: the highest account cost plus 1, or 100 without accounts (rounded up as for usage). */
export function costSliderMax(accounts: readonly CloudAccountView[]): number {
  if (accounts.length === 0) return DEFAULT_SLIDER_MAX;
  return Math.ceil(Math.max(...accounts.map((a) => a.total_cost))) + 1;
}

/** Regions present among the buckets, sorted, for the region filter's options. */
export function regionOptions(accounts: readonly CloudAccountView[]): string[] {
  const regions = new Set<string>();
  for (const account of accounts) {
    for (const bucket of account.storages) if (bucket.region) regions.add(bucket.region);
  }
  return [...regions].sort();
}

/** True when a filter that looks at single buckets (name, created date, region) is set. */
function hasBucketFilter(filters: AccountFilters): boolean {
  return (
    filters.search.trim() !== '' ||
    filters.createdFrom !== null ||
    filters.createdTo !== null ||
    filters.region !== ALL_REGIONS
  );
}

/** True when any filter of the panel differs from "show everything". */
export function hasAnyFilter(filters: AccountFilters): boolean {
  return (
    hasBucketFilter(filters) || filters.type !== 'all' || filters.usageGb !== null || filters.costUsd !== null
  );
}

function inRange(value: number, range: SliderRange | null): boolean {
  return range === null || (value >= range[0] && value <= range[1]);
}

/**
 * The bucket filters of spec 000 §5: a case-insensitive "contains" on the bucket name (empty matches all), the
 * region ('all' matches all) and the creation date, inclusive of both days. A bucket without a known creation
 * date does not match a date range.
 */
export function bucketMatches(bucket: StorageView, filters: AccountFilters): boolean {
  const search = filters.search.trim().toLowerCase();
  if (search && !bucket.name.toLowerCase().includes(search)) return false;
  if (filters.region !== ALL_REGIONS && bucket.region !== filters.region) return false;
  if (filters.createdFrom !== null || filters.createdTo !== null) {
    if (!bucket.creationDate) return false;
    const created = dayjs(bucket.creationDate);
    if (!created.isValid()) return false;
    const day = created.format('YYYY-MM-DD');
    if (filters.createdFrom !== null && day < filters.createdFrom) return false;
    if (filters.createdTo !== null && day > filters.createdTo) return false;
  }
  return true;
}

/** The account-level filters: provider type and the usage and cost sliders (inclusive). */
function accountMatches(account: CloudAccountView, filters: AccountFilters): boolean {
  if (filters.type !== 'all' && account.provider !== filters.type) return false;
  return (
    inRange(bytesToGb(account.total_bytes_used), filters.usageGb) &&
    inRange(account.total_cost, filters.costUsd)
  );
}

/**
 * Applies the panel to the list. Buckets that do not match are hidden; while a bucket filter is set, an account
 * with no matching bucket is hidden too. `revealed` holds accounts whose buckets were un-hidden by collapsing the
 * account (spec 000 §2): their buckets all show until the filters change.
 */
export function filterAccounts(
  accounts: readonly CloudAccountView[],
  filters: AccountFilters,
  revealed: ReadonlySet<string> = new Set(),
): FilteredAccount[] {
  const bucketFilter = hasBucketFilter(filters);
  const list: FilteredAccount[] = [];
  for (const account of accounts) {
    if (!accountMatches(account, filters)) continue;
    const visibleBuckets = revealed.has(account.id)
      ? account.storages
      : account.storages.filter((bucket) => bucketMatches(bucket, filters));
    if (bucketFilter && visibleBuckets.length === 0) continue;
    list.push({
      account,
      visibleBuckets,
      hiddenBucketCount: account.storages.length - visibleBuckets.length,
    });
  }
  return list;
}

import { formatMonthName, type CloudAccountView } from '@cumulo/contract';

/**
 * What an alert compares its limit with: the stored size and the cost, which for a whole account with ingested
 * billing reports is its newest billed month's total (every service), otherwise the storage estimate.
 */
export interface WatchedUsage {
  size: number;
  cost: number;
  /** 'YYYY-MM' when `cost` is that month's bill rather than an estimate. */
  costMonth: string | null;
  objectCount: number | null;
  /** The inventory is still counting, so the size may grow. */
  counting: boolean;
}

/** Usage of the whole account (bucketName null) or of one of its buckets; null for a bucket the list lacks. */
export function watchedUsage(account: CloudAccountView, bucketName: string | null): WatchedUsage | null {
  if (bucketName === null) {
    return {
      size: account.total_bytes_used,
      cost: account.total_cost,
      costMonth: account.cost_month ?? null,
      objectCount: null,
      counting: account.storages.some(
        (storage) => storage.inventory_status === 'pending' || storage.inventory_status === 'running',
      ),
    };
  }
  const storage = account.storages.find((candidate) => candidate.bucket_name === bucketName);
  if (!storage) return null;
  return {
    size: storage.size,
    cost: storage.cost,
    costMonth: null,
    objectCount: storage.object_count,
    counting: storage.inventory_status === 'pending' || storage.inventory_status === 'running',
  };
}

/** "Billed cost, October 2026" for a month's bill, "Estimated monthly cost" for an estimate. */
export function costTitle(usage: Pick<WatchedUsage, 'costMonth'>): string {
  return usage.costMonth ? `Billed cost, ${formatMonthName(usage.costMonth)}` : 'Estimated monthly cost';
}

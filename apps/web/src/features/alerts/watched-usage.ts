import type { CloudAccountView } from '@cumulo/contract';

/** What an alert compares its limit with: the stored size and the estimated monthly cost. */
export interface WatchedUsage {
  size: number;
  cost: number;
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
    objectCount: storage.object_count,
    counting: storage.inventory_status === 'pending' || storage.inventory_status === 'running',
  };
}

import { AzureObjectStore } from './adapters/azure/index.ts';
import { S3ObjectStore } from './adapters/s3/index.ts';
import type { ObjectStore } from './object-store.ts';
import {
  DEFAULT_RETRY,
  type AzureStoreConfig,
  type RetryOptions,
  type S3StoreConfig,
} from './store-config.ts';

/**
 * Builds the adapter for one account. Call it once per account and keep the store (one SDK client each);
 * Google Cloud Storage joins when its adapter lands.
 */
export function createObjectStore(
  config: S3StoreConfig | AzureStoreConfig,
  retry: RetryOptions = DEFAULT_RETRY,
): ObjectStore {
  return config.provider === 'azure' ? new AzureObjectStore(config, retry) : new S3ObjectStore(config, retry);
}

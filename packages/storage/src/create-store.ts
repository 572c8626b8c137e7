import { AzureObjectStore } from './adapters/azure/index.ts';
import { GoogleObjectStore } from './adapters/google/index.ts';
import { S3ObjectStore } from './adapters/s3/index.ts';
import type { ObjectStore } from './object-store.ts';
import { DEFAULT_RETRY, type RetryOptions, type StoreConfig } from './store-config.ts';

/** Builds the adapter for one account. Call it once per account and keep the store (one SDK client each). */
export function createObjectStore(config: StoreConfig, retry: RetryOptions = DEFAULT_RETRY): ObjectStore {
  switch (config.provider) {
    case 'azure':
      return new AzureObjectStore(config, retry);
    case 'google':
      return new GoogleObjectStore(config, retry);
    default:
      return new S3ObjectStore(config, retry);
  }
}

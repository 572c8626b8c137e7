import type { ObjectStore } from './object-store.ts';
import { DEFAULT_RETRY, type ConnectOptions, type RetryOptions, type StoreConfig } from './store-config.ts';

/**
 * Builds the adapter for one account. Call it once per account and keep the store (one SDK client each).
 * Each adapter is loaded on first use: the provider SDKs weigh 15 to 35 MB of memory apiece once loaded, and a
 * process serving only S3-family accounts never pays for the Azure and Google ones.
 */
export async function createObjectStore(
  config: StoreConfig,
  retry: RetryOptions = DEFAULT_RETRY,
  connect: ConnectOptions = {},
): Promise<ObjectStore> {
  switch (config.provider) {
    case 'azure': {
      const { AzureObjectStore } = await import('./adapters/azure/index.ts');
      return new AzureObjectStore(config, retry);
    }
    case 'google': {
      const { GoogleObjectStore } = await import('./adapters/google/index.ts');
      return new GoogleObjectStore(config, retry);
    }
    default: {
      const { S3ObjectStore } = await import('./adapters/s3/index.ts');
      return new S3ObjectStore(config, retry, connect);
    }
  }
}

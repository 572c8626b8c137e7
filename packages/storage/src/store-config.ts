import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Provider } from './object-store.ts';

/** S3-API providers; each is served by the one S3 adapter with its own endpoint rules. */
export type S3Provider = Extract<Provider, 'aws' | 'wasabi' | 'backblaze' | 'filebase' | 'genericS3'>;

export interface S3StoreConfig {
  provider: S3Provider;
  accessKeyId: string;
  secretAccessKey: string;
  /** aws/wasabi/backblaze region; defaults per provider (wasabi us-east-1). */
  region?: string;
  /** genericS3: the service URL; for the others an override (tests, private deployments). */
  endpoint?: string;
  /** genericS3 advanced area: path-style addressing (default true for genericS3, false elsewhere). */
  forcePathStyle?: boolean;
  /** genericS3 advanced area: request signature version. */
  signatureVersion?: 'v4' | 'v2';
}

export interface AzureStoreConfig {
  provider: 'azure';
  accountName: string;
  accountKey: string;
  /** Override of https://{account}.blob.core.windows.net (e.g. Azurite http://127.0.0.1:10000/devstoreaccount1). */
  endpoint?: string;
}

export interface GoogleStoreConfig {
  provider: 'google';
  /** The service-account JSON key as pasted by the user. */
  credentialsJson: string;
  endpoint?: string;
}

/** Everything an adapter needs to reach one account; adapters never read the environment. */
export type StoreConfig = S3StoreConfig | AzureStoreConfig | GoogleStoreConfig;

/** Retry policy handed to each SDK's own retry mechanism (exponential backoff with jitter). */
export interface RetryOptions {
  maxAttempts: number;
  /** An attempt whose socket stays silent this long fails (and is retried); S3 family. */
  idleTimeoutMs?: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 5 };

/**
 * How a client opens its connections. The server passes agents that apply its outbound address policy to
 * tenant-supplied endpoints; without them the SDK's own agents are used. S3 family only: the Azure and Google
 * adapters reach fixed provider hosts or operator-set endpoints.
 */
export interface ConnectOptions {
  /** Builds the HTTP and HTTPS agents of one SDK client (called once per client, so pools stay per client). */
  agents?: () => { httpAgent: HttpAgent; httpsAgent: HttpsAgent };
}

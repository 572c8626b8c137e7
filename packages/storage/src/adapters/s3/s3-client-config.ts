import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { StorageError } from '../../object-store.ts';
import {
  DEFAULT_RETRY,
  type ConnectOptions,
  type RetryOptions,
  type S3StoreConfig,
} from '../../store-config.ts';

const DEFAULT_REGION = 'us-east-1';
const FILEBASE_ENDPOINT = 'https://s3.filebase.com';
export const CONNECT_TIMEOUT_MS = 10_000;
export const IDLE_TIMEOUT_MS = 120_000;

/** Where one S3-family account is reached: the signing region and, unless the SDK resolves it (aws), the endpoint. */
export interface S3Location {
  region: string;
  endpoint: string | undefined;
}

/** Endpoint and region rules per provider; `config.endpoint` overrides every provider's own endpoint. */
export function s3LocationFor(config: S3StoreConfig): S3Location {
  switch (config.provider) {
    case 'aws':
      return { region: config.region ?? DEFAULT_REGION, endpoint: config.endpoint };
    case 'wasabi': {
      const region = config.region ?? DEFAULT_REGION;
      return { region, endpoint: config.endpoint ?? `https://s3.${region}.wasabisys.com` };
    }
    case 'backblaze': {
      // A B2 key lives in one region (e.g. us-west-004); its S3 endpoint is named after it.
      const region = config.region ?? backblazeRegionOf(config.endpoint);
      if (!region) {
        throw new StorageError(
          'Unsupported',
          'A Backblaze account needs the region of its key (for example us-west-004)',
          config.provider,
        );
      }
      return { region, endpoint: config.endpoint ?? `https://s3.${region}.backblazeb2.com` };
    }
    case 'filebase':
      return { region: DEFAULT_REGION, endpoint: config.endpoint ?? FILEBASE_ENDPOINT };
    case 'genericS3':
      if (!config.endpoint) {
        throw new StorageError('Unsupported', 'A generic S3 account needs its service URL', config.provider);
      }
      return { region: config.region ?? DEFAULT_REGION, endpoint: config.endpoint };
  }
}

function backblazeRegionOf(endpoint: string | undefined): string | undefined {
  if (!endpoint) return undefined;
  return /^https?:\/\/s3\.([a-z0-9-]+)\.backblazeb2\.com/i.exec(endpoint)?.[1];
}

/**
 * The S3Client settings of one account. Throws StorageError('Unsupported') for Signature V2: the AWS SDK v3 has
 * no V2 signer and the project does not hand-roll request signing.
 */
export function s3ClientConfig(
  config: S3StoreConfig,
  retry: RetryOptions = DEFAULT_RETRY,
  connect: ConnectOptions = {},
): S3ClientConfig {
  if (config.signatureVersion === 'v2') {
    throw new StorageError('Unsupported', 'Signature V2 is not supported; use V4', config.provider);
  }
  const { region, endpoint } = s3LocationFor(config);
  const realAws = config.provider === 'aws' && config.endpoint === undefined;
  return {
    region,
    endpoint,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // Path style for service URLs and overridden endpoints (s3rver, MinIO, private gateways), whose hosts
    // rarely resolve bucket subdomains; the public clouds take virtual-hosted style.
    forcePathStyle:
      config.forcePathStyle ?? (config.provider === 'genericS3' || config.endpoint !== undefined),
    // Other S3 implementations reject (or store) the SDK's default CRC32 trailers and aws-chunked framing.
    ...(realAws
      ? {}
      : { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }),
    // A bucket in another AWS region answers 301; the SDK re-sends to the bucket's region.
    followRegionRedirects: realAws,
    // The SDK's own retries: exponential backoff with jitter on SlowDown, 503 and throttling answers; the adaptive
    // mode also slows the whole client (shared by every transfer of the account) while the provider throttles.
    maxAttempts: retry.maxAttempts,
    retryMode: 'adaptive',
    // A provider that stops answering must not hang a walk or a transfer forever (the SDK waits without limit by
    // default): connecting gets 10 s, and a socket silent for 2 minutes fails the attempt, which is then retried.
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      socketTimeout: retry.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
      // The caller's agents (the server's outbound address policy) replace the SDK's keep-alive pools.
      ...connect.agents?.(),
    },
  };
}

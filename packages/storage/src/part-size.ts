import type { Provider } from './object-store.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Multipart limits per provider family (S3 API; Azure block blobs; GCS resumable chunks). */
export const PART_LIMITS = {
  s3: { minPart: 5 * MiB, maxPart: 5 * GiB, maxParts: 10_000 },
  azure: { minPart: 4 * MiB, maxPart: 4000 * MiB, maxParts: 50_000 },
  google: {
    minPart: 8 * MiB,
    maxPart: 5 * GiB,
    maxParts: Number.POSITIVE_INFINITY,
    chunkMultiple: 256 * 1024,
  },
} as const;

/** Parts in flight per multipart write when the caller does not say. */
export const DEFAULT_PART_CONCURRENCY = 4;

/** Above this size a write goes in parts; at or below it, one request. */
export const SINGLE_REQUEST_MAX = 8 * MiB;

export function partFamily(provider: Provider): keyof typeof PART_LIMITS {
  if (provider === 'azure') return 'azure';
  if (provider === 'google') return 'google';
  return 's3';
}

/**
 * The part size for an object of `size` bytes: the smallest size at or above the provider minimum that keeps
 * the part count within its maximum, rounded up to whole MiB (to a 256 KiB multiple for GCS). Throws when the
 * object cannot fit at all (larger than maxPart × maxParts).
 */
export function partSizeFor(provider: Provider, size: number): number {
  const family = partFamily(provider);
  const limits = PART_LIMITS[family];
  const needed = Number.isFinite(limits.maxParts) ? Math.ceil(size / limits.maxParts) : 0;
  const unit = family === 'google' ? PART_LIMITS.google.chunkMultiple : MiB;
  const partSize = Math.max(limits.minPart, Math.ceil(needed / unit) * unit);
  if (partSize > limits.maxPart) {
    throw new RangeError(
      `an object of ${size} bytes exceeds the ${provider} limit of ${limits.maxPart * limits.maxParts} bytes`,
    );
  }
  return partSize;
}

import {
  PROVIDER_NAMES,
  QUOTA_UNLIMITED,
  isS3Family,
  quotaRemaining,
  type ProviderName,
  type QuotaKey,
  type UserProfile,
} from '@cumulo/contract';
import { ApiError } from '../../api/client.ts';

/** The server's over-quota answer (403 {message, title, quota, remaining}), or null for any other failure. */
export function quotaRefusal(error: unknown): { title: string; message: string } | null {
  if (!(error instanceof ApiError) || error.status !== 403) return null;
  const body = error.body;
  if (!body || typeof body !== 'object' || !('remaining' in body) || !('title' in body)) return null;
  const { title, message } = body as { title: unknown; message?: unknown };
  if (typeof title !== 'string') return null;
  return { title, message: typeof message === 'string' ? message : '' };
}

/**
 * Spec 001 §5's check before work starts: the bytes left of a quota when `bytes` would exceed them, else null
 * (no such quota, unlimited, or enough left).
 */
export function quotaShortfall(profile: UserProfile, key: QuotaKey, bytes: number): number | null {
  const usage = profile.quota[key];
  if (!usage || usage.total === QUOTA_UNLIMITED || usage.total < 0) return null;
  const left = quotaRemaining(usage);
  return bytes > left ? left : null;
}

const isProviderName = (provider: string): provider is ProviderName =>
  (PROVIDER_NAMES as readonly string[]).includes(provider);

/**
 * The quota the server counts a direct upload against (apps/server uploadQuotaOf): accelerated s3_acceleration, a
 * Wasabi account wasabi, another S3-family store s3_native; none for the others.
 */
export function uploadQuotaKey(provider: string, accelerate: boolean): QuotaKey | null {
  if (accelerate) return 's3_acceleration';
  if (provider === 'wasabi') return 'wasabi';
  return isProviderName(provider) && isS3Family(provider) ? 's3_native' : null;
}

import { QUOTA_UNLIMITED, quotaRemaining, type QuotaKey, type UserProfile } from '@cumulo/contract';
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

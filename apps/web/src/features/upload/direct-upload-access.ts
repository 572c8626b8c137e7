import type { UserProfile } from '@cumulo/contract';

/** Spec 001 §6: /S3Direct needs a trial or the native-S3 package, and a referrer other than 2. */
export function canUseDirectUpload(profile: UserProfile): boolean {
  const entitled = profile.in_trial || profile.package.has_s3_native;
  return entitled && String(profile.referrer_id ?? '') !== '2';
}

/** The transfer-acceleration quota of spec 001 §5, in bytes; null when the profile carries none. */
export function accelerationQuotaLeft(profile: UserProfile): number | null {
  const quota = profile.quota.s3_acceleration;
  if (!quota || quota.total < 0) return null;
  return Math.max(0, quota.total - quota.used);
}

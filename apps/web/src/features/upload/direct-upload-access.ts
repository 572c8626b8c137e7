import type { UserProfile } from '@cumulo/contract';

/** Spec 001 §6: /S3Direct needs a trial or the native-S3 package, and a referrer other than 2. */
export function canUseDirectUpload(profile: UserProfile): boolean {
  const entitled = profile.in_trial || profile.package.has_s3_native;
  return entitled && String(profile.referrer_id ?? '') !== '2';
}

/** Messages of the bucket name rules (spec 000 §5): the two the spec quotes, and ours for the rest. */
export const bucketNameMessages = {
  required: 'Name is required.',
  uppercase: 'Bucket names must not contain uppercase characters.',
  start: 'Bucket names must start with a lowercase letter or a number.',
  adjacentPeriods: 'Bucket names must not contain two adjacent periods.',
  dashNextToPeriod: 'Bucket names must not contain a dash next to a period.',
  end: 'Bucket names must not end with a dash or a period.',
  invalidCharacters: 'Bucket names can contain only lowercase letters, numbers, periods and dashes.',
  length: 'Bucket names must be between 3 and 63 characters long.',
  ipAddress: 'Bucket names must not be formatted as an IP address.',
  taken: 'Bucket with same name exist',
} as const;

export const BUCKET_NAME_MIN = 3;
export const BUCKET_NAME_MAX = 63;

/** Every bucket name rule the name breaks, each with its own message, in the spec's order; [] when valid. */
export function bucketNameErrors(name: string): string[] {
  const m = bucketNameMessages;
  if (name.length === 0) return [m.required];
  const errors: string[] = [];
  if (/[A-Z]/.test(name)) errors.push(m.uppercase);
  if (!/^[a-z0-9]/.test(name)) errors.push(m.start);
  if (name.includes('..')) errors.push(m.adjacentPeriods);
  if (/-\.|\.-/.test(name)) errors.push(m.dashNextToPeriod);
  if (/[-.]$/.test(name)) errors.push(m.end);
  if (/[^a-zA-Z0-9.-]/.test(name)) errors.push(m.invalidCharacters);
  if (name.length < BUCKET_NAME_MIN || name.length > BUCKET_NAME_MAX) errors.push(m.length);
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) errors.push(m.ipAddress);
  return errors;
}

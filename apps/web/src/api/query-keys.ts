/** Every TanStack Query key of the app, so invalidations name the same key the queries use. */
export const queryKeys = {
  profile: ['users', '_me'] as const,
  signupInfo: (token: string) => ['user', 'signupinfo', token] as const,
  accountAlerts: (accountId: string) => ['alerts', accountId] as const,
  notifications: ['notifications'] as const,
  accounts: ['cloud-accounts'] as const,
  accessInfo: ['cloud-accounts-access-info'] as const,
  /** The add-provider screen's reading of access_info (with wasabi_create); shares the prefix above. */
  accessInfoForSetup: ['cloud-accounts-access-info', 'setup'] as const,
  liveBuckets: (accountId: string) => ['cloudaccount', 'list_buckets', accountId] as const,
  bucketExists: (accountId: string, bucketName: string) =>
    ['storages', 'exists', accountId, bucketName] as const,
};

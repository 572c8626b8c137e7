import type { TransferProviderFilter } from '@cumulo/contract';

/** Every TanStack Query key of the app, so invalidations name the same key the queries use. */
export const queryKeys = {
  profile: ['users', '_me'] as const,
  /** The organisation's members (GET /users) and one member (GET /users/{id}). */
  members: ['members'] as const,
  member: (id: string) => ['members', id] as const,
  /** The invitations nobody accepted yet (GET /users/invitations). */
  pendingInvitations: ['invitations'] as const,
  /** Service ACLs (GET /role_access_levels/…, /user_access_levels/…); the prefix ['access'] covers them all. */
  roleAcls: ['access', 'roles'] as const,
  rolePermissions: (aclId: string) => ['access', 'roles', aclId] as const,
  userAcls: (userId: string) => ['access', 'users', userId] as const,
  userPermissions: (aclId: string) => ['access', 'users', 'permissions', aclId] as const,
  signupInfo: (token: string) => ['user', 'signupinfo', token] as const,
  /** The single sign-on buttons the server offers (GET /authentication/providers). */
  authProviders: ['authentication', 'providers'] as const,
  accountAlerts: (accountId: string) => ['alerts', accountId] as const,
  notifications: ['notifications'] as const,
  /** Under ['notifications'], so whatever reads the bell's list again reads the count too. */
  unreadNotifications: ['notifications', 'unread'] as const,
  accounts: ['cloud-accounts'] as const,
  /** The signed-in member's dashboard widgets (GET /dashboard). */
  dashboard: ['dashboard'] as const,
  /** The audit trail (/logs): its filter lists and its pages per filter; the prefix ['audits'] covers both. */
  auditFilters: ['audits', 'filters'] as const,
  auditPages: (filters: object) => ['audits', 'pages', filters] as const,
  /** The signed-in member's API keys (GET /apikey/ListApiKey). */
  apiKeys: ['apikey'] as const,
  accessInfo: ['cloud-accounts-access-info'] as const,
  liveBuckets: (accountId: string) => ['cloudaccount', 'list_buckets', accountId] as const,
  bucketExists: (accountId: string, bucketName: string) =>
    ['storages', 'exists', accountId, bucketName] as const,
  /** Every page of one folder of the bucket browser; the prefix ['storage-content'] covers all folders. */
  folderContent: (storageId: string, path: string) => ['storage-content', storageId, path] as const,
  objectSearch: (storageId: string, path: string, keyword: string) =>
    ['storage-content', storageId, path, 'search', keyword] as const,
  /** Media info of one object (GET /media/info); the prefix ['media-info'] covers every object. */
  mediaInfo: (accountId: string, bucket: string, path: string) =>
    ['media-info', accountId, bucket, path] as const,
  /** Cost and usage analytics (issue 24): every key starts with 'analytics', so a refresh invalidates them all. */
  analytics: ['analytics'] as const,
  analyticsCall: (path: string, query: object) => ['analytics', path, query] as const,
  /** Media search (issue 26): one answer per request body. */
  mediaSearch: (body: object) => ['media-search', body] as const,
  /** Finance (issue 25): every key starts with 'finance', so a budget saved refreshes every view of it. */
  finance: ['finance'] as const,
  /** Hybrik profile jobs (issue 26): settings, profiles and each tab's jobs under one prefix. */
  hybrik: ['hybrik'] as const,
  hybrikSettings: ['hybrik', 'settings'] as const,
  hybrikProfiles: ['hybrik', 'profiles'] as const,
  hybrikJobs: (filter: string) => ['hybrik', 'jobs', filter] as const,
  financeCall: (path: string, query: object) => ['finance', path, query] as const,
  /** Billing (issue 22): every key starts with 'billing', so one prefix refreshes them after a purchase. */
  billing: ['billing'] as const,
  paymentProfiles: ['billing', 'payment_profiles'] as const,
  billingInfo: ['billing', 'billing_info'] as const,
  products: ['billing', 'products'] as const,
  packages: ['billing', 'packages'] as const,
  subscriptionEvents: (subscriptionId: string) => ['billing', 'events', subscriptionId] as const,
  shares: ['shares'] as const,
  sharesPage: (page: number) => ['shares', page] as const,
  chatWebhook: ['organizations', '_me', 'chat_webhook'] as const,
  publicShare: (token: string) => ['sharing', token] as const,
  /** The organisation's live batches, seeded by GET /transfer/ongoing and kept current by /rm messages. */
  transfersOngoing: ['transfer', 'ongoing'] as const,
  /** The ids of the live batches a provider filter keeps (the filtered Transfer Status pages); under the prefix above. */
  transfersOngoingIn: (filter: TransferProviderFilter) => ['transfer', 'ongoing', 'in', filter] as const,
  /** Every page of every batch history (status page, dashboard): the prefix to invalidate. */
  transferLists: ['transfer', 'get_all'] as const,
  transferList: (type: number, pagesize: number, page: number, filter: TransferProviderFilter = {}) =>
    ['transfer', 'get_all', type, pagesize, page, filter] as const,
  /** Every Today / Yesterday / This Week list: the prefix to invalidate. */
  c2cHistory: ['c2c', 'history'] as const,
  c2cHistoryIn: (filter: TransferProviderFilter) => ['c2c', 'history', filter] as const,
  /** Every sync job list (the /Sync, /replication and dashboard lists): the prefix to invalidate. */
  syncJobLists: ['sync', 'jobs'] as const,
  syncJobs: (kind: 'sync' | 'replication' | 'all') => ['sync', 'jobs', kind] as const,
  /** One job's cycles, newest first; the prefix ['sync', 'cycles'] covers every job. */
  syncCycles: (syncJobId: string) => ['sync', 'cycles', syncJobId] as const,
  /** Encoding (issue 26): the preset catalogue and the organisation's job list. */
  encodingPresets: ['encoding', 'presets'] as const,
  encodingJobs: ['encoding', 'jobs'] as const,
  /** The operator console (issue 28): every admin report under one prefix, refreshed after a change. */
  admin: ['admin'] as const,
  adminCall: (path: string, query: object) => ['admin', path, query] as const,
};

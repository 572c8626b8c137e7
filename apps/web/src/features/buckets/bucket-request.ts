import {
  BUCKET_PERMISSIONS,
  bucketMessages,
  type BucketPermission,
  type CreateBucketBody,
  type ProviderName,
} from '@cumulo/contract';

export type PermissionFlags = Record<BucketPermission, boolean>;

export interface BucketUser {
  /** Canonical user ID or e-mail of the grantee. */
  user: string;
  permissions: PermissionFlags;
}

export const NO_PERMISSIONS: PermissionFlags = {
  READ: false,
  WRITE: false,
  READ_ACP: false,
  WRITE_ACP: false,
};

/** Why a user entry cannot be saved yet: a user and at least one permission are needed (spec 000 §5). */
export function bucketUserErrors(entry: BucketUser): { user: string | null; permissions: string | null } {
  return {
    user: entry.user.trim() === '' ? bucketMessages.userRequired : null,
    permissions: BUCKET_PERMISSIONS.some((p) => entry.permissions[p])
      ? null
      : bucketMessages.permissionRequired,
  };
}

/** Adds an entry, or replaces the permissions of the same user (user ids and e-mails compare case-insensitively). */
export function upsertBucketUser(users: readonly BucketUser[], entry: BucketUser): BucketUser[] {
  const user = entry.user.trim();
  const others = users.filter((u) => u.user.toLowerCase() !== user.toLowerCase());
  return [...others, { user, permissions: { ...entry.permissions } }];
}

export interface NewBucketDraft {
  name: string;
  region: string;
  provider: ProviderName;
  configBucket: string | null;
  users: readonly BucketUser[];
  publicRead: boolean;
  systemRead: boolean;
}

/** The body of POST /cloud_accounts/{id}/storages (createBucketBody in the contract). */
export function createBucketRequest(draft: NewBucketDraft): CreateBucketBody {
  return {
    bucket_name: draft.name,
    region: draft.region,
    account_type: draft.provider,
    config_bucket: draft.configBucket,
    users: draft.users.map((u) => ({ user: u.user, permissions: { ...u.permissions } })),
    public: { permissions: { READ: draft.publicRead } },
    system: { permissions: { READ: draft.systemRead } },
  };
}

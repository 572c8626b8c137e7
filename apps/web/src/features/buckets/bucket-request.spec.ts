import { describe, expect, it } from 'vitest';
import { bucketMessages } from '@cumulo/contract';
import { NO_PERMISSIONS, bucketUserErrors, createBucketRequest, upsertBucketUser } from './bucket-request.ts';

describe('bucket users (spec 000 §5: a user and at least one permission)', () => {
  it('reports a missing user and a missing permission separately', () => {
    expect(bucketUserErrors({ user: '  ', permissions: NO_PERMISSIONS })).toEqual({
      user: bucketMessages.userRequired,
      permissions: bucketMessages.permissionRequired,
    });
    expect(
      bucketUserErrors({ user: 'ops@example.com', permissions: { ...NO_PERMISSIONS, WRITE_ACP: true } }),
    ).toEqual({ user: null, permissions: null });
  });

  it('saving the same user again replaces its permissions', () => {
    const first = upsertBucketUser([], {
      user: ' Ops@Example.com ',
      permissions: { ...NO_PERMISSIONS, READ: true },
    });
    const again = upsertBucketUser(first, {
      user: 'ops@example.com',
      permissions: { ...NO_PERMISSIONS, WRITE: true },
    });
    expect(again).toEqual([{ user: 'ops@example.com', permissions: { ...NO_PERMISSIONS, WRITE: true } }]);
  });
});

describe('createBucketRequest', () => {
  it('builds the createBucketBody shape', () => {
    expect(
      createBucketRequest({
        name: 'media',
        region: 'us-west-2',
        provider: 'aws',
        configBucket: null,
        users: [],
        publicRead: false,
        systemRead: true,
      }),
    ).toEqual({
      bucket_name: 'media',
      region: 'us-west-2',
      account_type: 'aws',
      config_bucket: null,
      users: [],
      public: { permissions: { READ: false } },
      system: { permissions: { READ: true } },
    });
  });
});

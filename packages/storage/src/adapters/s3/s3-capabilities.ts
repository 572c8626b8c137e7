import {
  GetBucketAccelerateConfigurationCommand,
  GetBucketAclCommand,
  GetBucketCorsCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketTaggingCommand,
  GetObjectTaggingCommand,
  GetBucketVersioningCommand,
  PutBucketAccelerateConfigurationCommand,
  PutBucketAclCommand,
  PutBucketCorsCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  type Grant,
  type LifecycleRule,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { AclGrant, ObjectStoreCapabilities } from '../../object-store.ts';
import type { S3Provider } from '../../store-config.ts';
import { toStorageError } from './s3-errors.ts';

/** The lifecycle rule Cumulo owns; other rules of the bucket are kept as they are. */
export const ABORT_UPLOADS_RULE_ID = 'cumulo-abort-incomplete-uploads';

/** Bucket settings; direct uploads are declared by the store itself (every S3-family provider has them). */
type BucketFeature = Exclude<
  keyof ObjectStoreCapabilities,
  'directUpload' | 'parts' | 'partLayout' | 'metadataInListings'
>;

const PERMISSIONS = ['READ', 'WRITE', 'READ_ACP', 'WRITE_ACP', 'FULL_CONTROL'] as const;

/**
 * Which optional features each S3-family provider offers through its S3 API. Backblaze and Filebase accept only
 * canned ACLs and document no object tagging, Backblaze keeps versions and lifecycle in its native API,
 * acceleration is an AWS feature.
 */
const FEATURES: Record<S3Provider, ReadonlyArray<BucketFeature>> = {
  aws: ['acl', 'cors', 'accelerate', 'versioning', 'lifecycle', 'tags', 'objectTags'],
  wasabi: ['acl', 'cors', 'versioning', 'lifecycle', 'tags', 'objectTags'],
  genericS3: ['acl', 'cors', 'versioning', 'lifecycle', 'tags', 'objectTags'],
  backblaze: ['cors'],
  filebase: ['cors'],
};

function toAclGrant(grant: Grant): AclGrant | null {
  const permission = PERMISSIONS.find((p) => p === grant.Permission);
  const grantee = grant.Grantee;
  if (!permission || !grantee) return null;
  if (grantee.Type === 'CanonicalUser' && grantee.ID)
    return { grantee: { type: 'user', id: grantee.ID }, permission };
  if (grantee.Type === 'AmazonCustomerByEmail' && grantee.EmailAddress) {
    return { grantee: { type: 'email', email: grantee.EmailAddress }, permission };
  }
  if (grantee.Type === 'Group' && grantee.URI)
    return { grantee: { type: 'group', uri: grantee.URI }, permission };
  return null;
}

function toS3Grant(grant: AclGrant): Grant {
  const { grantee, permission } = grant;
  switch (grantee.type) {
    case 'user':
      return { Grantee: { Type: 'CanonicalUser', ID: grantee.id }, Permission: permission };
    case 'email':
      return {
        Grantee: { Type: 'AmazonCustomerByEmail', EmailAddress: grantee.email },
        Permission: permission,
      };
    case 'group':
      return { Grantee: { Type: 'Group', URI: grantee.uri }, Permission: permission };
  }
}

/** The capabilities an S3-family store declares for its provider, each bound to the account's one client. */
export function s3Capabilities(client: S3Client, provider: S3Provider): ObjectStoreCapabilities {
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw toStorageError(error, provider);
    }
  };
  /** A bucket without that configuration answers with an error named after it; it means "none". */
  const orNone = async <T>(run: () => Promise<T>, missingName: string, none: T): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof Error && error.name === missingName) return none;
      throw toStorageError(error, provider);
    }
  };

  const all: Required<Pick<ObjectStoreCapabilities, BucketFeature>> = {
    acl: {
      getBucketAcl: (bucket) =>
        call(async () => {
          const answer = await client.send(new GetBucketAclCommand({ Bucket: bucket }));
          return (answer.Grants ?? []).flatMap((g) => toAclGrant(g) ?? []);
        }),
      putBucketAcl: (bucket, grants) =>
        call(async () => {
          // PutBucketAcl replaces the whole policy and must name the owner, which only the current ACL tells.
          const current = await client.send(new GetBucketAclCommand({ Bucket: bucket }));
          await client.send(
            new PutBucketAclCommand({
              Bucket: bucket,
              AccessControlPolicy: { Owner: current.Owner, Grants: grants.map(toS3Grant) },
            }),
          );
        }),
    },
    cors: {
      getCors: (bucket) =>
        orNone(
          async () => {
            const answer = await client.send(new GetBucketCorsCommand({ Bucket: bucket }));
            return (answer.CORSRules ?? []).map((rule) => ({
              allowedOrigins: rule.AllowedOrigins ?? [],
              allowedMethods: rule.AllowedMethods ?? [],
              allowedHeaders: rule.AllowedHeaders ?? [],
              exposeHeaders: rule.ExposeHeaders ?? [],
              maxAgeSeconds: rule.MaxAgeSeconds ?? 0,
            }));
          },
          'NoSuchCORSConfiguration',
          [],
        ),
      putCors: (bucket, rules) =>
        call(async () => {
          await client.send(
            new PutBucketCorsCommand({
              Bucket: bucket,
              CORSConfiguration: {
                CORSRules: rules.map((rule) => ({
                  AllowedOrigins: rule.allowedOrigins,
                  AllowedMethods: rule.allowedMethods,
                  AllowedHeaders: rule.allowedHeaders,
                  ExposeHeaders: rule.exposeHeaders,
                  MaxAgeSeconds: rule.maxAgeSeconds,
                })),
              },
            }),
          );
        }),
    },
    accelerate: {
      getAccelerate: (bucket) =>
        call(async () => {
          const answer = await client.send(new GetBucketAccelerateConfigurationCommand({ Bucket: bucket }));
          return answer.Status === 'Enabled';
        }),
      putAccelerate: (bucket, enabled) =>
        call(async () => {
          await client.send(
            new PutBucketAccelerateConfigurationCommand({
              Bucket: bucket,
              AccelerateConfiguration: { Status: enabled ? 'Enabled' : 'Suspended' },
            }),
          );
        }),
    },
    versioning: {
      getVersioning: (bucket) =>
        call(async () => {
          const answer = await client.send(new GetBucketVersioningCommand({ Bucket: bucket }));
          if (answer.Status === 'Enabled') return 'enabled';
          return answer.Status === 'Suspended' ? 'suspended' : 'off';
        }),
      putVersioning: (bucket, enabled) =>
        call(async () => {
          await client.send(
            new PutBucketVersioningCommand({
              Bucket: bucket,
              VersioningConfiguration: { Status: enabled ? 'Enabled' : 'Suspended' },
            }),
          );
        }),
    },
    lifecycle: {
      putAbortIncompleteUploads: (bucket, days) =>
        call(async () => {
          // The lifecycle configuration is replaced as a whole: keep the bucket's other rules.
          const existing = await orNone(
            async () =>
              (await client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }))).Rules ?? [],
            'NoSuchLifecycleConfiguration',
            [] as LifecycleRule[],
          );
          const rules: LifecycleRule[] = [
            ...existing.filter((rule) => rule.ID !== ABORT_UPLOADS_RULE_ID),
            {
              ID: ABORT_UPLOADS_RULE_ID,
              Status: 'Enabled',
              Filter: { Prefix: '' },
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: days },
            },
          ];
          await client.send(
            new PutBucketLifecycleConfigurationCommand({
              Bucket: bucket,
              LifecycleConfiguration: { Rules: rules },
            }),
          );
        }),
    },
    tags: {
      getBucketTags: (bucket) =>
        orNone(
          async () => {
            const answer = await client.send(new GetBucketTaggingCommand({ Bucket: bucket }));
            return Object.fromEntries((answer.TagSet ?? []).map((tag) => [tag.Key ?? '', tag.Value ?? '']));
          },
          'NoSuchTagSet',
          {},
        ),
      putBucketTags: (bucket, tags) =>
        call(async () => {
          await client.send(
            new PutBucketTaggingCommand({
              Bucket: bucket,
              Tagging: { TagSet: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
            }),
          );
        }),
    },
    objectTags: {
      get: (bucket, key) =>
        call(async () => {
          const answer = await client.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: key }));
          return Object.fromEntries((answer.TagSet ?? []).map((tag) => [tag.Key ?? '', tag.Value ?? '']));
        }),
    },
  };

  const declared: ObjectStoreCapabilities = {};
  for (const feature of FEATURES[provider]) Object.assign(declared, { [feature]: all[feature] });
  return declared;
}

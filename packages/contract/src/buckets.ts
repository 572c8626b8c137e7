import { z } from 'zod';
import { bucketNameErrors } from './bucket-name.ts';
import { text } from './text.ts';

/** ACL permissions a bucket user can be granted (spec 000 §3 "New bucket"). */
export const BUCKET_PERMISSIONS = ['READ', 'WRITE', 'READ_ACP', 'WRITE_ACP'] as const;
export type BucketPermission = (typeof BUCKET_PERMISSIONS)[number];

const permissionFlags = z.object(
  Object.fromEntries(BUCKET_PERMISSIONS.map((p) => [p, z.boolean().optional()])) as Record<
    BucketPermission,
    z.ZodOptional<z.ZodBoolean>
  >,
);

/** Messages of the Create New Bucket screen (spec 000 §5, §8); the spec leaves the success wording to us. */
export const bucketMessages = {
  userRequired: 'Enter a user ID or e-mail.',
  permissionRequired: 'Check at least one permission.',
  created: (name: string) =>
    `Bucket ${name} created. Please allow a few minutes for its size and cost to be aggregated.`,
  aclUnsupported: (provider: string) =>
    `The bucket was created, but ${provider} does not support ACL grants, so the users and permissions were not applied.`,
} as const;

/** POST /cloud_accounts/{id}/storages (spec 000 §7). */
export const createBucketBody = z.object({
  bucket_name: text({ max: 255 }).superRefine((name, ctx) => {
    for (const message of bucketNameErrors(name)) ctx.addIssue({ code: 'custom', message });
  }),
  region: text({ trim: true, max: 64 }).min(1, 'Region is required.'),
  account_type: z.union([text({ max: 32 }), z.int()]).optional(),
  /** Name of an existing bucket of the same account whose settings (CORS, versioning, tags…) are copied. */
  config_bucket: text({ max: 255 }).nullable().optional(),
  users: z
    .array(
      z.object({
        /** Canonical user ID or e-mail of the grantee. */
        user: text({ trim: true, max: 256 }).min(1, bucketMessages.userRequired),
        permissions: permissionFlags.refine((p) => Object.values(p).some(Boolean), {
          message: bucketMessages.permissionRequired,
        }),
      }),
    )
    .max(100)
    .optional(),
  public: z.object({ permissions: z.object({ READ: z.boolean().optional() }) }).optional(),
  system: z.object({ permissions: z.object({ READ: z.boolean().optional() }) }).optional(),
});
export type CreateBucketBody = z.infer<typeof createBucketBody>;

/** GET /cloud_accounts/{id}/storages/exists?bucket_name&account_type */
export const bucketExistsQuery = z.object({
  bucket_name: text({ max: 255 }),
  account_type: text({ max: 32 }).optional(),
});
export const bucketExistsAnswer = z.object({
  exists: z.boolean(),
  /** 'Bucket with same name exist' when taken, else null. */
  message: z.string().nullable(),
});

export const createBucketAnswer = z.object({
  message: z.string(),
  bucket_name: z.string(),
  region: z.string(),
  /** Settings copied from config_bucket (names of the capabilities applied). */
  copied: z.array(z.string()),
  /** Set when users/permissions were asked for but the provider cannot apply ACL grants. */
  warning: z.string().nullable(),
});

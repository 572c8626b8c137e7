import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/**
 * A direct browser upload in parts (spec 001 §4 "Direct upload"): the provider's upload id (S3 multipart
 * UploadId, the Azure block-id prefix, the GCS resumable session) kept server-side, so the same file picked again
 * after a reload resumes from its finished parts, a cancel aborts it, and a sweep aborts abandoned ones so no
 * partial upload stays behind. `fingerprint` identifies the local file (name, size, last modified).
 */
export const uploadSessions = pgTable(
  'upload_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    bucketName: text('bucket_name').notNull(),
    objectKey: text('object_key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    partSize: bigint('part_size', { mode: 'number' }).notNull(),
    contentType: text('content_type'),
    /** The provider's handle, encrypted at rest (a GCS session URL is a bearer credential). */
    providerUploadId: text('provider_upload_id').notNull(),
    status: text('status', { enum: ['active', 'complete', 'aborted'] })
      .notNull()
      .default('active'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    index('upload_sessions_resume_idx').on(
      t.organizationId,
      t.cloudAccountId,
      t.bucketName,
      t.objectKey,
      t.fingerprint,
    ),
    index('upload_sessions_status_idx').on(t.status, t.updatedAt),
  ],
);

/** POST /transfers/report: one row per uploaded file or directory (spec 001 §3 "Upload report"). */
export const uploadReports = pgTable(
  'upload_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    cloudAccountId: uuid('cloud_account_id').references(() => cloudAccounts.id, { onDelete: 'set null' }),
    bucketName: text('bucket_name').notNull(),
    name: text('name').notNull(),
    contentType: text('content_type'),
    size: bigint('size', { mode: 'number' }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    isDirectory: boolean('is_directory').notNull().default(false),
    fileCount: integer('file_count'),
    s3Acceleration: boolean('s3_acceleration').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    index('upload_reports_org_created_idx').on(t.organizationId, t.createdAt),
    // The operator's user list sums each user's uploads (modules/admin).
    index('upload_reports_user_idx').on(t.userId),
  ],
);

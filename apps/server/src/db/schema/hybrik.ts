import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, real, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { HYBRIK_JOB_STATUSES } from '@cumulo/contract';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/**
 * Where an organisation keeps its Hybrik profiles and writes job outputs by default (spec 001 §3 User
 * `hybrik_profiles_bucket`). One row per organisation: its profiles are shared by its members.
 */
export const hybrikSettings = pgTable('hybrik_settings', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  cloudAccountId: uuid('cloud_account_id')
    .notNull()
    .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
  bucket: text('bucket').notNull(),
  /** A folder: empty or ending with '/'. */
  path: text('path').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/** A profile (spec 001 §3 "Hybrik profile"): its JSON is the object `objectKey` of `bucket`; the row lists it. */
export const hybrikProfiles = pgTable(
  'hybrik_profiles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    definitions: jsonb('definitions').$type<Record<string, string>>().notNull().default({}),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    bucket: text('bucket').notNull(),
    objectKey: text('object_key').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('hybrik_profiles_org_idx').on(t.organizationId, t.createdAt)],
);

/**
 * A profile job (spec 001 §3 "Hybrik job"): the profile's JSON with its definitions filled in (`job`), run by the
 * `hybrik.job` worker queued → active → completed or failed. `outputs` are the `s3://bucket/key` it wrote.
 */
export const hybrikJobs = pgTable(
  'hybrik_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    profileId: uuid('profile_id').references(() => hybrikProfiles.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    job: jsonb('job').notNull(),
    sourceCloudAccountId: uuid('source_cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    sourceBucket: text('source_bucket').notNull(),
    sourcePath: text('source_path').notNull(),
    /** Where a `s3://` URL of the output bucket writes (the settings' account when the job was created). */
    outputCloudAccountId: uuid('output_cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    outputBucket: text('output_bucket').notNull(),
    status: text('status', { enum: HYBRIK_JOB_STATUSES }).notNull().default('queued'),
    progress: real('progress').notNull().default(0),
    error: text('error'),
    outputs: jsonb('outputs').$type<string[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    startedAt: timestamp('started_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [index('hybrik_jobs_org_status_idx').on(t.organizationId, t.status, t.createdAt)],
);

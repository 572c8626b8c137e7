import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, real, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { ENCODING_JOB_STATUSES } from '@cumulo/contract';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/**
 * One encoding job (spec 001 §3 "Encoding job"): one source encoded with one preset into one destination folder.
 * `POST /encoding/encode` writes one row per preset; the `encoding.job` worker moves it New → Processing → Finished
 * (or Error); a cancel makes it Stopped. `outputs` are the keys the job wrote, once it finished.
 */
export const encodingJobs = pgTable(
  'encoding_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    sourceCloudAccountId: uuid('source_cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    sourceBucket: text('source_bucket').notNull(),
    sourcePath: text('source_path').notNull(),
    /** The source's size when the job was asked for: what the encoding quota holds for it. */
    sourceSize: bigint('source_size', { mode: 'number' }).notNull(),
    destinationCloudAccountId: uuid('destination_cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    destinationBucket: text('destination_bucket').notNull(),
    destinationPath: text('destination_path').notNull(),
    category: text('category').notNull(),
    preset: text('preset').notNull(),
    status: text('status', { enum: ENCODING_JOB_STATUSES }).notNull().default('New'),
    progress: real('progress').notNull().default(0),
    timeLeft: real('time_left'),
    error: text('error'),
    outputs: jsonb('outputs').$type<string[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('encoding_jobs_org_idx').on(t.organizationId, t.createdAt)],
);

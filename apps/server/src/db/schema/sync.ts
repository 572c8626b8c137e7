import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';
import { transferBatches } from './transfers.ts';

/**
 * A scheduled sync or replication job (spec 000 §3 "Sync info", 001 §3 "Sync info", §7 saveSync / saveSyncWasabi).
 * `kind` says which screen made it: a "sync" (/Sync: frequency, never deletes) or a "replication" (/replication:
 * operation 1, may follow deletes when `allowDelete`). Deleting a job removes only this row and its cycles; the
 * cloud data stays ("this only removes it from the product"). Jobs go with either of their accounts.
 */
export const syncJobs = pgTable(
  'sync_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    kind: text('kind', { enum: ['sync', 'replication'] }).notNull(),
    sourceCloudAccountId: uuid('source_cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    sourceBucket: text('source_bucket').notNull(),
    /** A prefix of the source ('' for the whole bucket); keys keep their path relative to it. */
    sourcePath: text('source_path').notNull().default(''),
    destinationCloudAccountId: uuid('destination_cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    destinationBucket: text('destination_bucket').notNull(),
    destinationPath: text('destination_path').notNull().default(''),
    /** Spec 001 §9: 1 Every Day, 2 Every Week, 3 Every Month. */
    frequency: smallint('frequency').notNull().default(1),
    /** Spec 001 §9 "Replication operation code": 1. */
    operation: smallint('operation').notNull().default(1),
    /** "Sync Deleted objects!": a replication deletes destination objects gone from the source. */
    allowDelete: boolean('allow_delete').notNull().default(false),
    active: boolean('active').notNull().default(true),
    /** Deleted objects are moved under the quarantine prefix and purged after this many days; null deletes. */
    quarantineDays: integer('quarantine_days'),
    /** Delete guardrail: a cycle deleting more than this many objects, or more than this percent of the
     * destination, waits for an Owner's or Admin's approval. */
    deleteThresholdCount: integer('delete_threshold_count').notNull().default(100),
    deleteThresholdPercent: integer('delete_threshold_percent').notNull().default(10),
    /** When a cycle last listed the destination itself (instead of trusting `sync_objects`); null: never. */
    destinationCheckedAt: timestamp('destination_checked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('sync_jobs_org_idx').on(t.organizationId, t.createdAt)],
);

export const SYNC_CYCLE_PHASES = [
  /** Merging the two sorted listings: copy items go into the cycle's batch, deletion candidates into sync_deletions. */
  'diffing',
  /** The batch is with the transfer engine. */
  'copying',
  /** More to delete than the guardrail allows: waits for an Owner's or Admin's decision. */
  'awaiting_approval',
  /** Deleting (or quarantining) the candidates. */
  'deleting',
  'finished',
] as const;
export type SyncCyclePhase = (typeof SYNC_CYCLE_PHASES)[number];

/**
 * One run of a job (spec 000 §4 "Sync last-cycle status codes": 0 Processing, 1 Transferring, 2 Completed,
 * 4 Cancelled, 8 Faulted, 16 NoChange). A dry run diffs and counts without copying or deleting, keeping a sample
 * of keys. At most one real cycle of a job is unfinished at any time (partial unique index), so cycles never
 * overlap whoever starts them.
 */
export const syncCycles = pgTable(
  'sync_cycles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    syncJobId: uuid('sync_job_id')
      .notNull()
      .references(() => syncJobs.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    trigger: text('trigger', { enum: ['schedule', 'manual'] }).notNull(),
    dryRun: boolean('dry_run').notNull().default(false),
    status: smallint('status').notNull().default(0),
    phase: text('phase', { enum: SYNC_CYCLE_PHASES }).notNull().default('diffing'),
    /** The transfer batch that copies this cycle's new and changed objects (transfer type 2). */
    batchId: uuid('batch_id').references(() => transferBatches.id, { onDelete: 'set null' }),
    /** Whether this cycle's diff listed the destination (a full check) or read `sync_objects` instead. */
    destinationListed: boolean('destination_listed').notNull().default(true),
    /** The last relative key the diff fully handled, so a diff killed mid-way resumes after it. */
    diffCursor: text('diff_cursor'),
    sourceCount: integer('source_count').notNull().default(0),
    destinationCount: integer('destination_count').notNull().default(0),
    destinationBytes: bigint('destination_bytes', { mode: 'number' }).notNull().default(0),
    copyCount: integer('copy_count').notNull().default(0),
    copyBytes: bigint('copy_bytes', { mode: 'number' }).notNull().default(0),
    unchangedCount: integer('unchanged_count').notNull().default(0),
    deleteCount: integer('delete_count').notNull().default(0),
    deleteBytes: bigint('delete_bytes', { mode: 'number' }).notNull().default(0),
    deletedCount: integer('deleted_count').notNull().default(0),
    /** The guardrail's decision: null when no approval was needed. */
    approval: text('approval', { enum: ['waiting', 'approved', 'rejected'] }),
    decidedBy: uuid('decided_by').references(() => users.id, { onDelete: 'set null' }),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    /** A dry run's first keys to copy and to delete (bounded), for the screen. */
    sample: jsonb('sample').$type<{
      copy: { key: string; size: number }[];
      delete: { key: string; size: number }[];
    }>(),
    error: text('error'),
    startedAt: timestamp('started_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    index('sync_cycles_job_started_idx').on(t.syncJobId, t.startedAt),
    uniqueIndex('sync_cycles_one_live_idx')
      .on(t.syncJobId)
      .where(sql`${t.finishedAt} IS NULL AND NOT ${t.dryRun}`),
  ],
);

export const SYNC_DELETION_STATUSES = [
  'pending',
  'deleted',
  'quarantined',
  /** Back at the source (or changed at the destination) by the time the delete ran: left alone. */
  'kept',
  'failed',
] as const;
export type SyncDeletionStatus = (typeof SYNC_DELETION_STATUSES)[number];

/**
 * A destination object a replication cycle would delete because it is gone from the source. Written during the
 * diff, before anything is deleted, so the guardrail counts them, an approval deletes exactly these, and a cycle
 * killed mid-delete resumes from the pending ones.
 */
export const syncDeletions = pgTable(
  'sync_deletions',
  {
    cycleId: uuid('cycle_id')
      .notNull()
      .references(() => syncCycles.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    etag: text('etag'),
    status: text('status', { enum: SYNC_DELETION_STATUSES }).notNull().default('pending'),
    error: text('error'),
  },
  (t) => [
    primaryKey({ columns: [t.cycleId, t.key] }),
    index('sync_deletions_status_idx').on(t.cycleId, t.status),
  ],
);

/**
 * What a job's destination holds, as far as its cycles know: one row per relative key, with the source object's
 * size and ETag it was copied from (or, after a full check, found equal to). A cycle that trusts this state lists
 * only the source: a key whose size and source ETag match its row is unchanged without reading the destination,
 * which halves the listing requests of every cycle; a full check lists both sides and rewrites the state.
 */
export const syncObjects = pgTable(
  'sync_objects',
  {
    syncJobId: uuid('sync_job_id')
      .notNull()
      .references(() => syncJobs.id, { onDelete: 'cascade' }),
    /**
     * Relative to the job's paths. The migration declares it COLLATE "C" (drizzle cannot say so here): rows come
     * back in byte order, the order listings are merged in, straight from the primary key.
     */
    key: text('key').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sourceEtag: text('source_etag'),
    /** The cycle that last wrote the row. */
    cycleId: uuid('cycle_id'),
  },
  (t) => [primaryKey({ columns: [t.syncJobId, t.key] })],
);

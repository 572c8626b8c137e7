import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
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

/**
 * A cloud-to-cloud transfer (spec 001 §3 "Batch history entry", §4 "Batch transfer status codes"): copy or move
 * of a whole bucket, of the objects under a prefix, or of a selection of keys and folders, from one
 * account/bucket/path to another. `status` carries the spec's codes (2 Ongoing, 4 Completed, 8 Canceled,
 * 16 Failed, 32 Canceling); `phase` says where an Ongoing batch is (planning the item list, copying, finishing).
 * Counters are kept by the engine as items finish, so listing batches never scans their items.
 */
export const transferBatches = pgTable(
  'transfer_batches',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** Spec 001 §4: 1 migration, 2 replication. */
    transferType: smallint('transfer_type').notNull().default(1),
    operation: text('operation', { enum: ['copy', 'move'] }).notNull(),
    sourceCloudAccountId: uuid('source_cloud_account_id').references(() => cloudAccounts.id, {
      onDelete: 'set null',
    }),
    sourceBucket: text('source_bucket').notNull(),
    /** The prefix copied ('' for the whole bucket); keys below it keep their path relative to it. */
    sourcePath: text('source_path').notNull().default(''),
    /** A selection of keys and folders (ending in '/') under sourcePath; null copies everything under it. */
    sourceSelection: jsonb('source_selection').$type<string[]>(),
    destinationCloudAccountId: uuid('destination_cloud_account_id').references(() => cloudAccounts.id, {
      onDelete: 'set null',
    }),
    destinationBucket: text('destination_bucket').notNull(),
    destinationPath: text('destination_path').notNull().default(''),
    /**
     * The providers of the two accounts when the batch was made (a trigger fills them from `cloud_accounts`), so
     * the operator's reports price and name a past transfer the same after its account is removed.
     */
    sourceProvider: text('source_provider'),
    destinationProvider: text('destination_provider'),
    /** "Skip Existing Files": objects whose size and checksum already match at the destination are skipped. */
    skipExisting: boolean('skip_existing').notNull().default(false),
    status: smallint('status').notNull().default(2),
    /** `held`: a sync cycle's diff is writing the items (issue 6); no transfer job plans or claims it yet. */
    phase: text('phase', { enum: ['held', 'planning', 'copying', 'finished'] })
      .notNull()
      .default('planning'),
    /** The last source key planned, so a planner killed mid-listing resumes after it. */
    planCursor: text('plan_cursor'),
    totalNumber: integer('total_number').notNull().default(0),
    totalSize: bigint('total_size', { mode: 'number' }).notNull().default(0),
    transferredNumber: integer('transferred_number').notNull().default(0),
    transferredSize: bigint('transferred_size', { mode: 'number' }).notNull().default(0),
    failedNumber: integer('failed_number').notNull().default(0),
    skippedNumber: integer('skipped_number').notNull().default(0),
    skippedSize: bigint('skipped_size', { mode: 'number' }).notNull().default(0),
    deletedNumber: integer('deleted_number').notNull().default(0),
    /** Bytes/s over the batch's copying time, capped at 671088640 (spec 001 §4). */
    averageSpeed: bigint('average_speed', { mode: 'number' }).notNull().default(0),
    /** The batch this one retries the failed items of (spec "Retried"). */
    retryOfId: uuid('retry_of_id'),
    /** Set on a batch once a retry of it was started. */
    retried: boolean('retried').notNull().default(false),
    /** The sync job whose cycle started this batch (issue 6), null for a one-off transfer. */
    syncJobId: uuid('sync_job_id'),
    /** Bytes per second the whole batch may read at most (all its jobs together); null is unlimited. */
    bandwidthLimit: bigint('bandwidth_limit', { mode: 'number' }),
    /** The requester's maximum transfer size when they asked (modules/access), checked by planning; null: none. */
    sizeLimit: bigint('size_limit', { mode: 'number' }),
    /** The sync cycle this batch copies for (issue 6). */
    syncCycleId: uuid('sync_cycle_id'),
    error: text('error'),
    requestedAt: timestamp('requested_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /**
     * When retention removed its done, skipped and canceled items (`TRANSFER_ITEMS_RETENTION_DAYS` after it
     * finished, modules/transfers/README.md "Retention"); its failed items and its totals stay.
     */
    itemsPrunedAt: timestamp('items_pruned_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    index('transfer_batches_org_requested_idx').on(t.organizationId, t.requestedAt),
    index('transfer_batches_status_idx').on(t.status),
    // Retention's daily walk reaches only the finished batches it has not pruned yet, however long the history.
    index('transfer_batches_unpruned_idx')
      .on(t.finishedAt)
      .where(sql`${t.phase} = 'finished' AND ${t.itemsPrunedAt} IS NULL`),
    // The operator's reports (modules/admin) read every organisation's batches by period (newest first, the CSV by
    // keyset on requested_at and id) and by user.
    index('transfer_batches_requested_idx').on(t.requestedAt, t.id),
    index('transfer_batches_user_requested_idx').on(t.userId, t.requestedAt),
  ],
);

export const TRANSFER_ITEM_STATUSES = [
  /** Planned, not yet claimed. */
  'pending',
  /** Claimed by a worker whose lease (`leaseUntil`) runs; an expired lease makes it claimable again. */
  'copying',
  /** Copied and verified (and, for a move, the source deleted). */
  'done',
  /** Already at the destination with the same size and checksum ("Skip Existing Files"); for a move, once its
   * source was deleted. */
  'skipped',
  'failed',
  'canceled',
] as const;
export type TransferItemStatus = (typeof TRANSFER_ITEM_STATUSES)[number];

/**
 * One object of a batch. Planning streams the source listing into these rows (never the whole listing in
 * memory); workers claim them in chunks with FOR UPDATE SKIP LOCKED and a lease, so any number of worker
 * processes share a batch and a killed worker's items come back when its lease ends.
 */
export const transferItems = pgTable(
  'transfer_items',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    batchId: uuid('batch_id')
      .notNull()
      .references(() => transferBatches.id, { onDelete: 'cascade' }),
    sourceKey: text('source_key').notNull(),
    destinationKey: text('destination_key').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** The source's ETag and comparable MD5 as listed (a change during the copy is detected by comparing them). */
    sourceEtag: text('source_etag'),
    sourceMd5: text('source_md5'),
    status: text('status', { enum: TRANSFER_ITEM_STATUSES }).notNull().default('pending'),
    attempts: smallint('attempts').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /**
     * The lease owner of the item's last claim (`hostname:pid:job`), kept once it settles, whereas `lease_owner` is
     * cleared: which worker process copied which objects, for operators and the scale-out test.
     */
    claimedBy: text('claimed_by'),
    /**
     * How it was copied: server-side copy, one request, parallel parts, or one stream. `present`: a move's object
     * that "Skip Existing Files" found already at the destination, planned so that a worker deletes its source.
     */
    method: text('method', { enum: ['server-copy', 'single', 'parts', 'stream', 'present'] }),
    /** The destination's multipart handle (S3 UploadId, Azure block-id prefix) while a parts copy runs. */
    uploadId: text('upload_id'),
    partSize: bigint('part_size', { mode: 'number' }),
    /**
     * When openings of an upload went unanswered (sent, then the connection was lost): the store may have opened
     * one the ledger never learned. Once the item has settled, the sweep aborts the key's uploads opened then
     * (engine/lost-uploads.ts) and clears these.
     */
    lostUploadFrom: timestamp('lost_upload_from', { withTimezone: true }),
    lostUploadUntil: timestamp('lost_upload_until', { withTimezone: true }),
    bytesDone: bigint('bytes_done', { mode: 'number' }).notNull().default(0),
    /** Checksums verified for the copy (hex). */
    md5: text('md5'),
    sha256: text('sha256'),
    sourceDeleted: boolean('source_deleted').notNull().default(false),
    error: text('error'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    uniqueIndex('transfer_items_batch_key_idx').on(t.batchId, t.sourceKey),
    index('transfer_items_claim_idx').on(t.batchId, t.status, t.id),
    // The sweep looks for these every minute; there are almost never any.
    index('transfer_items_lost_upload_idx')
      .on(t.id)
      .where(sql`${t.lostUploadFrom} is not null`),
  ],
);

/** A finished part of a parts copy: what a resumed copy skips, and what completing the upload needs. */
export const transferParts = pgTable(
  'transfer_parts',
  {
    itemId: bigint('item_id', { mode: 'number' })
      .notNull()
      .references(() => transferItems.id, { onDelete: 'cascade' }),
    partNumber: integer('part_number').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    etag: text('etag'),
    /** Hex MD5 of the part's bytes (sent as Content-MD5, so the store checked it on arrival). */
    md5: text('md5'),
  },
  (t) => [primaryKey({ columns: [t.itemId, t.partNumber] })],
);

import type pg from 'pg';
import { and, count, eq, gt, inArray, isNull, min, sql } from 'drizzle-orm';
import { BATCH_STATUS, ROLE_ID, SYNC_FULL_CHECK_DAYS, TRANSFER_TYPE } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import {
  syncCycles,
  syncDeletions,
  syncJobs,
  syncObjects,
  transferBatches,
  users,
} from '../../db/schema/index.ts';
import type { SyncCyclePhase } from '../../db/schema/sync.ts';
import { destinationFolder } from '../transfers/engine/keys.ts';
import type { StateObject } from './engine/diff.ts';
import type { SyncCycleRow, SyncJobRow } from './sync.views.ts';
import type { RecordCycleChange } from './sync-cycles.port.ts';

type SyncDeletionRow = typeof syncDeletions.$inferSelect;

/** A copy the diff found: an item of the cycle's batch. */
interface DiffCopy {
  sourceKey: string;
  destinationKey: string;
  size: number;
  sourceEtag: string | null;
  sourceMd5: string | null;
}

/** A destination object gone from the source. */
interface DiffDeletion {
  key: string;
  size: number;
  etag: string | null;
}

/** What one chunk of the diff adds to its cycle, written with the cursor in one transaction. */
export interface DiffChunk {
  copies: DiffCopy[];
  deletions: DiffDeletion[];
  sourceCount: number;
  destinationCount: number;
  destinationBytes: number;
  unchangedCount: number;
  /**
   * A full check's destination keys seen in this chunk, as the job's state must now read them (the state is
   * upserted with the chunk); empty in a cycle that read the state.
   */
  states: StateObject[];
  /** The last relative key the chunk covers. */
  cursor: string;
}

/** How the batch of a cycle stands, as the cycle reads it. */
interface CycleBatchState {
  status: number;
  phase: string;
  error: string | null;
  failedNumber: number;
}

/** A held batch that was dropped: what its quota reservation is settled with (what it copied so far). */
export interface DroppedBatch {
  id: string;
  organizationId: string;
  transferredSize: number;
}
const DROPPED = {
  id: transferBatches.id,
  organizationId: transferBatches.organizationId,
  transferredSize: transferBatches.transferredSize,
};

export type DeletionOutcome = { key: string; status: 'deleted' | 'quarantined' | 'failed'; error?: string };

const UNIQUE_VIOLATION = '23505';
const ONE_LIVE_INDEX = 'sync_cycles_one_live_idx';
const num = (value: unknown) => Number(value ?? 0);
/** Raised inside writeDiffChunk's transaction to roll its chunk back: the cycle stopped diffing meanwhile. */
class NotDiffing extends Error {}
const DAY_MS = 24 * 3600 * 1000;

/**
 * Whether a cycle starting `now` must list the destination itself: the job never did, or not for
 * `SYNC_FULL_CHECK_DAYS`. Otherwise it lists the source only and reads the destination from the state.
 */
function needsFullCheck(destinationCheckedAt: Date | null, now: Date): boolean {
  return (
    destinationCheckedAt === null ||
    now.getTime() - destinationCheckedAt.getTime() >= SYNC_FULL_CHECK_DAYS * DAY_MS
  );
}

/** Whether an error is the partial unique index refusing a second unfinished cycle of a job. */
export function isOverlap(error: unknown): boolean {
  const pgError = error as { code?: string; constraint?: string; cause?: unknown };
  if (pgError?.code === UNIQUE_VIOLATION && pgError.constraint === ONE_LIVE_INDEX) return true;
  return pgError?.cause !== undefined && isOverlap(pgError.cause);
}

/**
 * SQL of sync cycles, their deletion candidates, the job's state (`sync_objects`) and the rows of their transfer
 * batch. The engine's calls take ids from job payloads (never from a request): the job API checked the
 * organisation before anything got here. Every statement goes through drizzle (`sql` where a query needs what the
 * builder does not say); every multi-step write through `transaction`, as in identity.repo.
 */
export class SyncCyclesRepo {
  constructor(
    readonly orm: Database,
    /** For the session advisory lock held while the work runs (Db.locks: apart from the requests' pool). */
    private readonly locks: pg.Pool,
  ) {}

  /** Told of every cycle this repo ends, with its status (the `cumulo_sync_cycles_total` counter). */
  onFinished: ((status: number) => void) | undefined;

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: SyncCyclesRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => {
      const bound = new SyncCyclesRepo(tx as unknown as Database, this.locks);
      bound.onFinished = this.onFinished;
      return work(bound);
    });
  }

  /**
   * Creates a cycle, and for a real one its batch in phase `held` (no transfer job plans or claims it while the
   * diff fills it), in one transaction. null when the job already has an unfinished real cycle (the partial
   * unique index decides, whoever starts it).
   */
  async startCycle(
    job: SyncJobRow,
    trigger: 'schedule' | 'manual',
    dryRun: boolean,
    /** The audit entry of a member's "run now", written in this transaction. */
    record?: RecordCycleChange,
  ): Promise<SyncCycleRow | null> {
    try {
      return await this.transaction(async ({ orm: tx }) => {
        // Decided once, from the job's row as it is now (the caller's copy may be older than the last full
        // check), and kept on the cycle: a resumed diff goes on the way it began.
        const [current] = await tx
          .select({ checkedAt: syncJobs.destinationCheckedAt })
          .from(syncJobs)
          .where(eq(syncJobs.id, job.id));
        const destinationListed = needsFullCheck(current?.checkedAt ?? null, new Date());
        const [cycle] = await tx
          .insert(syncCycles)
          .values({
            syncJobId: job.id,
            organizationId: job.organizationId,
            trigger,
            dryRun,
            destinationListed,
          })
          .returning();
        if (!cycle) throw new Error('insert returned no row');
        if (dryRun) {
          await record?.(tx, cycle);
          return cycle;
        }
        const [batch] = await tx
          .insert(transferBatches)
          .values({
            organizationId: job.organizationId,
            userId: job.createdBy,
            transferType: TRANSFER_TYPE.replication,
            operation: 'copy',
            sourceCloudAccountId: job.sourceCloudAccountId,
            sourceBucket: job.sourceBucket,
            sourcePath: job.sourcePath,
            destinationCloudAccountId: job.destinationCloudAccountId,
            destinationBucket: job.destinationBucket,
            destinationPath: destinationFolder(job.destinationPath),
            skipExisting: false,
            phase: 'held',
            syncJobId: job.id,
            syncCycleId: cycle.id,
          })
          .returning({ id: transferBatches.id });
        if (!batch) throw new Error('insert returned no row');
        const [linked] = await tx
          .update(syncCycles)
          .set({ batchId: batch.id })
          .where(eq(syncCycles.id, cycle.id))
          .returning();
        await record?.(tx, linked ?? cycle);
        return linked ?? cycle;
      });
    } catch (error) {
      if (isOverlap(error)) return null;
      throw error;
    }
  }

  async find(cycleId: string): Promise<SyncCycleRow | undefined> {
    const [row] = await this.orm.select().from(syncCycles).where(eq(syncCycles.id, cycleId));
    return row;
  }

  async findJob(jobId: string): Promise<SyncJobRow | undefined> {
    const [row] = await this.orm.select().from(syncJobs).where(eq(syncJobs.id, jobId));
    return row;
  }

  async organizationOfCycle(cycleId: string): Promise<string | undefined> {
    const [row] = await this.orm
      .select({ organizationId: syncCycles.organizationId })
      .from(syncCycles)
      .where(eq(syncCycles.id, cycleId));
    return row?.organizationId;
  }

  /** The unfinished cycle copying with this batch, once the batch has finished. */
  async cycleOfFinishedBatch(batchId: string): Promise<string | undefined> {
    const [row] = await this.orm
      .select({ id: syncCycles.id })
      .from(syncCycles)
      .innerJoin(transferBatches, eq(transferBatches.id, syncCycles.batchId))
      .where(
        and(
          eq(transferBatches.id, batchId),
          eq(transferBatches.phase, 'finished'),
          eq(syncCycles.phase, 'copying'),
          isNull(syncCycles.finishedAt),
        ),
      );
    return row?.id;
  }

  /**
   * Writes one chunk of the diff: its copies as pending items of the batch (added to the batch's totals, so its
   * progress is live while the engine already copies them), its deletion candidates, its counts and the cursor, in
   * one transaction. Rows already there (a diff that ran twice over a key) are ignored and only what was inserted
   * is counted; a batch no longer Ongoing (canceled, failed) gets no item. undefined when the cycle stopped
   * diffing meanwhile (nothing is written then). `copies`: the items this chunk inserted.
   */
  async writeDiffChunk(
    cycle: Pick<SyncCycleRow, 'id' | 'syncJobId'>,
    batchId: string,
    chunk: DiffChunk,
  ): Promise<{ cycle: SyncCycleRow; batchStatus: number | null; copies: number } | undefined> {
    const copies = chunk.copies;
    const deletions = chunk.deletions;
    let written: { batchStatus: number | null; copies: number };
    try {
      written = await this.transaction(async (tx) => {
        const result = await tx.orm.execute<{ id: string; batch_status: number | null; copies: string }>(sql`
          with items as (
            insert into transfer_items (batch_id, source_key, destination_key, size, source_etag, source_md5)
            select ${batchId}::uuid, * from unnest(${sql.param(copies.map((copy) => copy.sourceKey))}::text[],
              ${sql.param(copies.map((copy) => copy.destinationKey))}::text[],
              ${sql.param(copies.map((copy) => copy.size))}::bigint[],
              ${sql.param(copies.map((copy) => copy.sourceEtag))}::text[],
              ${sql.param(copies.map((copy) => copy.sourceMd5))}::text[])
            where exists (select 1 from transfer_batches where id = ${batchId} and status = ${BATCH_STATUS.ongoing})
            on conflict (batch_id, source_key) do nothing
            returning size
          ), totals as (
            update transfer_batches set updated_at = now(),
              total_number = total_number + (select count(*) from items),
              total_size = total_size + (select coalesce(sum(size), 0) from items)
            where id = ${batchId} and exists (select 1 from items)
          ), deletions as (
            insert into sync_deletions (cycle_id, key, size, etag)
            select ${cycle.id}::uuid, * from unnest(${sql.param(deletions.map((deletion) => deletion.key))}::text[],
              ${sql.param(deletions.map((deletion) => deletion.size))}::bigint[],
              ${sql.param(deletions.map((deletion) => deletion.etag))}::text[])
            on conflict (cycle_id, key) do nothing
            returning size
          )
          update sync_cycles set
            source_count = source_count + ${chunk.sourceCount},
            destination_count = destination_count + ${chunk.destinationCount},
            destination_bytes = destination_bytes + ${chunk.destinationBytes},
            unchanged_count = unchanged_count + ${chunk.unchangedCount},
            copy_count = copy_count + (select count(*) from items),
            copy_bytes = copy_bytes + (select coalesce(sum(size), 0) from items),
            delete_count = delete_count + (select count(*) from deletions),
            delete_bytes = delete_bytes + (select coalesce(sum(size), 0) from deletions),
            diff_cursor = ${chunk.cursor}, updated_at = now()
          where id = ${cycle.id} and phase = 'diffing' and finished_at is null
          returning id, (select status from transfer_batches where id = ${batchId}) as batch_status,
            (select count(*) from items) as copies`);
        const [row] = result.rows;
        // The CTEs' inserts ran whether or not the cycle was still diffing: only a rollback undoes them.
        if (!row) throw new NotDiffing();
        if (chunk.states.length > 0) await tx.#upsertStates(cycle, chunk.states);
        return { batchStatus: row.batch_status ?? null, copies: num(row.copies) };
      });
    } catch (error) {
      if (error instanceof NotDiffing) return undefined;
      throw error;
    }
    const row = await this.find(cycle.id);
    return row && { cycle: row, ...written };
  }

  /**
   * The end of a full check's diff: the state's rows this cycle did not write are keys the destination no longer
   * holds, and go; the job remembers when its destination was listed. One transaction, harmless to run twice.
   */
  async endFullCheck(cycle: Pick<SyncCycleRow, 'id' | 'syncJobId' | 'startedAt'>): Promise<void> {
    await this.transaction(async ({ orm: tx }) => {
      await tx
        .delete(syncObjects)
        .where(
          and(
            eq(syncObjects.syncJobId, cycle.syncJobId),
            sql`${syncObjects.cycleId} is distinct from ${cycle.id}`,
          ),
        );
      // The cycle's start, not now: whatever changed at the destination while it listed is caught next time.
      await tx
        .update(syncJobs)
        .set({ destinationCheckedAt: cycle.startedAt })
        .where(eq(syncJobs.id, cycle.syncJobId));
    });
  }

  /** One page of the job's state in key order (byte order: the column is COLLATE "C"), after a relative key. */
  async statePage(syncJobId: string, after: string | null, limit: number): Promise<StateObject[]> {
    return this.orm
      .select({ key: syncObjects.key, size: syncObjects.size, sourceEtag: syncObjects.sourceEtag })
      .from(syncObjects)
      .where(
        and(eq(syncObjects.syncJobId, syncJobId), after === null ? undefined : gt(syncObjects.key, after)),
      )
      .orderBy(syncObjects.key)
      .limit(limit);
  }

  /**
   * What a finished batch wrote: each `done` item's relative key now holds the source's size and ETag it was
   * copied from. Failed and canceled items keep their old row (or none), so the next cycle copies them again.
   * An upsert: running it twice writes the same rows.
   */
  async recordCopies(
    cycle: Pick<SyncCycleRow, 'id' | 'syncJobId'>,
    batchId: string,
    destinationBase: string,
  ): Promise<void> {
    await this.orm.execute(sql`
      insert into sync_objects (sync_job_id, key, size, source_etag, cycle_id)
      select ${cycle.syncJobId}::uuid, substr(destination_key, ${destinationBase.length}::int + 1), size,
        source_etag, ${cycle.id}::uuid
      from transfer_items where batch_id = ${batchId} and status = 'done'
      on conflict (sync_job_id, key) do update
        set size = excluded.size, source_etag = excluded.source_etag, cycle_id = excluded.cycle_id`);
  }

  /**
   * Moves an unfinished cycle on, only from one of the phases `from`: whoever calls it, a step happens once.
   * Answers the row when it did.
   */
  async advance(
    cycleId: string,
    from: SyncCyclePhase[],
    set: Partial<typeof syncCycles.$inferInsert>,
  ): Promise<SyncCycleRow | undefined> {
    const [row] = await this.orm
      .update(syncCycles)
      .set({ ...set, updatedAt: new Date() })
      .where(and(eq(syncCycles.id, cycleId), inArray(syncCycles.phase, from), isNull(syncCycles.finishedAt)))
      .returning();
    return row;
  }

  /** Ends an unfinished cycle (once), only from one of the phases `from` when given. */
  async finish(
    cycleId: string,
    status: number,
    set: Partial<typeof syncCycles.$inferInsert> = {},
    from?: SyncCyclePhase[],
  ): Promise<SyncCycleRow | undefined> {
    const [row] = await this.orm
      .update(syncCycles)
      .set({ ...set, status, phase: 'finished', finishedAt: new Date(), updatedAt: new Date() })
      .where(
        and(
          eq(syncCycles.id, cycleId),
          isNull(syncCycles.finishedAt),
          from ? inArray(syncCycles.phase, from) : undefined,
        ),
      )
      .returning();
    if (row) this.onFinished?.(status);
    return row;
  }

  async batchState(batchId: string): Promise<CycleBatchState | undefined> {
    const [row] = await this.orm
      .select({
        status: transferBatches.status,
        phase: transferBatches.phase,
        error: transferBatches.error,
        failedNumber: transferBatches.failedNumber,
      })
      .from(transferBatches)
      .where(eq(transferBatches.id, batchId));
    return row;
  }

  /**
   * The diff has written every item of a held batch: phase `copying`, so that whoever copies the last item
   * finalizes it (its totals were bumped chunk by chunk). Conditional, so it happens once; answers whether it did.
   */
  async releaseBatch(batchId: string): Promise<boolean> {
    const rows = await this.orm
      .update(transferBatches)
      .set({ phase: 'copying', updatedAt: sql`now()` })
      .where(
        and(
          eq(transferBatches.id, batchId),
          eq(transferBatches.phase, 'held'),
          eq(transferBatches.status, BATCH_STATUS.ongoing),
        ),
      )
      .returning({ id: transferBatches.id });
    return rows.length > 0;
  }

  /**
   * Drops a held batch: a cycle with nothing to copy (the history shows no empty transfer), or one that faulted
   * mid-diff (its partial list of copies is nothing anyone asked for). Its items go with it; a transfer job still
   * copying some of them sees the batch gone within a second and aborts them (their objects, if written, are not
   * in the job's state: the next cycle copies them again).
   */
  async dropHeldBatch(batchId: string): Promise<DroppedBatch | undefined> {
    const [row] = await this.orm
      .delete(transferBatches)
      .where(and(eq(transferBatches.id, batchId), eq(transferBatches.phase, 'held')))
      .returning(DROPPED);
    return row;
  }

  /** Held batches whose cycle is gone (its job was deleted mid-diff) are dropped the same way. */
  async dropOrphanBatches(): Promise<DroppedBatch[]> {
    return this.orm
      .delete(transferBatches)
      .where(
        and(
          eq(transferBatches.phase, 'held'),
          sql`${transferBatches.syncCycleId} is not null`,
          sql`not exists (select 1 from ${syncCycles} where ${syncCycles.id} = ${transferBatches.syncCycleId})`,
        ),
      )
      .returning(DROPPED);
  }

  /**
   * Cycles waiting for an approval that nobody was told of: their bell entry (link `linkPrefix` + cycle id) is
   * missing a minute after they began to wait — the worker that paused them stopped before it announced it.
   */
  async unannouncedApprovals(linkPrefix: string): Promise<SyncCycleRow[]> {
    return this.orm
      .select()
      .from(syncCycles)
      .where(
        and(
          eq(syncCycles.phase, 'awaiting_approval'),
          isNull(syncCycles.finishedAt),
          sql`${syncCycles.updatedAt} < now() - interval '1 minute'`,
          sql`not exists (select 1 from notifications n
                          where n.organization_id = ${syncCycles.organizationId}
                            and n.link = ${linkPrefix} || ${syncCycles.id}::text)`,
        ),
      );
  }

  async pendingDeletions(cycleId: string, limit: number): Promise<SyncDeletionRow[]> {
    return this.orm
      .select()
      .from(syncDeletions)
      .where(and(eq(syncDeletions.cycleId, cycleId), eq(syncDeletions.status, 'pending')))
      .orderBy(syncDeletions.key)
      .limit(limit);
  }

  /**
   * Settles deletion rows after their chunk ran and counts the settled ones in the cycle, in one statement: only
   * rows still pending change, so a chunk settled twice counts once.
   */
  async settleDeletions(
    cycle: Pick<SyncCycleRow, 'id' | 'syncJobId'>,
    destinationBase: string,
    outcomes: DeletionOutcome[],
  ): Promise<SyncCycleRow | undefined> {
    const cycleId = cycle.id;
    if (outcomes.length === 0) return this.find(cycleId);
    // A key deleted or quarantined leaves the job's state in the same statement (a failed one keeps its row).
    await this.orm.execute(sql`
      with settled as (
        update sync_deletions d set status = v.status, error = v.error
        from unnest(${sql.param(outcomes.map((outcome) => outcome.key))}::text[],
          ${sql.param(outcomes.map((outcome) => outcome.status))}::text[],
          ${sql.param(outcomes.map((outcome) => outcome.error?.slice(0, 2000) ?? null))}::text[])
          as v(key, status, error)
        where d.cycle_id = ${cycleId} and d.key = v.key and d.status = 'pending'
        returning d.key, d.status),
      gone as (
        delete from sync_objects o using settled s
        where o.sync_job_id = ${cycle.syncJobId} and s.status <> 'failed'
          and o.key = substr(s.key, ${destinationBase.length}::int + 1))
      update sync_cycles set updated_at = now(),
        deleted_count = deleted_count + (select count(*) from settled where status <> 'failed')
      where id = ${cycleId}`);
    return this.find(cycleId);
  }

  /** A rejected approval keeps every candidate. */
  async keepPending(cycleId: string): Promise<void> {
    await this.orm
      .update(syncDeletions)
      .set({ status: 'kept' })
      .where(and(eq(syncDeletions.cycleId, cycleId), eq(syncDeletions.status, 'pending')));
  }

  async failedDeletions(cycleId: string): Promise<{ count: number; error: string | null }> {
    const [row] = await this.orm
      .select({ count: count(), error: min(syncDeletions.error) })
      .from(syncDeletions)
      .where(and(eq(syncDeletions.cycleId, cycleId), eq(syncDeletions.status, 'failed')));
    return { count: row?.count ?? 0, error: row?.error ?? null };
  }

  /** The organisation's active Owners and Admins: who approves deletes, and gets the approval's e-mail and bell. */
  async approvers(organizationId: string): Promise<Array<{ id: string; email: string; firstName: string }>> {
    return this.orm
      .select({ id: users.id, email: users.email, firstName: users.firstName })
      .from(users)
      .where(
        and(
          eq(users.organizationId, organizationId),
          inArray(users.roleId, [ROLE_ID.Owner, ROLE_ID.Admin]),
          eq(users.active, true),
        ),
      );
  }

  /**
   * Runs `work` under the cycle's lock, a session advisory lock held by one pooled connection: one worker
   * advances a cycle at a time, and a worker that dies loses its connection and with it the lock. `locked: false`
   * when another worker holds it.
   */
  async withCycleLock<T>(cycleId: string, work: () => Promise<T>): Promise<{ locked: boolean; value?: T }> {
    const client = await this.locks.connect();
    const key = `sync-cycle:${cycleId}`;
    try {
      const { rows } = await client.query<{ locked: boolean }>(
        'select pg_try_advisory_lock(hashtext($1)) as locked',
        [key],
      );
      if (!rows[0]?.locked) return { locked: false };
      try {
        return { locked: true, value: await work() };
      } finally {
        await client.query('select pg_advisory_unlock(hashtext($1))', [key]);
      }
    } finally {
      client.release();
    }
  }

  /** Whether some live session holds the cycle's lock (a worker is advancing it). */
  async cycleLocked(cycleId: string): Promise<boolean> {
    const result = await this.orm.execute<{ held: boolean }>(sql`
      select exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.granted
        and l.database = (select oid from pg_database where datname = current_database())
        and l.objid = (hashtext(${`sync-cycle:${cycleId}`})::bigint & 4294967295)::oid and l.objsubid = 1) as held`);
    return result.rows[0]?.held === true;
  }

  /**
   * Unfinished cycles with work a job must do (diffing, deleting, or copying with a batch that is held or
   * finished), with the ids of their `sync.cycle` jobs waiting and running.
   */
  async cyclesToResume(): Promise<Array<{ id: string; waiting: number; active: string[] }>> {
    const result = await this.orm.execute<{ id: string; waiting: string; active: string[] | null }>(sql`
      select c.id,
         (select count(*) from pgboss.job j where j.name = 'sync.cycle' and j.singleton_key = c.id::text
            and j.state in ('created', 'retry')) as waiting,
         (select array_agg(j.id::text) from pgboss.job j where j.name = 'sync.cycle'
            and j.singleton_key = c.id::text and j.state = 'active') as active
       from sync_cycles c left join transfer_batches b on b.id = c.batch_id
       where c.finished_at is null
         and (c.phase in ('diffing', 'deleting')
              or (c.phase = 'copying' and (b.id is null or b.phase in ('held', 'finished'))))`);
    return result.rows.map((row) => ({ id: row.id, waiting: num(row.waiting), active: row.active ?? [] }));
  }

  /**
   * Quarantined objects whose time is up: of cycles of jobs that still quarantine, finished at least
   * `quarantine_days` before `now`. With what the purge needs to reach them.
   */
  async quarantineToPurge(
    now: Date,
    limit: number,
  ): Promise<
    Array<{
      cycleId: string;
      startedAt: Date;
      organizationId: string;
      accountId: string;
      bucket: string;
      keys: string[];
    }>
  > {
    const result = await this.orm.execute<{
      cycle_id: string;
      /** Raw statements answer timestamps as text (drizzle's driver leaves them unparsed). */
      started_at: string;
      organization_id: string;
      account_id: string;
      bucket: string;
      keys: string[];
    }>(sql`
      select c.id as cycle_id, c.started_at, j.organization_id, j.destination_cloud_account_id as account_id,
         j.destination_bucket as bucket,
         (select array_agg(d.key order by d.key) from (select key from sync_deletions d
            where d.cycle_id = c.id and d.status = 'quarantined' order by key limit ${limit}) d) as keys
       from sync_cycles c join sync_jobs j on j.id = c.sync_job_id
       where j.quarantine_days is not null and c.finished_at is not null
         and c.finished_at + make_interval(days => j.quarantine_days) <= ${now}
         and exists (select 1 from sync_deletions d where d.cycle_id = c.id and d.status = 'quarantined')
       limit 50`);
    return result.rows.map((row) => ({
      cycleId: row.cycle_id,
      startedAt: new Date(row.started_at),
      organizationId: row.organization_id,
      accountId: row.account_id,
      bucket: row.bucket,
      keys: row.keys,
    }));
  }

  /** Purged quarantine copies: their rows read `deleted` (the object is gone for good). */
  async markPurged(cycleId: string, keys: string[]): Promise<void> {
    await this.orm
      .update(syncDeletions)
      .set({ status: 'deleted' })
      .where(
        and(
          eq(syncDeletions.cycleId, cycleId),
          eq(syncDeletions.status, 'quarantined'),
          inArray(syncDeletions.key, keys),
        ),
      );
  }

  /** Upserts a full check's view of destination keys into the job's state, marked with the cycle that saw them. */
  async #upsertStates(cycle: Pick<SyncCycleRow, 'id' | 'syncJobId'>, states: StateObject[]): Promise<void> {
    await this.orm.execute(sql`
      insert into sync_objects (sync_job_id, key, size, source_etag, cycle_id)
      select ${cycle.syncJobId}::uuid, *, ${cycle.id}::uuid
      from unnest(${sql.param(states.map((state) => state.key))}::text[],
        ${sql.param(states.map((state) => state.size))}::bigint[],
        ${sql.param(states.map((state) => state.sourceEtag))}::text[])
      on conflict (sync_job_id, key) do update
        set size = excluded.size, source_etag = excluded.source_etag, cycle_id = excluded.cycle_id`);
  }
}

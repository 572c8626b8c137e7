import type pg from 'pg';
import { and, count, desc, eq, inArray, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { AVERAGE_SPEED_CAP_BYTES, BATCH_STATUS, type ProviderName } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { cloudAccounts, organizations, transferBatches, transferItems } from '../../db/schema/index.ts';

export type BatchRow = typeof transferBatches.$inferSelect;
export type ItemRow = typeof transferItems.$inferSelect;
/** A batch as the screens read it: with its accounts' names and the bytes of objects still in flight. */
export type BatchView = BatchRow & {
  sourceAccountName: string | null;
  destinationAccountName: string | null;
  bytesDone: number;
  /** Objects the batch's sync cycle deleted at the destination (a mirror's deletes); 0 for other batches. */
  syncDeleted: number;
};

/** An item an ended batch copied (`copied`) or whose source it deleted (`sourceDeleted`). */
export interface ChangedItem {
  id: number;
  sourceKey: string;
  destinationKey: string;
  size: number;
  copied: boolean;
  sourceDeleted: boolean;
  finishedAt: Date | null;
}

const LIVE = [BATCH_STATUS.ongoing, BATCH_STATUS.canceling];
const sourceAccount = alias(cloudAccounts, 'source_account');
const destinationAccount = alias(cloudAccounts, 'destination_account');
const num = (value: unknown) => Number(value ?? 0);

/** Batches out of a provider's accounts, into a provider's accounts, or both (Transfer Status's filtered pages). */
export interface BatchProviderFilter {
  sourceProvider?: ProviderName;
  destinationProvider?: ProviderName;
}

/**
 * The conditions of a provider filter on `transfer_batches`, as subqueries of the accounts' providers, so that a
 * count over the batches alone filters as its page does. A batch whose account was removed matches no provider.
 */
export function batchProviderConditions(filter: BatchProviderFilter): SQL[] {
  const ofProvider = (accountId: SQLWrapper, provider: ProviderName) =>
    sql`${accountId} in (select ${cloudAccounts.id} from ${cloudAccounts} where ${cloudAccounts.provider} = ${provider})`;
  const conditions: SQL[] = [];
  if (filter.sourceProvider)
    conditions.push(ofProvider(transferBatches.sourceCloudAccountId, filter.sourceProvider));
  if (filter.destinationProvider)
    conditions.push(ofProvider(transferBatches.destinationCloudAccountId, filter.destinationProvider));
  return conditions;
}

/**
 * SQL of transfer batches as a whole: what the API reads and writes (start, pages, cancel, retry, the CSV) and the
 * batch's state the engine reads and ends it with (status, finalize, fail). Calls from the API take the
 * organisation and filter by it; the engine's calls take a batch id it got from a job (ids only travel in job
 * payloads). The items under leases are `transfer-queue.repo.ts`'s, planning is `transfer-planning.repo.ts`'s.
 *
 * Locks: a statement that changes several item rows locks them in id order (a `locked` CTE, ORDER BY id FOR
 * UPDATE) or skips the locked ones, and item rows are always locked before their batch's row (see
 * TransferQueueRepo).
 */
export class TransfersRepo {
  constructor(
    readonly orm: Database,
    /** For the session advisory lock held while the work runs (Db.locks: apart from the requests' pool). */
    private readonly locks: pg.Pool,
  ) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: TransfersRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new TransfersRepo(tx as unknown as Database, this.locks)));
  }

  async createBatch(values: typeof transferBatches.$inferInsert): Promise<BatchRow> {
    const [row] = await this.orm.insert(transferBatches).values(values).returning();
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  #viewQuery() {
    return this.orm
      .select({
        batch: transferBatches,
        sourceAccountName: sourceAccount.name,
        destinationAccountName: destinationAccount.name,
        bytesDone: sql<string>`${transferBatches.transferredSize} + coalesce((select sum(i.bytes_done) from transfer_items i where i.batch_id = ${transferBatches.id} and i.status = 'copying'), 0)`,
        // A cycle deletes after its batch's copies, outside the batch: its own row counts them.
        syncDeleted: sql<string>`coalesce((select c.deleted_count from sync_cycles c where c.id = ${transferBatches.syncCycleId}), 0)`,
      })
      .from(transferBatches)
      .leftJoin(sourceAccount, eq(sourceAccount.id, transferBatches.sourceCloudAccountId))
      .leftJoin(destinationAccount, eq(destinationAccount.id, transferBatches.destinationCloudAccountId));
  }

  static #view(row: {
    batch: BatchRow;
    sourceAccountName: string | null;
    destinationAccountName: string | null;
    bytesDone: string;
    syncDeleted: string;
  }): BatchView {
    return {
      ...row.batch,
      sourceAccountName: row.sourceAccountName,
      destinationAccountName: row.destinationAccountName,
      bytesDone: num(row.bytesDone),
      syncDeleted: num(row.syncDeleted),
    };
  }

  /** One page of the organisation's batches of a transfer type, newest first; `total` counts what the filter keeps. */
  async list(
    organizationId: string,
    transferType: number,
    page: number,
    pageSize: number,
    filter: BatchProviderFilter = {},
  ): Promise<{ rows: BatchView[]; total: number }> {
    const where = and(
      eq(transferBatches.organizationId, organizationId),
      eq(transferBatches.transferType, transferType),
      ...batchProviderConditions(filter),
    );
    const rows = await this.#viewQuery()
      .where(where)
      .orderBy(desc(transferBatches.requestedAt), desc(transferBatches.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize);
    const [total] = await this.orm.select({ value: count() }).from(transferBatches).where(where);
    return { rows: rows.map((r) => TransfersRepo.#view(r)), total: total?.value ?? 0 };
  }

  /** The organisation's Ongoing and Canceling batches, oldest first. */
  async live(organizationId: string, filter: BatchProviderFilter = {}): Promise<BatchView[]> {
    const rows = await this.#viewQuery()
      .where(
        and(
          eq(transferBatches.organizationId, organizationId),
          inArray(transferBatches.status, LIVE),
          ...batchProviderConditions(filter),
        ),
      )
      .orderBy(transferBatches.requestedAt);
    return rows.map((r) => TransfersRepo.#view(r));
  }

  async find(organizationId: string, id: string): Promise<BatchView | undefined> {
    const [row] = await this.#viewQuery().where(
      and(eq(transferBatches.organizationId, organizationId), eq(transferBatches.id, id)),
    );
    return row && TransfersRepo.#view(row);
  }

  /** The engine's read of a batch it got from a job. */
  async findForEngine(id: string): Promise<BatchView | undefined> {
    const [row] = await this.#viewQuery().where(eq(transferBatches.id, id));
    return row && TransfersRepo.#view(row);
  }

  /**
   * A batch's organisation, and how many of that organisation's live batches were requested before it: the place
   * of its jobs in the queue (transfers.jobs.ts). undefined when the batch is gone.
   */
  async queuePlaceOf(id: string): Promise<{ organizationId: string; rank: number } | undefined> {
    const result = await this.orm.execute<{ organization_id: string; rank: number }>(sql`
      select b.organization_id,
        (select count(*)::int from transfer_batches o
          where o.organization_id = b.organization_id
            and o.status in (${BATCH_STATUS.ongoing}, ${BATCH_STATUS.canceling})
            and (o.requested_at, o.id) < (b.requested_at, b.id)) as rank
      from transfer_batches b where b.id = ${id}`);
    const row = result.rows[0];
    return row ? { organizationId: String(row.organization_id), rank: num(row.rank) } : undefined;
  }

  async statusOf(id: string): Promise<number | null> {
    const [row] = await this.orm
      .select({ status: transferBatches.status })
      .from(transferBatches)
      .where(eq(transferBatches.id, id));
    return row?.status ?? null;
  }

  /** Status and phase, for a job waiting on a held batch. */
  async engineState(id: string): Promise<{ status: number; phase: string } | null> {
    const [row] = await this.orm
      .select({ status: transferBatches.status, phase: transferBatches.phase })
      .from(transferBatches)
      .where(eq(transferBatches.id, id));
    return row ?? null;
  }

  async chargeConfirmed(organizationId: string): Promise<boolean> {
    const [row] = await this.orm
      .select({ confirmedC2c: organizations.confirmedC2c, isCbs: organizations.isCbs })
      .from(organizations)
      .where(eq(organizations.id, organizationId));
    return row ? row.confirmedC2c || row.isCbs : false;
  }

  /**
   * Runs `work` under the batch's quota lock (a session advisory lock on the locks pool, waited for): a batch's
   * quota reservations and its settlement take turns (transfer-quota.ts).
   */
  async withQuotaLock<T>(batchId: string, work: () => Promise<T>): Promise<T> {
    const client = await this.locks.connect();
    const key = `transfer-quota:${batchId}`;
    try {
      await client.query('select pg_advisory_lock(hashtext($1))', [key]);
      try {
        return await work();
      } finally {
        await client.query('select pg_advisory_unlock(hashtext($1))', [key]);
      }
    } finally {
      client.release();
    }
  }

  async markStarted(batchId: string): Promise<void> {
    await this.orm
      .update(transferBatches)
      .set({ startedAt: sql`coalesce(${transferBatches.startedAt}, now())` })
      .where(eq(transferBatches.id, batchId));
  }

  /**
   * One page of what an ended batch changed, after item `afterId` in id order: the objects it copied and those whose
   * source it deleted (a move). The media-search index learns them a page, one statement, at a time.
   */
  async changedItemsPage(batchId: string, afterId: number, limit: number): Promise<ChangedItem[]> {
    const result = await this.orm.execute<{
      id: string;
      source_key: string;
      destination_key: string;
      size: string;
      copied: boolean;
      source_deleted: boolean;
      finished_at: string | null;
    }>(sql`
      select id, source_key, destination_key, size, status = 'done' as copied, source_deleted, finished_at
      from transfer_items
      where batch_id = ${batchId} and id > ${afterId} and (status = 'done' or source_deleted)
      order by id
      limit ${limit}`);
    return result.rows.map((row) => ({
      id: num(row.id),
      sourceKey: row.source_key,
      destinationKey: row.destination_key,
      size: num(row.size),
      copied: row.copied,
      sourceDeleted: row.source_deleted,
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
    }));
  }

  /** Cancels the batch's items nobody works on: pending ones, and copying ones whose lease ran out. */
  async cancelIdleItems(batchId: string): Promise<void> {
    await this.orm.execute(sql`
      with locked as materialized (
        select id from transfer_items
        where batch_id = ${batchId}
          and (status = 'pending' or (status = 'copying' and lease_until < now()))
        order by id for update)
      update transfer_items i set status = 'canceled', lease_owner = null, lease_until = null, updated_at = now()
      from locked
      where i.id = locked.id and (i.status = 'pending' or (i.status = 'copying' and i.lease_until < now()))`);
  }

  /** Asks an Ongoing batch to stop; answers false when it was not Ongoing. */
  async requestCancel(organizationId: string, batchId: string): Promise<boolean> {
    const rows = await this.orm
      .update(transferBatches)
      .set({ status: BATCH_STATUS.canceling, updatedAt: new Date() })
      .where(
        and(
          eq(transferBatches.organizationId, organizationId),
          eq(transferBatches.id, batchId),
          eq(transferBatches.status, BATCH_STATUS.ongoing),
        ),
      )
      .returning({ id: transferBatches.id });
    return rows.length > 0;
  }

  /**
   * Whether finalize would now end the batch Completed: Ongoing and copying, no item failed, none left to copy.
   * A move asks it before finalizing, to remove the folders it emptied first (executor.ts).
   */
  async wouldComplete(batchId: string): Promise<boolean> {
    const result = await this.orm.execute<{ completes: boolean }>(sql`
      select exists (select 1 from transfer_batches b
        where b.id = ${batchId} and b.status = ${BATCH_STATUS.ongoing} and b.phase = 'copying'
          and b.failed_number = 0
          and not exists (select 1 from transfer_items i
                          where i.batch_id = b.id and i.status in ('pending', 'copying'))) as completes`);
    return result.rows[0]?.completes === true;
  }

  /**
   * Ends a batch once no item is left to copy: Canceling becomes Canceled, an Ongoing batch Completed, or Failed
   * when an item failed. Conditional, so it happens once whoever calls it; answers the batch when it did.
   */
  async finalize(batchId: string): Promise<BatchRow | undefined> {
    const result = await this.orm.execute(sql`
      update transfer_batches set
        status = (case when status = ${BATCH_STATUS.canceling} then ${BATCH_STATUS.canceled}
                       when failed_number > 0 then ${BATCH_STATUS.failed}
                       else ${BATCH_STATUS.completed} end)::smallint,
        phase = 'finished', finished_at = now(), updated_at = now(),
        -- The final average is settled with the status, not left to a later progress flush of another job.
        average_speed = least(${AVERAGE_SPEED_CAP_BYTES}::bigint, round(transferred_size /
          greatest(1, extract(epoch from now() - coalesce(started_at, requested_at))))::bigint)
      where id = ${batchId}
        and (status = ${BATCH_STATUS.canceling} or (status = ${BATCH_STATUS.ongoing} and phase = 'copying'))
        and not exists (select 1 from transfer_items i
                        where i.batch_id = ${batchId} and i.status in ('pending', 'copying'))
      returning id`);
    if (result.rows.length === 0) return undefined;
    const [row] = await this.orm.select().from(transferBatches).where(eq(transferBatches.id, batchId));
    return row;
  }

  async failBatch(batchId: string, error: string): Promise<BatchRow | undefined> {
    await this.cancelIdleItems(batchId);
    const [row] = await this.orm
      .update(transferBatches)
      .set({
        status: BATCH_STATUS.failed,
        phase: 'finished',
        error,
        finishedAt: new Date(),
        updatedAt: new Date(),
      })
      .where(and(eq(transferBatches.id, batchId), inArray(transferBatches.status, LIVE)))
      .returning();
    return row;
  }

  async setAverageSpeed(batchId: string, bytesPerSecond: number): Promise<void> {
    await this.orm
      .update(transferBatches)
      .set({ averageSpeed: Math.round(bytesPerSecond) })
      .where(eq(transferBatches.id, batchId));
  }

  /** Items in flight, for a page opened mid-transfer. */
  async inFlight(batchId: string, limit: number): Promise<ItemRow[]> {
    return this.orm
      .select()
      .from(transferItems)
      .where(and(eq(transferItems.batchId, batchId), eq(transferItems.status, 'copying')))
      .orderBy(transferItems.id)
      .limit(limit);
  }

  /** The failed items of a batch, a page at a time (key order by id), for the CSV. */
  async *failedItems(batchId: string, pageSize = 1000): AsyncGenerator<ItemRow[]> {
    let after = 0;
    for (;;) {
      const rows = await this.orm
        .select()
        .from(transferItems)
        .where(
          and(
            eq(transferItems.batchId, batchId),
            eq(transferItems.status, 'failed'),
            sql`${transferItems.id} > ${after}`,
          ),
        )
        .orderBy(transferItems.id)
        .limit(pageSize);
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]?.id ?? after;
      if (rows.length < pageSize) return;
    }
  }

  /** Bytes of a batch's failed items: what its retry will copy. */
  async failedSize(batchId: string): Promise<number> {
    const result = await this.orm.execute<{ size: string }>(sql`
      select coalesce(sum(size), 0) as size from transfer_items where batch_id = ${batchId} and status = 'failed'`);
    return num(result.rows[0]?.size);
  }

  /**
   * Creates the retry of a finished batch: a new batch holding only its failed items, already planned, and marks
   * the old one retried, in one transaction. Answers undefined when another retry won the race. `id`: the new
   * batch's, chosen by the caller so that its quota is reserved before it exists.
   */
  async createRetry(old: BatchRow, userId: string | null, id?: string): Promise<BatchRow | undefined> {
    return this.orm.transaction(async (tx) => {
      const marked = await tx
        .update(transferBatches)
        .set({ retried: true, updatedAt: new Date() })
        .where(and(eq(transferBatches.id, old.id), eq(transferBatches.retried, false)))
        .returning({ id: transferBatches.id });
      if (marked.length === 0) return undefined;
      const [batch] = await tx
        .insert(transferBatches)
        .values({
          id,
          organizationId: old.organizationId,
          userId,
          transferType: old.transferType,
          operation: old.operation,
          sourceCloudAccountId: old.sourceCloudAccountId,
          sourceBucket: old.sourceBucket,
          sourcePath: old.sourcePath,
          sourceSelection: old.sourceSelection,
          destinationCloudAccountId: old.destinationCloudAccountId,
          destinationBucket: old.destinationBucket,
          destinationPath: old.destinationPath,
          skipExisting: false,
          phase: 'copying',
          retryOfId: old.id,
          syncJobId: old.syncJobId,
          bandwidthLimit: old.bandwidthLimit,
        })
        .returning();
      if (!batch) throw new Error('insert returned no row');
      await tx.execute(sql`
        insert into transfer_items (batch_id, source_key, destination_key, size, source_etag, source_md5)
        select ${batch.id}, source_key, destination_key, size, source_etag, source_md5
        from transfer_items where batch_id = ${old.id} and status = 'failed' order by id`);
      const [counted] = await tx
        .update(transferBatches)
        .set({
          totalNumber: sql`(select count(*) from transfer_items where batch_id = ${batch.id})`,
          totalSize: sql`(select coalesce(sum(size), 0) from transfer_items where batch_id = ${batch.id})`,
        })
        .where(eq(transferBatches.id, batch.id))
        .returning();
      return counted;
    });
  }
}

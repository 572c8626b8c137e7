import type pg from 'pg';
import { and, count, desc, eq, inArray, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { AVERAGE_SPEED_CAP_BYTES, BATCH_STATUS, type ProviderName } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import {
  cloudAccounts,
  organizations,
  transferBatches,
  transferItems,
  transferParts,
} from '../../db/schema/index.ts';
import type { CopyItem, CopyMethod, FinishedPart, PartLedger } from './engine/copy-task.ts';

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

/** A planned object, before it has an id. */
export interface PlannedItem {
  sourceKey: string;
  destinationKey: string;
  size: number;
  sourceEtag: string | null;
  sourceMd5: string | null;
  /**
   * 'skipped' when "Skip Existing Files" found it already at the destination; for a move, such an object is
   * 'pending' and `present`, so that a worker still deletes its source.
   */
  status: 'pending' | 'skipped';
  present?: boolean;
}

/** A claimed item: what the copier needs, plus the bytes its finished parts already hold. */
export interface ClaimedItem extends CopyItem {
  batchId: string;
  /** A move's object planned as already at the destination (PlannedItem.present): only its source is left. */
  present: boolean;
  partsDone: number;
  /** Checksums recorded once the copy verified (a move whose source delete was interrupted). */
  md5: string | null;
  sha256: string | null;
}

export type ItemOutcome =
  | {
      status: 'done';
      method: CopyMethod | null;
      md5: string | null;
      sha256: string | null;
      sourceDeleted: boolean;
    }
  /** A move's object already at the destination, whose source was deleted. */
  | { status: 'skipped'; sourceDeleted: true }
  | { status: 'failed'; error: string }
  | { status: 'canceled' };

const LIVE = [BATCH_STATUS.ongoing, BATCH_STATUS.canceling];
const sourceAccount = alias(cloudAccounts, 'source_account');
const destinationAccount = alias(cloudAccounts, 'destination_account');
const num = (value: unknown) => Number(value ?? 0);
/** A bigint[] parameter, as PostgreSQL's array literal. */
const idArray = (values: number[]) => `{${values.join(',')}}`;

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
 * SQL of transfer batches, their items and parts. Calls from the API take the organisation and filter by it;
 * the engine's calls take a batch or item id it got from a job (ids only travel in job payloads) and, for item
 * state, the worker's lease owner: a worker whose lease was lost can no longer change an item.
 *
 * Locks: a statement that changes several item rows locks them in id order (a `locked` CTE, ORDER BY id FOR
 * UPDATE) or skips the locked ones (claims, progress), and item rows are always locked before their batch's row.
 * Two statements locking the same rows in different orders deadlock: a worker settling its items while its
 * progress flush wrote the same rows' bytes did, in the end-to-end transfer test.
 */
export class TransfersRepo {
  constructor(
    readonly orm: Database,
    /** For transactions, which must stay on one connection. */
    private readonly pool: pg.Pool,
    /** For the session advisory lock held while the work runs (Db.locks: apart from the requests' pool). */
    private readonly locks: pg.Pool = pool,
  ) {}

  /**
   * Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). Only the
   * drizzle calls of the bound repo join it; those on `pool` (engine paths) do not.
   */
  transaction<T>(work: (tx: TransfersRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) =>
      work(new TransfersRepo(tx as unknown as Database, this.pool, this.locks)),
    );
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
   * Inserts one chunk of planned items, adds them to the batch's totals and moves the plan cursor, in one
   * transaction. The rows travel as arrays through `unnest` — one statement with a parameter per column whatever
   * the chunk size, where a multi-row VALUES would bind them per row — and the totals are summed by the database
   * from what was really inserted (a key planned before, by a planner that ran twice, counts once). Answers the
   * batch status, so the planner stops when the batch is canceled.
   */
  async insertPlanned(batchId: string, items: PlannedItem[], cursor: string | null): Promise<number | null> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query<{ status: number }>(
        `with inserted as (
           insert into transfer_items
             (batch_id, source_key, destination_key, size, source_etag, source_md5, status, method)
           select $1, * from unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[],
             $9::text[])
           on conflict (batch_id, source_key) do nothing
           returning size, status
         )
         update transfer_batches set
           total_number = total_number + (select count(*) from inserted),
           total_size = total_size + (select coalesce(sum(size), 0) from inserted),
           skipped_number = skipped_number + (select count(*) from inserted where status = 'skipped'),
           skipped_size = skipped_size + (select coalesce(sum(size), 0) from inserted where status = 'skipped'),
           plan_cursor = coalesce($8, plan_cursor),
           updated_at = now()
         where id = $1
         returning status`,
        [
          batchId,
          items.map((item) => item.sourceKey),
          items.map((item) => item.destinationKey),
          items.map((item) => item.size),
          items.map((item) => item.sourceEtag),
          items.map((item) => item.sourceMd5),
          items.map((item) => item.status),
          cursor,
          items.map((item) => (item.present ? 'present' : null)),
        ],
      );
      await client.query('commit');
      return rows[0]?.status ?? null;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Runs `plan` under the batch's planning lock, a session advisory lock held by one pooled connection: a
   * planner that dies loses its connection and with it the lock. `locked: false` when another planner holds it.
   */
  async withPlanningLock(batchId: string, plan: () => Promise<void>): Promise<{ locked: boolean }> {
    const client = await this.locks.connect();
    try {
      const key = `transfer-plan:${batchId}`;
      const { rows } = await client.query<{ locked: boolean }>(
        'select pg_try_advisory_lock(hashtext($1)) as locked',
        [key],
      );
      if (!rows[0]?.locked) return { locked: false };
      try {
        await plan();
      } finally {
        await client.query('select pg_advisory_unlock(hashtext($1))', [key]);
      }
      return { locked: true };
    } finally {
      client.release();
    }
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

  /** Ends planning; answers false when another planner already did. */
  async finishPlanning(batchId: string): Promise<boolean> {
    const rows = await this.orm
      .update(transferBatches)
      .set({ phase: 'copying', updatedAt: new Date() })
      .where(and(eq(transferBatches.id, batchId), eq(transferBatches.phase, 'planning')))
      .returning({ id: transferBatches.id });
    return rows.length > 0;
  }

  async markStarted(batchId: string): Promise<void> {
    await this.orm
      .update(transferBatches)
      .set({ startedAt: sql`coalesce(${transferBatches.startedAt}, now())` })
      .where(eq(transferBatches.id, batchId));
  }

  /**
   * Claims up to `limit` claimable items of an Ongoing batch for `owner`: pending ones, and copying ones whose
   * lease ran out (their worker died). SKIP LOCKED lets any number of workers claim side by side, each getting
   * different rows. A held batch's items are claimable too: a sync cycle's copies start while its diff runs.
   */
  async claim(
    batchId: string,
    owner: string,
    leaseSeconds: number,
    limit: number,
    /** An item claimed this many times already is not claimed again (see failAbandoned). */
    maxClaims: number,
  ): Promise<ClaimedItem[]> {
    const result = await this.orm.execute(sql`
      update transfer_items set status = 'copying', lease_owner = ${owner}, claimed_by = ${owner},
        lease_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1,
        started_at = coalesce(started_at, now()), updated_at = now()
      where id in (
        select id from transfer_items
        where batch_id = ${batchId}
          and (status = 'pending' or (status = 'copying' and lease_until < now() and attempts < ${maxClaims}))
          and exists (select 1 from transfer_batches b where b.id = ${batchId} and b.status = ${BATCH_STATUS.ongoing})
        order by id limit ${limit}
        for update skip locked)
      returning id, batch_id, source_key, destination_key, size, source_etag, source_md5, method, upload_id,
        part_size, md5, sha256,
        (select coalesce(sum(p.size), 0) from transfer_parts p where p.item_id = transfer_items.id) as parts_done`);
    return result.rows.map((row) => ({
      id: num(row.id),
      batchId: String(row.batch_id),
      sourceKey: String(row.source_key),
      destinationKey: String(row.destination_key),
      size: num(row.size),
      sourceEtag: (row.source_etag as string | null) ?? null,
      sourceMd5: (row.source_md5 as string | null) ?? null,
      method: row.method === 'present' ? null : ((row.method as CopyMethod | null) ?? null),
      present: row.method === 'present',
      uploadId: (row.upload_id as string | null) ?? null,
      partSize: row.part_size === null ? null : num(row.part_size),
      md5: (row.md5 as string | null) ?? null,
      sha256: (row.sha256 as string | null) ?? null,
      partsDone: num(row.parts_done),
    }));
  }

  /**
   * Fails the batch's items whose lease ran out for the `maxClaims`-th time. Every claim counts in `attempts`, and a
   * claim that ends without settling the item is a worker that stopped on it: an object that stops every worker
   * (out of memory, a crash in a dependency) would otherwise be reclaimed forever and hold its batch Ongoing.
   * Counted in the batch in the same statement, like finishItems; answers how many items it failed.
   */
  async failAbandoned(batchId: string, maxClaims: number, error: string): Promise<number> {
    const result = await this.orm.execute(sql`
      with item as (
        update transfer_items set status = 'failed', error = ${error.slice(0, 2000)},
          lease_owner = null, lease_until = null, finished_at = now(), updated_at = now()
        where id in (
          select id from transfer_items
          where batch_id = ${batchId} and status = 'copying' and lease_until < now() and attempts >= ${maxClaims}
          order by id
          for update skip locked)
        returning id)
      update transfer_batches b set failed_number = failed_number + (select count(*) from item), updated_at = now()
      where b.id = ${batchId} and exists (select 1 from item)
      returning (select count(*) from item) as failed`);
    return num(result.rows[0]?.failed);
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

  /**
   * Hands an item `owner` holds back to the queue as pending, as if never claimed: its job pauses for a store that
   * cannot be reached (engine/outage.ts), which is no worker stopping on it. Its upload and parts stay to resume.
   */
  async release(itemId: number, owner: string): Promise<void> {
    await this.orm.execute(sql`
      update transfer_items set status = 'pending', lease_owner = null, lease_until = null,
        attempts = greatest(attempts - 1, 0), updated_at = now()
      where id = ${itemId} and status = 'copying' and lease_owner = ${owner}`);
  }

  /**
   * A store of the batch stayed unreachable past the outage budget: every item left to copy (pending, or claimed
   * by any job of the batch) fails with the store's words, counted in the batch in the same statement, and the
   * batch keeps `batchError` for finalize to end it Failed with. A job whose item this takes loses its lease and
   * lets go of it. Answers how many items it failed.
   */
  async failUnreachable(batchId: string, itemError: string, batchError: string): Promise<number> {
    const result = await this.orm.execute(sql`
      with item as (
        update transfer_items set status = 'failed', error = ${itemError.slice(0, 2000)},
          lease_owner = null, lease_until = null, finished_at = now(), updated_at = now()
        where id in (
          select id from transfer_items
          where batch_id = ${batchId} and status in ('pending', 'copying')
            and exists (select 1 from transfer_batches b where b.id = ${batchId} and b.status = ${BATCH_STATUS.ongoing})
          order by id
          for update)
        returning id)
      update transfer_batches b set failed_number = failed_number + (select count(*) from item),
        error = coalesce(b.error, ${batchError.slice(0, 2000)}), updated_at = now()
      where b.id = ${batchId} and b.status = ${BATCH_STATUS.ongoing}
      returning (select count(*) from item) as failed`);
    return num(result.rows[0]?.failed);
  }

  /** Extends the leases `owner` still holds among `ids`; answers those ids (a missing one was lost). */
  async renewLeases(ids: number[], owner: string, leaseSeconds: number): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const result = await this.orm.execute(sql`
      with locked as materialized (
        select id from transfer_items
        where id = any(${idArray(ids)}::bigint[]) and status = 'copying' and lease_owner = ${owner}
        order by id for update)
      update transfer_items i set lease_until = now() + make_interval(secs => ${leaseSeconds})
      from locked where i.id = locked.id
      returning i.id`);
    return new Set(result.rows.map((row) => num(row.id)));
  }

  /** Records the bytes of objects in flight, for the batch's progress read from the database. */
  async recordBytes(bytes: Array<{ itemId: number; bytes: number }>): Promise<void> {
    if (bytes.length === 0) return;
    // Best effort, never waiting: a row locked right now (its item being settled) gets its bytes next second.
    await this.orm.execute(sql`
      with v as (
        select * from unnest(${idArray(bytes.map((b) => b.itemId))}::bigint[],
          ${idArray(bytes.map((b) => Math.round(b.bytes)))}::bigint[]) as v(id, bytes)),
      locked as materialized (
        select i.id, v.bytes from transfer_items i join v on v.id = i.id
        where i.status = 'copying'
        for update of i skip locked)
      update transfer_items i set bytes_done = locked.bytes
      from locked where i.id = locked.id`);
  }

  /**
   * The copy verified, the source is not deleted yet (a move): kept so that a successor of a worker killed
   * between the copy and the delete finishes the delete instead of copying again from a source already gone.
   */
  async markVerified(
    itemId: number,
    owner: string,
    result: { method: CopyMethod | null; md5: string | null; sha256: string | null },
  ): Promise<boolean> {
    const rows = await this.orm
      .update(transferItems)
      .set({
        method: result.method,
        // A server-side copy exposes no checksum of its own: the source's listed MD5 is what it was checked by.
        md5: result.md5 ?? (result.sha256 ? null : sql`coalesce(${transferItems.sourceMd5}, '')`),
        sha256: result.sha256,
        bytesDone: sql`${transferItems.size}`,
      })
      .where(
        and(
          eq(transferItems.id, itemId),
          eq(transferItems.status, 'copying'),
          eq(transferItems.leaseOwner, owner),
        ),
      )
      .returning({ id: transferItems.id });
    return rows.length > 0;
  }

  /**
   * Settles items and counts them in their batches, in one statement, each only while `owner` still holds its
   * lease: an item is counted once, however many workers touched it. Answers the ids it settled (a missing one's
   * lease was lost). The engine settles through ItemSettler (engine/settler.ts), which groups the items that end
   * together into one call.
   */
  async finishItems(
    owner: string,
    outcomes: Array<{ itemId: number; outcome: ItemOutcome }>,
  ): Promise<Set<number>> {
    if (outcomes.length === 0) return new Set();
    const rows = outcomes.map(({ itemId, outcome }) => {
      const done = outcome.status === 'done' ? outcome : null;
      return {
        id: itemId,
        status: outcome.status,
        error: outcome.status === 'failed' ? outcome.error.slice(0, 2000) : null,
        method: done?.method ?? null,
        md5: done?.md5 ?? null,
        sha256: done?.sha256 ?? null,
        source_deleted:
          outcome.status === 'done' || outcome.status === 'skipped' ? outcome.sourceDeleted : false,
      };
    });
    const result = await this.orm.execute(sql`
      with v as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as v(id bigint, status text, error text, method text, md5 text, sha256 text, source_deleted boolean)),
      locked as materialized (
        select i.id from transfer_items i join v on v.id = i.id
        where i.status = 'copying' and i.lease_owner = ${owner}
        order by i.id for update of i),
      item as (
        update transfer_items i set status = v.status, error = v.error,
          method = coalesce(v.method, i.method),
          md5 = case when v.status = 'done' then coalesce(v.md5, i.md5) else i.md5 end,
          sha256 = case when v.status = 'done' then coalesce(v.sha256, i.sha256) else i.sha256 end,
          bytes_done = case when v.status = 'done' then i.size else i.bytes_done end,
          source_deleted = v.source_deleted,
          lease_owner = null, lease_until = null, finished_at = now(), updated_at = now()
        from v
        where i.id = v.id and i.id in (select id from locked)
        returning i.id, i.batch_id, i.size, v.status, v.source_deleted),
      counted as (
        update transfer_batches b set
          transferred_number = transferred_number + s.done,
          transferred_size = transferred_size + s.done_size,
          failed_number = failed_number + s.failed,
          skipped_number = skipped_number + s.skipped,
          skipped_size = b.skipped_size + s.skipped_bytes,
          deleted_number = deleted_number + s.deleted,
          updated_at = now()
        from (
          select batch_id,
            count(*) filter (where status = 'done') as done,
            coalesce(sum(size) filter (where status = 'done'), 0) as done_size,
            count(*) filter (where status = 'failed') as failed,
            count(*) filter (where status = 'skipped') as skipped,
            coalesce(sum(size) filter (where status = 'skipped'), 0) as skipped_bytes,
            count(*) filter (where status in ('done', 'skipped') and source_deleted) as deleted
          from item group by batch_id) s
        where b.id = s.batch_id)
      select id from item`);
    return new Set(result.rows.map((row) => num(row.id)));
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

  /** Canceled and failed items still holding a destination upload (their parts wait to be discarded). */
  async abandonedUploads(limit: number): Promise<Array<ItemRow & { batch: BatchRow }>> {
    const rows = await this.orm
      .select({ item: transferItems, batch: transferBatches })
      .from(transferItems)
      .innerJoin(transferBatches, eq(transferBatches.id, transferItems.batchId))
      .where(
        and(
          inArray(transferItems.status, ['canceled', 'failed']),
          sql`${transferItems.uploadId} is not null`,
        ),
      )
      .limit(limit);
    return rows.map((row) => ({ ...row.item, batch: row.batch }));
  }

  /** Settled items an opening of whose upload went unanswered (`PartLedger.lostStart`), for the sweep to look. */
  async lostUploads(limit: number): Promise<Array<ItemRow & { batch: BatchRow }>> {
    const rows = await this.orm
      .select({ item: transferItems, batch: transferBatches })
      .from(transferItems)
      .innerJoin(transferBatches, eq(transferBatches.id, transferItems.batchId))
      .where(
        and(
          sql`${transferItems.lostUploadFrom} is not null`,
          sql`${transferItems.status} not in ('pending', 'copying')`,
        ),
      )
      .limit(limit);
    return rows.map((row) => ({ ...row.item, batch: row.batch }));
  }

  /** Of these upload handles, those some transfer item's ledger names (its own upload, not a lost one). */
  async recordedUploads(uploadIds: string[]): Promise<Set<string>> {
    if (uploadIds.length === 0) return new Set();
    const rows = await this.orm
      .select({ uploadId: transferItems.uploadId })
      .from(transferItems)
      .where(inArray(transferItems.uploadId, uploadIds));
    return new Set(rows.map((row) => row.uploadId).filter((id) => id !== null));
  }

  async forgetLostUpload(itemId: number): Promise<void> {
    await this.orm
      .update(transferItems)
      .set({ lostUploadFrom: null, lostUploadUntil: null })
      .where(eq(transferItems.id, itemId));
  }

  async forgetUpload(itemId: number): Promise<void> {
    await this.orm.transaction(async (tx) => {
      await tx.delete(transferParts).where(eq(transferParts.itemId, itemId));
      await tx.update(transferItems).set({ uploadId: null }).where(eq(transferItems.id, itemId));
    });
  }

  /**
   * Whether another organisation's transfer job has been waiting for a slot for a while (so every slot is taken)
   * while this organisation runs at least two jobs more than that one does: handing it one slot narrows the gap
   * without reversing it, so two organisations never hand slots back and forth. Counted across every worker
   * process from pg-boss's own table (jobs carry their organisation as `group_id`, transfers.jobs.ts); an
   * organisation already at its cap (`jobsPerOrganization`) is not waiting for a slot. Only the organisation's job
   * that has run longest (`jobId`) answers yes, so one slot is handed over at a time.
   */
  async anotherOrganizationWaits(
    organizationId: string,
    jobId: string,
    jobsPerOrganization: number,
  ): Promise<boolean> {
    const result = await this.orm.execute<{ waits: boolean }>(sql`
      with running as (
        select group_id, count(*)::int as jobs from pgboss.job
        where name = 'transfers.batch' and state = 'active' and group_id is not null
        group by group_id)
      select exists (
        select 1 from pgboss.job w
        where w.name = 'transfers.batch' and w.state in ('created', 'retry')
          and w.start_after <= now() - interval '3 seconds' and w.created_on <= now() - interval '3 seconds'
          and w.group_id is not null and w.group_id <> ${organizationId}
          and coalesce((select jobs from running r where r.group_id = w.group_id), 0) < ${jobsPerOrganization}
          and coalesce((select jobs from running r where r.group_id = w.group_id), 0) + 2
              <= coalesce((select jobs from running r where r.group_id = ${organizationId}), 0)
          and ${jobId}::uuid = (select m.id from pgboss.job m
                                where m.name = 'transfers.batch' and m.state = 'active' and m.group_id = ${organizationId}
                                order by m.started_on, m.id limit 1)
      ) as waits`);
    return result.rows[0]?.waits === true;
  }

  /**
   * Live batches that may have nobody working on them: with claimable items, items leased by workers that may
   * have died, or still to be finalized; and no job of theirs waiting in the queue. `leaseEndsIn`: seconds
   * until the earliest live lease runs out (null when none). An Ongoing held batch (a sync cycle's diff still
   * writing its items) counts only with claimable items: its jobs copy them, but nobody may plan or finalize it
   * before the cycle releases it (the release queues its jobs).
   */
  async batchesToResume(): Promise<Array<{ id: string; status: number; leaseEndsIn: number | null }>> {
    const result = await this.orm.execute(sql`
      select b.id, b.status,
        (select extract(epoch from min(i.lease_until) - now()) from transfer_items i
          where i.batch_id = b.id and i.status = 'copying' and i.lease_until >= now()) as lease_ends_in,
        exists (select 1 from transfer_items i where i.batch_id = b.id
          and (i.status = 'pending' or (i.status = 'copying' and i.lease_until < now()))) as claimable
      from transfer_batches b
      where b.status in (${BATCH_STATUS.ongoing}, ${BATCH_STATUS.canceling})
        and (b.phase <> 'held' or b.status <> ${BATCH_STATUS.ongoing}
             or exists (select 1 from transfer_items i where i.batch_id = b.id
               and (i.status = 'pending' or (i.status = 'copying' and i.lease_until < now()))))
        and not exists (select 1 from pgboss.job j
          where j.name = 'transfers.batch' and j.state in ('created', 'retry') and j.data->>'batchId' = b.id::text)`);
    return result.rows.map((row) => ({
      id: String(row.id),
      status: num(row.status),
      leaseEndsIn: row.claimable || row.lease_ends_in === null ? null : num(row.lease_ends_in),
    }));
  }

  /** The durable record of parts copies, bound to one worker's leases. */
  ledger(owner: string): PartLedger {
    const orm = this.orm;
    const leased = (itemId: number) =>
      and(
        eq(transferItems.id, itemId),
        eq(transferItems.status, 'copying'),
        eq(transferItems.leaseOwner, owner),
      );
    const lost = (itemId: number) => new Error(`lease of transfer item ${itemId} was lost`);
    return {
      async begin(itemId, method, uploadId, partSize) {
        const rows = await orm
          .update(transferItems)
          .set({ method, uploadId, partSize })
          .where(leased(itemId))
          .returning({ id: transferItems.id });
        if (rows.length === 0) throw lost(itemId);
      },
      async finishedParts(itemId): Promise<FinishedPart[]> {
        const rows = await orm
          .select()
          .from(transferParts)
          .where(eq(transferParts.itemId, itemId))
          .orderBy(transferParts.partNumber);
        return rows.map((row) => ({
          partNumber: row.partNumber,
          size: row.size,
          etag: row.etag,
          md5: row.md5,
        }));
      },
      async recordPart(itemId, part) {
        const result = await orm.execute(sql`
          insert into transfer_parts (item_id, part_number, size, etag, md5)
          select ${itemId}, ${part.partNumber}, ${part.size}, ${part.etag}, ${part.md5}
          where exists (select 1 from transfer_items where id = ${itemId} and status = 'copying'
                          and lease_owner = ${owner})
          on conflict (item_id, part_number) do update set size = excluded.size, etag = excluded.etag,
            md5 = excluded.md5`);
        if (result.rowCount === 0) throw lost(itemId);
      },
      async clear(itemId) {
        await orm.transaction(async (tx) => {
          await tx.delete(transferParts).where(eq(transferParts.itemId, itemId));
          await tx
            .update(transferItems)
            .set({ uploadId: null, partSize: null })
            .where(eq(transferItems.id, itemId));
        });
      },
      async lostStart(itemId, from, until) {
        // least/greatest skip nulls: the first lost opening sets the window, later ones widen it.
        await orm
          .update(transferItems)
          .set({
            lostUploadFrom: sql`least(${transferItems.lostUploadFrom}, ${from.toISOString()}::timestamptz)`,
            lostUploadUntil: sql`greatest(${transferItems.lostUploadUntil}, ${until.toISOString()}::timestamptz)`,
          })
          .where(eq(transferItems.id, itemId));
      },
    };
  }
}

import { and, eq, inArray, sql } from 'drizzle-orm';
import { BATCH_STATUS } from '@cumulo/contract';
import { executePrepared, type Database } from '../../db/client.ts';
import { transferBatches, transferItems, transferParts } from '../../db/schema/index.ts';
import type { CopyItem, CopyMethod, FinishedPart, PartLedger } from './engine/copy-task.ts';
import type { BatchRow, ItemRow } from './transfers.repo.ts';

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

const num = (value: unknown) => Number(value ?? 0);
/** A bigint[] parameter, as PostgreSQL's array literal. */
const idArray = (values: number[]) => `{${values.join(',')}}`;

/**
 * SQL of the item queue the engine works through: claims under leases, their renewal and release, the settling of
 * items with their batch's counters, the parts ledger, and what the sweep recovers (batches left without a job,
 * uploads left open). Calls take a batch or item id a job carried and, for item state, the worker's lease owner: a
 * worker whose lease was lost can no longer change an item.
 *
 * Locks: a statement that changes several item rows locks them in id order (a `locked` CTE, ORDER BY id FOR
 * UPDATE) or skips the locked ones (claims, progress), and item rows are always locked before their batch's row.
 * Two statements locking the same rows in different orders deadlock: a worker settling its items while its
 * progress flush wrote the same rows' bytes did, in the end-to-end transfer test.
 */
export class TransferQueueRepo {
  constructor(readonly orm: Database) {}

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
    const result = await executePrepared(
      this.orm,
      'transfer-items.claim',
      sql`
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
        (select coalesce(sum(p.size), 0) from transfer_parts p where p.item_id = transfer_items.id) as parts_done`,
    );
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
    const result = await executePrepared(
      this.orm,
      'transfer-items.finish',
      sql`
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
      select id from item`,
    );
    return new Set(result.rows.map((row) => num(row.id)));
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
}

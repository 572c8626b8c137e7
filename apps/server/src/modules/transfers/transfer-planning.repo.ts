import type pg from 'pg';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { transferBatches } from '../../db/schema/index.ts';

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

/**
 * SQL of a batch's planning (`engine/planner.ts`, and the executor that runs it): the planned items written chunk by
 * chunk with the batch's totals and plan cursor, the lock one planner holds, the end of planning. The engine's
 * calls take a batch id it got from a job.
 */
export class TransferPlanningRepo {
  constructor(
    readonly orm: Database,
    /** For the session advisory lock held while the work runs (Db.locks: apart from the requests' pool). */
    private readonly locks: pg.Pool,
  ) {}

  /**
   * Inserts one chunk of planned items, adds them to the batch's totals and moves the plan cursor, in one
   * statement. The rows travel as arrays through `unnest` — one statement with a parameter per column whatever
   * the chunk size, where a multi-row VALUES would bind them per row — and the totals are summed by the database
   * from what was really inserted (a key planned before, by a planner that ran twice, counts once). Answers the
   * batch status, so the planner stops when the batch is canceled.
   */
  async insertPlanned(batchId: string, items: PlannedItem[], cursor: string | null): Promise<number | null> {
    const result = await this.orm.execute<{ status: number }>(sql`
      with inserted as (
        insert into transfer_items
          (batch_id, source_key, destination_key, size, source_etag, source_md5, status, method)
        select ${batchId}::uuid, * from unnest(${sql.param(items.map((item) => item.sourceKey))}::text[],
          ${sql.param(items.map((item) => item.destinationKey))}::text[],
          ${sql.param(items.map((item) => item.size))}::bigint[],
          ${sql.param(items.map((item) => item.sourceEtag))}::text[],
          ${sql.param(items.map((item) => item.sourceMd5))}::text[],
          ${sql.param(items.map((item) => item.status))}::text[],
          ${sql.param(items.map((item) => (item.present ? 'present' : null)))}::text[])
        on conflict (batch_id, source_key) do nothing
        returning size, status
      )
      update transfer_batches set
        total_number = total_number + (select count(*) from inserted),
        total_size = total_size + (select coalesce(sum(size), 0) from inserted),
        skipped_number = skipped_number + (select count(*) from inserted where status = 'skipped'),
        skipped_size = skipped_size + (select coalesce(sum(size), 0) from inserted where status = 'skipped'),
        plan_cursor = coalesce(${cursor}, plan_cursor),
        updated_at = now()
      where id = ${batchId}
      returning status`);
    return result.rows[0]?.status ?? null;
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

  /** Ends planning; answers false when another planner already did. */
  async finishPlanning(batchId: string): Promise<boolean> {
    const rows = await this.orm
      .update(transferBatches)
      .set({ phase: 'copying', updatedAt: new Date() })
      .where(and(eq(transferBatches.id, batchId), eq(transferBatches.phase, 'planning')))
      .returning({ id: transferBatches.id });
    return rows.length > 0;
  }
}

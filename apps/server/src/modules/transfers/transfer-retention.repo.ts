import type pg from 'pg';

/** Item statuses retention removes; failed items stay for good (Download Failed Files, Retry Failed Files). */
const PRUNED_STATUSES = ['done', 'skipped', 'canceled'];

export interface PrunableBatch {
  id: string;
  finishedAt: Date;
}

/** The SQL of transfer items' retention (README "Retention"). */
export class TransferRetentionRepo {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Finished batches that ended before `cutoff` and were not pruned yet, oldest first, after the keyset `after`.
   * A sync cycle's batch waits until its cycle has ended: the cycle records what the batch's done items wrote at
   * the destination (`SyncCyclesRepo.recordCopies`) once it moves on.
   */
  async batchesToPrune(cutoff: Date, after: PrunableBatch | null, limit: number): Promise<PrunableBatch[]> {
    const result = await this.pool.query<{ id: string; finished_at: Date }>(
      `select b.id, b.finished_at from transfer_batches b
       where b.phase = 'finished' and b.items_pruned_at is null and b.finished_at < $1
         and ($2::timestamptz is null or (b.finished_at, b.id) > ($2, $3::uuid))
         and not exists (select 1 from sync_cycles c where c.id = b.sync_cycle_id and c.finished_at is null)
       order by b.finished_at, b.id
       limit $4`,
      [cutoff, after?.finishedAt ?? null, after?.id ?? null, limit],
    );
    return result.rows.map((row) => ({ id: row.id, finishedAt: row.finished_at }));
  }

  /**
   * Deletes at most `limit` of the batch's done, skipped and canceled items (their parts go with them); answers how
   * many. An item still holding a destination upload is left to the transfers sweep, which aborts it first.
   */
  async pruneItems(batchId: string, limit: number): Promise<number> {
    const result = await this.pool.query(
      `delete from transfer_items where id in (
         select id from transfer_items
         where batch_id = $1 and status = any($2::text[]) and upload_id is null
         order by id limit $3)`,
      [batchId, PRUNED_STATUSES, limit],
    );
    return result.rowCount ?? 0;
  }

  /** Marks the batch pruned once none of its prunable items is left (one waiting for the sweep keeps it due). */
  async markPruned(batchId: string): Promise<boolean> {
    const result = await this.pool.query(
      `update transfer_batches set items_pruned_at = now()
       where id = $1 and items_pruned_at is null
         and not exists (select 1 from transfer_items where batch_id = $1 and status = any($2::text[]))`,
      [batchId, PRUNED_STATUSES],
    );
    return (result.rowCount ?? 0) > 0;
  }
}

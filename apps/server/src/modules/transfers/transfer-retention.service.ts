import type { PrunableBatch, TransferRetentionRepo } from './transfer-retention.repo.ts';

interface RetentionResult {
  /** Batches whose prunable items are all gone now. */
  batches: number;
  /** Items deleted. */
  items: number;
}

/** Rows per DELETE: each statement holds its row locks briefly and its transaction stays small. */
const RETENTION_CHUNK = 5_000;
/** Breath between statements, so the prune never monopolises the database against the copies and the API. */
const PAUSE_MS = 50;
const BATCH_PAGE = 100;
const DAY_MS = 86_400_000;

/**
 * Removes the done, skipped and canceled items of batches that finished more than `days` ago
 * (`TRANSFER_ITEMS_RETENTION_DAYS`); failed items and the batches' totals stay. Safe to run twice, and to stop
 * anywhere: a batch is marked pruned only once its items are gone, and the next run carries on where this one ended.
 */
export class TransferRetention {
  constructor(
    private readonly repo: TransferRetentionRepo,
    private readonly days: number,
    private readonly options: { chunk: number; pauseMs: number } = {
      chunk: RETENTION_CHUNK,
      pauseMs: PAUSE_MS,
    },
  ) {}

  async run(now = new Date()): Promise<RetentionResult> {
    const cutoff = new Date(now.getTime() - this.days * DAY_MS);
    const result: RetentionResult = { batches: 0, items: 0 };
    let after: PrunableBatch | null = null;
    for (;;) {
      const page = await this.repo.batchesToPrune(cutoff, after, BATCH_PAGE);
      for (const batch of page) {
        for (;;) {
          const deleted = await this.repo.pruneItems(batch.id, this.options.chunk);
          result.items += deleted;
          if (deleted < this.options.chunk) break;
          await pause(this.options.pauseMs);
        }
        if (await this.repo.markPruned(batch.id)) result.batches++;
      }
      if (page.length < BATCH_PAGE) return result;
      after = page[page.length - 1] ?? null;
    }
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

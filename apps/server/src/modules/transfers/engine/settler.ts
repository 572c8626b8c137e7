import type { ItemOutcome, TransferQueueRepo } from '../transfer-queue.repo.ts';

interface Waiting {
  itemId: number;
  outcome: ItemOutcome;
  resolve: (counted: boolean) => void;
  reject: (error: unknown) => void;
}

/** The longest an ended item waits for others to share its statement, and the most one statement carries. */
const SETTLE_WINDOW_MS = 50;
const SETTLE_GROUP = 64;

/**
 * Settles one job's items in groups (TransferQueueRepo.finishItems), like a database's group commit: while other
 * copies of the job are still running, an ended item waits up to SETTLE_WINDOW_MS (or until SETTLE_GROUP items
 * wait) for the ones ending after it; with no copy left running it is written at once. The wait costs no
 * throughput: a copy's slot is free as soon as its bytes are verified (TransferExecutor), not when it is settled.
 * Without the window, 1000 × 64 KiB objects with 64 in flight took 250–420 statements of 2–3 items each, every
 * one waking PostgreSQL and updating the batch's row under its lock (bench/transfer (a) --count,
 * pg_stat_statements); with it, about a tenth of that.
 *
 * An item is reported settled only once its statement committed, so nothing is counted before it is written; a
 * worker that dies first leaves its items to come back when their leases end, to be copied (and verified) again.
 */
export class ItemSettler {
  #waiting: Waiting[] = [];
  #writing = false;
  /** Ends the current window early (a full group, or the job's last copy ended). */
  #flush: (() => void) | null = null;

  constructor(
    private readonly repo: Pick<TransferQueueRepo, 'finishItems'>,
    private readonly owner: string,
    /** Copies of the job still running, whose items may end soon; none: nothing is worth waiting for. */
    private readonly copying: () => number = () => 0,
  ) {}

  /** Resolves whether the item was settled and counted (false: this worker's lease on it was lost). */
  settle(itemId: number, outcome: ItemOutcome): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ itemId, outcome, resolve, reject });
      if (!this.#writing) {
        this.#writing = true;
        void this.#writeAll();
      } else if (this.#waiting.length >= SETTLE_GROUP || this.copying() === 0) this.#flush?.();
    });
  }

  /** Waits for more items to end, unless the group is full or no copy of the job is left to end. */
  async #gather() {
    if (this.#waiting.length >= SETTLE_GROUP || this.copying() === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SETTLE_WINDOW_MS);
      this.#flush = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#flush = null;
  }

  /** Never rejects: a failed statement rejects the settles it carried. */
  async #writeAll() {
    // Let the items that ended in the same turn of the event loop join the first statement.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      await this.#gather();
      const group = this.#waiting.splice(0, SETTLE_GROUP);
      try {
        const settled = await this.repo.finishItems(
          this.owner,
          group.map(({ itemId, outcome }) => ({ itemId, outcome })),
        );
        for (const waiting of group) waiting.resolve(settled.has(waiting.itemId));
      } catch (error) {
        for (const waiting of group) waiting.reject(error);
      }
    }
    this.#writing = false;
  }
}

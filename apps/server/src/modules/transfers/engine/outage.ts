import { StorageError } from '@cumulo/storage';
import { CopyError, type CopyEndpoint } from './copy-task.ts';

type StoreSide = 'source' | 'destination';

/** A store of the batch that does not answer: which end (null: unknown, every copy fails), and its own words. */
export interface Outage {
  side: StoreSide | null;
  cause: string;
}

export { DEFAULT_OUTAGE_SECONDS } from '../../../config-defaults.ts';
/** The first pause after a store was found unreachable; each next one doubles, up to the cap. */
const FIRST_PAUSE_MS = 5000;
const MAX_PAUSE_MS = 60_000;

function storageErrorOf(error: unknown): StorageError | null {
  if (error instanceof StorageError) return error;
  if (error instanceof CopyError && error.cause instanceof StorageError) return error.cause;
  return null;
}

/**
 * Whether an error says a store is in trouble rather than refusing this one object: no answer at all (connection
 * refused, DNS, timeout), throttling, or a 5xx.
 */
export function storeTrouble(error: unknown): boolean {
  const cause = storageErrorOf(error);
  if (!cause) return false;
  return (
    cause.code === 'Network' ||
    cause.code === 'Throttled' ||
    (cause.code === 'Unknown' && (cause.status ?? 0) >= 500)
  );
}

/** Asks both ends of a batch whether they answer at all (one HeadBucket each): the first that does not. */
export async function probeEndpoints(endpoints: {
  source: CopyEndpoint;
  destination: CopyEndpoint;
}): Promise<Outage | null> {
  const sides: StoreSide[] = ['destination', 'source'];
  for (const side of sides) {
    const endpoint = endpoints[side];
    try {
      await endpoint.store.headBucket(endpoint.bucket);
    } catch (error) {
      if (storeTrouble(error)) return { side, cause: error instanceof Error ? error.message : String(error) };
    }
  }
  return null;
}

/**
 * One batch job's record of an outage. While a store stays unreachable the job pauses its claims, 5 s, then 10 s,
 * 20 s … up to a minute, instead of letting every object burn its tries within seconds; once the store has been
 * unreachable for longer than the budget, the verdict is to fail the batch. A copy that succeeds ends the outage.
 */
export class OutageBackoff {
  #since: number | null = null;
  #pauses = 0;
  #failuresInARow = 0;
  #resumeAt = 0;
  #outage: Outage | null = null;
  #spent = false;

  /**
   * `failuresInARow`: copies failing in a row on a store in trouble, while both stores answer a probe, that count
   * as an outage (the executor: twice the objects a job copies at once, so that a few objects a store always
   * refuses with a 5xx fail on their own instead of holding their batch).
   */
  constructor(
    private readonly budgetMs: number,
    private readonly failuresInARow: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The outage seen last (null when none is under way). */
  get outage(): Outage | null {
    return this.#outage;
  }

  /** Whether the job should claim nothing now: paused, or the budget spent. */
  get holding(): boolean {
    return this.#spent || this.now() < this.#resumeAt;
  }

  /** The store stayed unreachable past the budget: the batch is to fail. */
  get spent(): boolean {
    return this.#spent;
  }

  /** Milliseconds until the pause ends (0 when not paused). */
  get pauseLeftMs(): number {
    return Math.max(0, this.#resumeAt - this.now());
  }

  /** Seconds since the outage was first seen. */
  get waitedSeconds(): number {
    return this.#since === null ? 0 : Math.round((this.now() - this.#since) / 1000);
  }

  /**
   * A copy failed on a store in trouble. `probed`: what a probe of both stores found (null: both answer). Answers
   * whether that is an outage (the copy's object is to wait rather than fail).
   */
  failed(probed: Outage | null, cause: string): boolean {
    this.#failuresInARow += 1;
    const outage = probed ?? (this.#failuresInARow >= this.failuresInARow ? { side: null, cause } : null);
    if (!outage) return false;
    const now = this.now();
    this.#outage = outage;
    // Copies in flight when the pause began fail too: they wait with it rather than lengthen it.
    if (now < this.#resumeAt) return true;
    this.#since ??= now;
    const left = this.#since + this.budgetMs - now;
    if (left <= 0) {
      this.#spent = true;
      return true;
    }
    this.#resumeAt = now + Math.min(FIRST_PAUSE_MS * 2 ** this.#pauses, MAX_PAUSE_MS, left);
    this.#pauses += 1;
    return true;
  }

  /** Whether a copy that just failed on a store in trouble falls within a pause already decided. */
  get pausing(): boolean {
    return this.now() < this.#resumeAt;
  }

  /** A copy succeeded: whatever was wrong is over. */
  succeeded(): void {
    if (this.#spent) return;
    this.#since = null;
    this.#pauses = 0;
    this.#failuresInARow = 0;
    this.#resumeAt = 0;
    this.#outage = null;
  }
}

import { setTimeout as sleep } from 'node:timers/promises';

/** Time as the token bucket sees it; replaceable so a test drives it without real waiting. */
export interface BandwidthClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: BandwidthClock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};

/**
 * Paces bytes to `rate` per second. A reader takes the bytes it just received; the bucket holds at most `burst`
 * tokens (one second's worth by default), and a take larger than what is held runs the bucket into debt and waits
 * until the debt is paid back. Reserving before waiting keeps concurrent readers in arrival order and the long-run
 * rate exact, whatever the chunk sizes. It starts empty: a transfer's first second is paced like the others, so a
 * batch of a few MiB does not run a quarter above its limit; the burst is only what an idle reader saved up.
 */
export class TokenBucket {
  readonly #fixedBurst: number | undefined;
  #rate: number;
  #tokens: number;
  #at: number;

  constructor(
    rate: number,
    burst?: number,
    private readonly clock: BandwidthClock = realClock,
  ) {
    TokenBucket.#check(rate);
    this.#rate = rate;
    this.#fixedBurst = burst;
    this.#tokens = 0;
    this.#at = clock.now();
  }

  static #check(rate: number) {
    if (!(rate > 0)) throw new RangeError('A bandwidth rate must be positive');
  }

  get rate(): number {
    return this.#rate;
  }

  /** At most this many tokens are held: the burst given, else one second at the current rate. */
  get burst(): number {
    return Math.max(1, this.#fixedBurst ?? this.#rate);
  }

  /** Tokens held now (negative while in debt). */
  get tokens(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Paces at `rate` from now on; the time until now is counted at the rate it had. */
  setRate(rate: number): void {
    TokenBucket.#check(rate);
    this.#refill();
    this.#rate = rate;
    this.#tokens = Math.min(this.burst, this.#tokens);
  }

  /** Spends `bytes`; resolves once the bucket is out of debt, rejects with the signal's reason when aborted. */
  async take(bytes: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.#refill();
    this.#tokens -= bytes;
    if (this.#tokens >= 0) return;
    await this.clock.sleep((-this.#tokens / this.#rate) * 1000, signal);
  }

  #refill() {
    const now = this.clock.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.#rate);
    this.#at = now;
  }
}

/**
 * The buckets of the batches this process copies. A batch's limit is split evenly over its
 * `TRANSFER_JOBS_PER_BATCH` jobs, and the jobs of one batch that run in this process read through one bucket
 * whose rate is their shares added up (never more than the whole limit): a batch copied by one process (`npm
 * start`) reads at its limit, and so does a batch whose jobs run on several workers. A job that ends does not
 * lower the rate: it ends because nothing is left for it to claim, so the jobs still copying here are the batch's
 * readers here, and one job that claimed every object (a batch of one large file) read at half the limit when its
 * sibling left (issue 21). What this costs: a job that yields its slot (fair queues) and is picked up by another
 * process adds that process's share on top until this process's jobs end.
 */
export class BatchBandwidth {
  readonly #held = new Map<string, { bucket: TokenBucket; limit: number; users: number }>();

  constructor(
    private readonly jobsPerBatch: number,
    private readonly clock: BandwidthClock = realClock,
  ) {}

  /** The bucket a job of the batch reads through, or null when the batch is unlimited; pair with `release`. */
  acquire(batchId: string, limit: number | null): TokenBucket | null {
    if (limit === null || limit <= 0) return null;
    const held = this.#held.get(batchId);
    if (held) {
      held.users += 1;
      held.bucket.setRate(Math.max(held.bucket.rate, this.#rateOf(held.limit, held.users)));
      return held.bucket;
    }
    const bucket = new TokenBucket(this.#rateOf(limit, 1), undefined, this.clock);
    this.#held.set(batchId, { bucket, limit, users: 1 });
    return bucket;
  }

  release(batchId: string): void {
    const held = this.#held.get(batchId);
    if (!held) return;
    held.users -= 1;
    if (held.users <= 0) this.#held.delete(batchId);
  }

  #rateOf(limit: number, jobs: number): number {
    return Math.min(limit, (limit * jobs) / Math.max(1, this.jobsPerBatch));
  }
}

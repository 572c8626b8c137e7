const MiB = 1024 * 1024;

import { DEFAULT_TRANSFER_MEMORY_MB } from '../../../config-defaults.ts';
export const DEFAULT_TRANSFER_MEMORY = DEFAULT_TRANSFER_MEMORY_MB * MiB;

/**
 * What a part streamed from its ranged GET into its UploadPart holds at most: the GET's and the request's stream
 * and socket buffers (tens of KiB each, with backpressure between them), rounded up. Such a part leases this
 * from the budget instead of a part-sized buffer, so the budget still bounds the parts in flight of every copy
 * of the process (TRANSFER_MEMORY_MB / 1 MiB streams: 64 with the default).
 */
export const STREAMED_PART_COST = MiB;

interface Waiter {
  unit: number;
  wanted: number;
  grant: (lease: MemoryLease) => void;
}

/**
 * The bytes one worker process may hold in copy buffers at once (`TRANSFER_MEMORY_MB`), whatever the number of
 * objects in flight: a small object read whole, the part buffers of a large one. Without it memory grew with
 * the object concurrency: 32 large objects in flight, each with its window of 8 MiB parts, held 2 GiB.
 *
 * A copy leases whole buffers (`unit` bytes each) for its life and reuses them (MemoryLease.buffer/recycle), so
 * no buffer waits for the garbage collector to be freed. A lease is granted as soon as one unit fits, with as
 * many of the wanted units as fit: a large object copies with fewer parts in flight rather than waiting. Leases
 * are granted in the order they were asked for, so large objects are not starved by a stream of small ones. A
 * unit larger than the whole budget (a 5 TB object's 525 MiB parts) is granted alone, once nothing else is held.
 */
export class MemoryBudget {
  #held = 0;
  readonly #waiters: Waiter[] = [];

  constructor(readonly total: number) {
    if (!(total > 0)) throw new RangeError('the transfer memory budget must be positive');
  }

  get held(): number {
    return this.#held;
  }

  /** Resolves with a lease of 1..`wanted` buffers of `unit` bytes; rejects with the signal's reason if aborted. */
  async lease(unit: number, wanted: number, signal?: AbortSignal): Promise<MemoryLease> {
    signal?.throwIfAborted();
    const size = Math.max(1, Math.ceil(unit));
    const count = Math.max(1, Math.floor(wanted));
    if (this.#waiters.length === 0) {
      const granted = this.#tryGrant(size, count);
      if (granted) return granted;
    }
    return new Promise<MemoryLease>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal?.reason);
        // The head of the queue may have been what held the others back.
        this.#wake();
      };
      const waiter: Waiter = {
        unit: size,
        wanted: count,
        grant: (lease) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(lease);
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #tryGrant(unit: number, wanted: number): MemoryLease | null {
    const fits = Math.floor((this.total - this.#held) / unit);
    const units = fits >= 1 ? Math.min(wanted, fits) : this.#held === 0 ? 1 : 0;
    if (units === 0) return null;
    this.#held += units * unit;
    return new MemoryLease(unit, units, () => {
      this.#held -= units * unit;
      this.#wake();
    });
  }

  #wake() {
    while (this.#waiters.length > 0) {
      const head = this.#waiters[0] as Waiter;
      const lease = this.#tryGrant(head.unit, head.wanted);
      if (!lease) return;
      this.#waiters.shift();
      head.grant(lease);
    }
  }
}

/**
 * `units` buffers of `unit` bytes, leased from a MemoryBudget until `release`. `buffer()` hands out a recycled
 * buffer when there is one; the holder must never have more than `units` out at once.
 */
export class MemoryLease {
  readonly #free: ArrayBuffer[] = [];
  #released = false;

  constructor(
    readonly unit: number,
    readonly units: number,
    private readonly onRelease: () => void,
  ) {}

  /** A buffer of `unit` bytes (contents undefined). */
  buffer(): Buffer {
    const reused = this.#free.pop();
    return reused ? Buffer.from(reused, 0, this.unit) : Buffer.allocUnsafeSlow(this.unit);
  }

  /** Takes back a buffer from `buffer()` (or any view of it) for the next part. */
  recycle(bytes: Buffer) {
    if (!this.#released && bytes.buffer.byteLength === this.unit)
      this.#free.push(bytes.buffer as ArrayBuffer);
  }

  release() {
    if (this.#released) return;
    this.#released = true;
    this.#free.length = 0;
    this.onRelease();
  }
}

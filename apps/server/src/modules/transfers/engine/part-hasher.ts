import { createHash, type Hash } from 'node:crypto';

interface RoomWaiter {
  partNumber: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface ContentDigest {
  md5: string;
  /** Null when the hasher was told SHA-256 is not needed (the source's MD5 already verifies the copy). */
  sha256: string | null;
}

/**
 * Whole-object MD5 and SHA-256 of an object whose parts arrive out of order (parallel ranged reads). Both hashes
 * are sequential, so part k can only be hashed once parts 1..k-1 have been; early parts wait here. The window
 * bounds memory: a reader may take part k only while k < next + window, so at most `window` part buffers are held
 * (being read, uploaded or waiting for their turn), whatever the object's size.
 */
export class PartHasher {
  private readonly md5: Hash = createHash('md5');
  private readonly sha256: Hash | null;
  private readonly waiting = new Map<number, Buffer>();
  private readonly waiters: RoomWaiter[] = [];
  private nextPart = 1;
  private failure: unknown = undefined;
  private readonly onHashed: ((bytes: Buffer) => void) | undefined;

  constructor(
    private readonly partCount: number,
    private readonly window: number,
    options: {
      /** SHA-256 costs more CPU than the copy's network work on small machines: computed only when needed. */
      sha256?: boolean;
      /** Called with each part's bytes once they are hashed: the buffer may be reused (MemoryLease.recycle). */
      onHashed?: (bytes: Buffer) => void;
    } = {},
  ) {
    if (!Number.isInteger(window) || window < 1) throw new RangeError('the hashing window must hold a part');
    this.sha256 = options.sha256 === false ? null : createHash('sha256');
    this.onHashed = options.onHashed;
  }

  /** The next part number to be hashed (1-based); partCount + 1 once every part is in. */
  get next(): number {
    return this.nextPart;
  }

  /** Resolves when part `partNumber` may be read into memory without overflowing the window. */
  async waitForRoom(partNumber: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.failure !== undefined) throw this.failure;
    if (partNumber < this.nextPart + this.window) return;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.removeWaiter(entry);
        reject(signal?.reason);
      };
      const entry: RoomWaiter = {
        partNumber,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      this.waiters.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands over part `partNumber`'s bytes; they are hashed as soon as every earlier part has been. */
  add(partNumber: number, bytes: Buffer): void {
    if (partNumber < this.nextPart || this.waiting.has(partNumber) || partNumber > this.partCount) {
      throw new RangeError(`part ${partNumber} was already hashed or is not part of the object`);
    }
    this.waiting.set(partNumber, bytes);
    for (let ready = this.waiting.get(this.nextPart); ready; ready = this.waiting.get(this.nextPart)) {
      this.md5.update(ready);
      this.sha256?.update(ready);
      this.waiting.delete(this.nextPart);
      this.nextPart += 1;
      this.onHashed?.(ready);
    }
    this.wake();
  }

  /** Releases every waiter with `error` (a part failed: the copy stops). */
  fail(error: unknown): void {
    this.failure ??= error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure);
    this.waiting.clear();
  }

  /** The digests of the whole object; only once every part has been hashed. */
  digest(): ContentDigest {
    if (this.nextPart !== this.partCount + 1) {
      throw new Error(`only ${this.nextPart - 1} of ${this.partCount} parts were hashed`);
    }
    return { md5: this.md5.digest('hex'), sha256: this.sha256?.digest('hex') ?? null };
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.partNumber < this.nextPart + this.window) {
        this.removeWaiter(waiter);
        waiter.resolve();
      }
    }
  }

  private removeWaiter(waiter: RoomWaiter): void {
    const index = this.waiters.indexOf(waiter);
    if (index >= 0) this.waiters.splice(index, 1);
  }
}

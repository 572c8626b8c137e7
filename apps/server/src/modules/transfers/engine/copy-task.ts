import { StorageError, type ObjectStore } from '@cumulo/storage';
import type { MemoryBudget } from './memory-budget.ts';
import type { ThrottleGate } from './throttle.ts';

/**
 * The seam between the executor (claims items, leases, batch counters, progress; `executor.ts`) and the object
 * copier (moves and verifies one object; `object-copier.ts`, which picks one of `methods/`). The copier never
 * touches batch state; the executor never touches bytes.
 */

export type CopyMethod = 'server-copy' | 'single' | 'parts' | 'stream';

/** One end of a copy: the account's store (one SDK client per account, from the StoreRegistry) and the bucket. */
export interface CopyEndpoint {
  store: ObjectStore;
  accountId: string;
  bucket: string;
  /** Same endpoint and credentials on both sides enable server-side copy; the executor sets this key. */
  endpointKey: string;
}

/** The item as planned, plus what an earlier (interrupted) attempt recorded. */
export interface CopyItem {
  id: number;
  sourceKey: string;
  destinationKey: string;
  size: number;
  sourceEtag: string | null;
  sourceMd5: string | null;
  /** Set by an earlier attempt of a parts copy: resume it instead of starting over. */
  method: CopyMethod | null;
  uploadId: string | null;
  partSize: number | null;
}

export interface FinishedPart {
  partNumber: number;
  size: number;
  etag: string | null;
  /** Hex MD5 of the part's bytes, null for a server-side part copy. */
  md5: string | null;
}

/** Durable record of a parts copy, so a killed worker's successor resumes from the finished parts. */
export interface PartLedger {
  /** Records the method and, for a parts copy, the destination's upload handle and part size. */
  begin(itemId: number, method: CopyMethod, uploadId: string | null, partSize: number | null): Promise<void>;
  finishedParts(itemId: number): Promise<FinishedPart[]>;
  recordPart(itemId: number, part: FinishedPart): Promise<void>;
  /** Forgets the upload handle and parts (after complete or abort). */
  clear(itemId: number): Promise<void>;
  /**
   * An opening of an upload was sent between `from` and `until` and got no answer: the store may hold an upload
   * no ledger names. Kept whoever holds the item (the upload is there either way) and widened by later ones,
   * until the sweep has looked for it once the item settled (engine/lost-uploads.ts).
   */
  lostStart(itemId: number, from: Date, until: Date): Promise<void>;
}

export interface CopyTask {
  item: CopyItem;
  source: CopyEndpoint;
  destination: CopyEndpoint;
  ledger: PartLedger;
  /** Aborts the copy (cancel, lease lost, shutdown). */
  signal: AbortSignal;
  /** Bytes newly written to the destination (for progress); may be called often, must be cheap. */
  onBytes(delta: number): void;
  /**
   * The batch's bandwidth limit: called with each chunk of source bytes read through the worker, resolves when
   * the next may be read (rejects with the signal's reason when aborted). Absent = unlimited. Server-side copies
   * move no byte through the worker and are not paced.
   */
  pace?(bytes: number, signal: AbortSignal): Promise<void>;
}

/** What was verified: the destination holds `size` bytes whose checksum matched by the named rule. */
export interface CopyResult {
  method: CopyMethod;
  /** Hex MD5 of the content when known (computed while streaming, or the provider's matching one). */
  md5: string | null;
  /** Hex SHA-256 computed while streaming, stored in the destination's `cumulo-sha256` metadata. */
  sha256: string | null;
  /**
   * md5: the source's MD5; parts-md5: the source's parts ETag, matched by a copy in the source's part layout;
   * sha256: none to compare, the SHA-256 is the destination's record; server-copy: the store copied the bytes;
   * part-md5s: each part streamed at Cumulo's own part size is what the store received (its answered MD5), and
   * the source did not change, but the bytes read were compared with no checksum of the source.
   */
  verifiedBy: 'md5' | 'parts-md5' | 'sha256' | 'server-copy' | 'part-md5s';
}

/** How the copy methods (`methods/`) work for one object, as the copier set them from its options and pools. */
export interface CopySettings {
  /** Parts in flight, at most (fewer when the memory budget grants fewer part buffers). */
  concurrency: number;
  /** Forced part size (tests, tuning); still raised to the provider minimum and the part-count limit. */
  partSize?: number;
  /** At or below this size an object is copied in one request through memory. */
  singleMax: number;
  /** At or below this size a server-side copy is one call (S3 CopyObject stops at 5 GiB); above, part copies. */
  serverCopyMax: number;
  /** The destination's backoff, shared by every copy to it in this process. */
  gate: ThrottleGate;
  /** The worker process's copy buffers (TRANSFER_MEMORY_MB), shared by every object in flight. */
  memory: MemoryBudget;
  /** Which parts copies stream their parts to a store that answers part MD5s (CopyOptions.streamParts). */
  streamParts: 'mirrored' | 'always';
}

/** A failure worth showing the user (the item's error), and whether another attempt may succeed. */
export class CopyError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CopyError';
  }
}

export const SOURCE_CHANGED = 'The source object changed during the copy';
export const CHECKSUM_MISMATCH = 'The copied bytes do not match the checksum of the source object';

/**
 * Store errors become the item's error. Throttling, network trouble and unknown answers may pass on a later
 * attempt; a missing object or bucket, refused credentials or an unsupported call will not.
 */
function toCopyError(error: unknown): CopyError {
  if (error instanceof CopyError) return error;
  if (error instanceof StorageError) {
    const retryable = error.code === 'Throttled' || error.code === 'Network' || error.code === 'Unknown';
    return new CopyError(error.message, retryable, { cause: error });
  }
  return new CopyError(error instanceof Error ? error.message : String(error), true, { cause: error });
}

/** A cancelled copy rejects with the task's own abort reason, so the executor can tell it from a failure. */
export function failure(task: CopyTask, error: unknown): unknown {
  return task.signal.aborted ? task.signal.reason : toCopyError(error);
}

/** True when the store does not offer a server-side call at all (s3rver answers UploadPartCopy with 501). */
export function isUnsupported(error: unknown): boolean {
  return (
    error instanceof StorageError &&
    (error.code === 'Unsupported' || error.status === 501 || error.status === 405)
  );
}

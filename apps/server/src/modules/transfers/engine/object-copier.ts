import { PART_LIMITS, SINGLE_REQUEST_MAX } from '@cumulo/storage';
import { failure, type CopyItem, type CopyResult, type CopySettings, type CopyTask } from './copy-task.ts';
import type { MemoryBudget } from './memory-budget.ts';
import { copyInParts, forget } from './methods/parallel-parts.ts';
import { serverCopy, serverCopyInParts } from './methods/server-copy.ts';
import { copySingle } from './methods/single-request.ts';
import { copyStream } from './methods/streamed.ts';
import type { ThrottleGates } from './throttle.ts';

/** What every copy of a worker process shares; services.ts builds them once per process. */
export interface CopierPools {
  /** The copy buffers and part streams every object in flight shares (TRANSFER_MEMORY_MB). */
  memory: MemoryBudget;
  /** The backoff of each destination, shared by every copy to it. */
  gates: ThrottleGates;
}

/** Tuning; the defaults are what the transfers README states. */
export interface CopyOptions {
  /** Parts in flight per object (default 4), each with its buffer until it is hashed. */
  partConcurrency?: number;
  /** Forced part size (raised to the destination's minimum and part-count limit). */
  partSize?: number;
  /** At or below this size an object is copied in one request through memory (default 8 MiB). */
  singleMax?: number;
  /** At or below this size a server-side copy is one call (S3 CopyObject stops at 5 GiB); above, part copies. */
  serverCopyMax?: number;
  /**
   * Which parts copies to a store that answers part MD5s (S3) stream their parts instead of buffering them.
   * 'mirrored' (default): only copies in the source's own parts, which are still checked against the source's
   * parts ETag. 'always': also copies at Cumulo's own part size, which then hash nothing whole: each part is
   * checked against what the store received, not against the source's MD5 (`verifiedBy: 'part-md5s'`).
   */
  streamParts?: 'mirrored' | 'always';
}

const DEFAULT_PART_CONCURRENCY = 4;

/** One copy method: taken when `when` holds; a `copy` that answers null found the store without the call. */
interface CopyMethodRow {
  /** As the transfers README's "Copy methods" table names it. */
  method: string;
  when(task: CopyTask, settings: CopySettings): boolean;
  copy(task: CopyTask, settings: CopySettings): Promise<CopyResult | null>;
}

const sameEndpoint = ({ source, destination }: CopyTask) => source.endpointKey === destination.endpointKey;
const takesParts = ({ destination }: CopyTask) => Boolean(destination.store.capabilities.parts);
/** An earlier attempt of this method left an upload in the ledger: it is resumed, whatever the size. */
const resumes = (item: CopyItem, method: 'parts' | 'server-copy') =>
  item.method === method && Boolean(item.uploadId);
/** Azure's copy from URL runs inside Azure for any size; S3's CopyObject stops at serverCopyMax. */
const oneServerCall = (task: CopyTask, settings: CopySettings) =>
  task.destination.store.provider === 'azure' || task.item.size <= settings.serverCopyMax;

/**
 * How an object is copied: the first row whose `when` holds, in this order. A row whose store turns out not to
 * offer its call (null: s3rver's 501 to UploadPartCopy, a store without server-side copy) hands the object on to
 * the next row that holds. The transfers README's "Copy methods" table is this one, row for row.
 */
const COPY_METHODS: readonly CopyMethodRow[] = [
  {
    method: 'parallel parts, resumed',
    when: (task) => takesParts(task) && resumes(task.item, 'parts'),
    copy: copyInParts,
  },
  {
    method: 'server-side copy in parts',
    when: (task, settings) =>
      sameEndpoint(task) &&
      takesParts(task) &&
      (resumes(task.item, 'server-copy') || !oneServerCall(task, settings)),
    copy: serverCopyInParts,
  },
  {
    method: 'server-side copy in one call',
    when: (task, settings) =>
      sameEndpoint(task) && !resumes(task.item, 'server-copy') && oneServerCall(task, settings),
    copy: serverCopy,
  },
  {
    method: 'single request',
    when: ({ item }, settings) => item.size <= settings.singleMax,
    copy: copySingle,
  },
  // Streamed part by part (no part buffers) when copied in the source's own parts to a store that answers part
  // MD5s (S3); buffered, with the whole object hashed in order, otherwise (methods/parallel-parts.ts).
  { method: 'parallel parts', when: takesParts, copy: copyInParts },
  { method: 'streamed', when: () => true, copy: copyStream },
];

/**
 * Copies one object and verifies it: the destination holds exactly the source's bytes (size always; MD5 where
 * the source exposes a comparable one; otherwise a SHA-256 computed while streaming, kept in the destination's
 * `cumulo-sha256` metadata). The executor's `Copier`; services.ts builds one per process with its pools.
 */
export class ObjectCopier {
  readonly #pools: CopierPools;
  readonly #options: CopyOptions;

  constructor({ memory, gates, ...options }: CopierPools & CopyOptions) {
    this.#pools = { memory, gates };
    this.#options = options;
  }

  /**
   * Resolves only for a verified copy; rejects with CopyError, or with the task signal's reason when aborted. An
   * aborted or failed parts copy leaves its upload and ledger in place for the next attempt to resume from (the
   * executor may call abandonCopy instead); `task.item` is kept in step with the ledger (method, uploadId,
   * partSize).
   */
  async copyObject(task: CopyTask): Promise<CopyResult> {
    const settings = this.#settingsOf(task);
    try {
      task.signal.throwIfAborted();
      for (const row of COPY_METHODS) {
        if (!row.when(task, settings)) continue;
        const copied = await row.copy(task, settings);
        if (copied) return copied;
      }
      // The last row streams any object to any store and never answers null.
      throw new Error('no copy method took the object');
    } catch (error) {
      throw failure(task, error);
    }
  }

  /**
   * Gives up on an interrupted copy: aborts the destination's multipart upload (its parts are billed storage
   * until then) and clears the ledger. For cancel, or when the executor decides not to resume.
   */
  async abandonCopy(task: CopyTask): Promise<void> {
    const { item, destination } = task;
    const parts = destination.store.capabilities.parts;
    if (parts && item.uploadId) {
      await parts.abort({ bucket: destination.bucket, key: item.destinationKey, uploadId: item.uploadId });
    }
    await forget(task);
  }

  #settingsOf(task: CopyTask): CopySettings {
    const { destination } = task;
    const options = this.#options;
    return {
      concurrency: Math.max(1, options.partConcurrency ?? DEFAULT_PART_CONCURRENCY),
      partSize: options.partSize,
      singleMax: options.singleMax ?? SINGLE_REQUEST_MAX,
      serverCopyMax: options.serverCopyMax ?? PART_LIMITS.s3.maxPart,
      gate: this.#pools.gates.gateFor(destination.endpointKey, destination.bucket),
      memory: this.#pools.memory,
      streamParts: options.streamParts ?? 'mirrored',
    };
  }
}

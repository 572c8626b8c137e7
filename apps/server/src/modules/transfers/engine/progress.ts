import {
  AVERAGE_SPEED_CAP_BYTES,
  TRANSFER_EVENTS,
  TRANSFER_PROGRESS_INTERVAL_MS,
  type MigrationFile,
  type MigrationStatus,
} from '@cumulo/contract';
import type { Logger } from '../../../logger.ts';
import type { BusMessage } from '../../../realtime/events.ts';
import type { TransfersRepo } from '../transfers.repo.ts';
import type { TransferQueueRepo } from '../transfer-queue.repo.ts';
import { toMigrationFile, toMigrationProgress } from '../transfers.views.ts';
import { outsideContext } from '../../../runtime/request-context.ts';

/**
 * The span the live rate (and so the ETA) is measured over. Bytes are counted when an object or a part has been
 * written, not as they are read: a paced 4 MiB object at 1 MiB/s shows nothing for four seconds, then 4 MiB at
 * once. Over one second the rate swung between 0 and several times the limit, and the ETA with it (issue 21).
 */
export const RATE_WINDOW_MS = 30_000;

/** One flush's reading of the batch's bytes. */
export interface BytesSample {
  at: number;
  bytes: number;
}

/**
 * Bytes per second over the samples of the last RATE_WINDOW_MS (the oldest kept is the last one at or before the
 * window's start, so the span covers it whole once the batch has run that long); drops the samples no longer
 * needed. 0 until two samples span some time.
 */
export function windowRate(samples: BytesSample[], now: number, bytes: number): number {
  samples.push({ at: now, bytes });
  while (samples.length > 2 && (samples[1]?.at ?? now) <= now - RATE_WINDOW_MS) samples.shift();
  const oldest = samples[0];
  if (!oldest || now <= oldest.at) return 0;
  return Math.max(0, ((bytes - oldest.bytes) * 1000) / (now - oldest.at));
}

/** NOTIFY payloads stop at 8000 bytes; the files map is cut to fit well under it. */
const PAYLOAD_BUDGET = 7000;
const MAX_FILES = 25;

interface FileState {
  sourceKey: string;
  size: number;
  bytes: number;
  startedAt: Date;
  finishedAt: Date | null;
  status: MigrationStatus;
  error: string | null;
}

interface BatchState {
  organizationId: string;
  jobs: number;
  files: Map<number, FileState>;
  dirty: boolean;
  /** Bytes of the whole batch (every worker) at recent flushes, for the current rate (windowRate). */
  samples: BytesSample[];
}

/**
 * One worker process's view of the batches it copies: bytes arrive through `onBytes` (cheap, in memory) and are
 * flushed at most once a second per batch: the in-flight items' bytes to their rows, the average speed to the
 * batch, and a `transfer.progress` event built from the database's totals (so it counts every worker's bytes).
 */
export class TransferProgress {
  readonly #batches = new Map<string, BatchState>();
  #timer: NodeJS.Timeout | null = null;
  #flushing = false;

  constructor(
    private readonly repo: TransfersRepo,
    private readonly itemQueue: TransferQueueRepo,
    private readonly publish: (message: BusMessage) => Promise<void>,
    private readonly log: Logger,
  ) {}

  track(batchId: string, organizationId: string) {
    const state = this.#batches.get(batchId);
    if (state) state.jobs += 1;
    else {
      this.#batches.set(batchId, {
        organizationId,
        jobs: 1,
        files: new Map(),
        dirty: true,
        samples: [],
      });
    }
    // Shared by every batch this process copies: not in the context of the job that happened to start it.
    this.#timer ??= outsideContext(() => setInterval(() => void this.flush(), TRANSFER_PROGRESS_INTERVAL_MS));
  }

  /**
   * A job of the batch ended. Whatever it changed is flushed now, whether or not the batch's other jobs in this
   * process still run: the job that ends last may finalize the batch right after, and its final progress must be
   * published before the batch's end, not a second later by the timer (or by a sibling job still winding down).
   */
  async untrack(batchId: string) {
    const state = this.#batches.get(batchId);
    if (!state) return;
    state.jobs -= 1;
    if (state.dirty || state.jobs === 0) {
      await this.#flushBatch(batchId, state).catch((error: unknown) =>
        this.log.warn({ err: error, batchId }, 'transfer progress flush failed'),
      );
    }
    if (state.jobs > 0) return;
    this.#batches.delete(batchId);
    if (this.#batches.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  fileStarted(batchId: string, itemId: number, sourceKey: string, size: number, bytesAlready: number) {
    const state = this.#batches.get(batchId);
    if (!state) return;
    state.files.set(itemId, {
      sourceKey,
      size,
      bytes: bytesAlready,
      startedAt: new Date(),
      finishedAt: null,
      status: 'Processing',
      error: null,
    });
    state.dirty = true;
  }

  onBytes(batchId: string, itemId: number, delta: number) {
    const state = this.#batches.get(batchId);
    const file = state?.files.get(itemId);
    if (!state || !file) return;
    file.bytes += delta;
    state.dirty = true;
  }

  fileEnded(batchId: string, itemId: number, status: MigrationStatus, error: string | null = null) {
    const state = this.#batches.get(batchId);
    const file = state?.files.get(itemId);
    if (!state || !file) return;
    file.status = status;
    file.error = error;
    file.finishedAt = new Date();
    if (status === 'Succeeded') file.bytes = file.size;
    state.dirty = true;
  }

  async flush() {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      for (const [batchId, state] of this.#batches) {
        if (!state.dirty) continue;
        await this.#flushBatch(batchId, state).catch((error: unknown) =>
          this.log.warn({ err: error, batchId }, 'transfer progress flush failed'),
        );
      }
    } finally {
      this.#flushing = false;
    }
  }

  async #flushBatch(batchId: string, state: BatchState) {
    state.dirty = false;
    const inFlight = [...state.files].filter(([, file]) => file.finishedAt === null);
    await this.itemQueue.recordBytes(inFlight.map(([itemId, file]) => ({ itemId, bytes: file.bytes })));
    const batch = await this.repo.findForEngine(batchId);
    if (!batch) return;
    const now = Date.now();
    const rate = windowRate(state.samples, now, batch.bytesDone);
    if (batch.startedAt) {
      const seconds = Math.max(1, (now - batch.startedAt.getTime()) / 1000);
      const average = Math.min(AVERAGE_SPEED_CAP_BYTES, batch.bytesDone / seconds);
      await this.repo.setAverageSpeed(batchId, average);
      batch.averageSpeed = Math.round(average);
    }
    const files = this.#files(batch, state, rate);
    // Files that ended were reported once; forget them so the map stays small.
    for (const [itemId, file] of state.files) if (file.finishedAt) state.files.delete(itemId);
    await this.publish({
      organizationId: state.organizationId,
      service: 'transfers',
      type: TRANSFER_EVENTS.progress,
      data: toMigrationProgress(batch, rate, files),
    });
  }

  #files(
    batch: Parameters<typeof toMigrationFile>[0],
    state: BatchState,
    rate: number,
  ): Record<string, MigrationFile> {
    const running = [...state.files].filter(([, file]) => file.finishedAt === null).length;
    const files: Record<string, MigrationFile> = {};
    let budget = PAYLOAD_BUDGET;
    for (const [itemId, file] of [...state.files].slice(0, MAX_FILES)) {
      const entry = toMigrationFile(
        batch,
        {
          sourceKey: file.sourceKey,
          size: file.size,
          bytesDone: file.bytes,
          startedAt: file.startedAt,
          finishedAt: file.finishedAt,
          error: file.error,
          status: file.status,
        },
        file.finishedAt || running === 0 ? 0 : rate / running,
      );
      budget -= JSON.stringify(entry).length + 16;
      if (budget < 0) break;
      files[String(itemId)] = entry;
    }
    return files;
  }

  stop() {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}

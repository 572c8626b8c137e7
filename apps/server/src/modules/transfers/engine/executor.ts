import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { BATCH_STATUS, transferMessages } from '@cumulo/contract';
import { StorageError } from '@cumulo/storage';
import type { Logger } from '../../../logger.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../../cloud-accounts/store-registry.ts';
import { QuotaExceeded } from '../../billing/entitlements.ts';
import { quotaErrorText } from '../transfer-quota.ts';
import type { BatchRow, BatchView, TransfersRepo } from '../transfers.repo.ts';
import type { ClaimedItem, ItemOutcome, TransferQueueRepo } from '../transfer-queue.repo.ts';
import type { TransferPlanningRepo } from '../transfer-planning.repo.ts';
import { CopyError, type CopyEndpoint, type CopyResult, type CopyTask } from './copy-task.ts';
import { removeEmptyFolders } from './empty-folders.ts';
import { BatchBandwidth } from './bandwidth.ts';
import { sameContent } from './keys.ts';
import { SizeLimitExceeded, planBatch, type ReservePlanned } from './planner.ts';
import { DEFAULT_OUTAGE_SECONDS, OutageBackoff, probeEndpoints, storeTrouble } from './outage.ts';
import { ItemSettler } from './settler.ts';
import type { TransferProgress } from './progress.ts';
import type { TransferLabels, TransferMetrics } from '../../metrics/metrics.ts';

export interface ExecutorOptions {
  leaseSeconds: number;
  /** Objects copied at once by one job. */
  objectConcurrency: number;
  /** Items claimed per round trip. */
  claimChunk: number;
  /** Attempts of one item on a retryable error before it is marked failed. */
  attempts: number;
  /** Claims of one item whose worker stopped each time (its lease ran out) before it is failed (default 5). */
  maxClaims?: number;
  /** Jobs queued per batch (`TRANSFER_JOBS_PER_BATCH`): each gets an even share of the batch's bandwidth limit. */
  jobsPerBatch?: number;
  /** Seconds a batch waits for a store that cannot be reached before it fails (`TRANSFER_OUTAGE_SECONDS`). */
  outageSeconds?: number;
  /**
   * Whether this job (its pg-boss id) of this organisation should hand its slot to another organisation waiting for
   * one (README "Fair queues"). Asked every few seconds once the job has had its turn; absent: jobs never yield.
   */
  yieldTo?: (organizationId: string, jobId: string) => Promise<boolean>;
  /** Reserves the c2c quota of each planned chunk (README "Quota"); absent: nothing is metered. */
  reservePlanned?: ReservePlanned;
  /** The process's transfer counters (modules/metrics), by source and destination provider. */
  metrics?: TransferMetrics;
}

/**
 * What one run of a batch job did; `yielded`: it stopped early for another organisation, `stopped`: its process is
 * shutting down (TransferExecutor.shutdown); either way the batch is unfinished and its job is to be queued again.
 */
export interface RunResult {
  copied: number;
  failed: number;
  yielded?: boolean;
  stopped?: boolean;
}

export const DEFAULT_MAX_CLAIMS = 5;

/**
 * What the executor tells the rest of the server about a batch (built in worker-services.ts), two things kept
 * apart: `publishBatch` is an event for the screens, sent on a change while the batch runs (its planning ended);
 * `onBatchFinished` is the batch's end (Completed, Failed or Canceled), run once per batch by whoever ended it
 * (README "When a batch ends").
 */
export interface BatchHooks {
  publishBatch(batchId: string): Promise<void>;
  onBatchFinished(batchId: string): Promise<void>;
}

/** The per-object copier (engine/object-copier.ts), injectable for tests of the executor alone. */
export interface Copier {
  copyObject(task: CopyTask): Promise<CopyResult>;
  abandonCopy(task: CopyTask): Promise<void>;
}

export const transferErrors = {
  sourceAccountGone: transferMessages.sourceAccountGone,
  destinationAccountGone: transferMessages.destinationAccountGone,
  unknown: 'The object could not be copied.',
  planningFailed: (cause: string) => `The objects to copy could not be listed: ${cause}`,
  workerStopped: (times: number) =>
    `The copy of this object was interrupted ${times} times: the worker copying it stopped each time. It was set aside so that the rest of the transfer could finish.`,
};

/** Tries of a planning that cannot list the source or destination, 2 s, 4 s, 8 s apart. */
const PLAN_ATTEMPTS = 4;
const PLAN_RETRY_MS = 2000;

/** How often a job with nothing to copy looks again at a held batch (a sync cycle's diff still writing items). */
const HELD_POLL_MS = 250;

/** A job copies at least this long before it may yield its slot, and then asks every few seconds. */
const MIN_TURN_MS = 5000;
const YIELD_CHECK_MS = 2000;

/** The longest a paused job sleeps before it looks at the batch again (a cancel ends the pause). */
const PAUSE_STEP_MS = 1000;

const CANCELED = 'transfer canceled';
const LEASE_LOST = 'lease lost';
const SHUTTING_DOWN = 'worker shutting down';

/** Settles one item (ItemSettler.settle), freeing its copy slot first. */
type ItemSettle = ItemSettler['settle'];

/** One batch job copying in this process: what shutdown waits for, and how it stops its copies. */
interface ActiveRun {
  finished: Promise<unknown>;
  abortCopies(): void;
}
/** Set by a run once it copies: aborts its copies in flight (they hand their items back). */
interface CopyControl {
  abortCopies(): void;
}

/** Same endpoint and credentials on both sides is what makes a server-side copy possible. */
export function endpointKeyOf(account: CloudAccountRow, stores: StoreRegistry): string {
  const config = stores.configOf(account);
  const identity =
    'accessKeyId' in config ? config.accessKeyId : 'accountName' in config ? config.accountName : account.id;
  return [config.provider, config.endpoint ?? account.serviceUrl ?? account.region ?? '', identity].join('|');
}

function retryable(error: unknown): boolean {
  if (error instanceof CopyError) return error.retryable;
  if (error instanceof StorageError) return ['Network', 'Throttled', 'Unknown'].includes(error.code);
  return true;
}

/**
 * The `transfers.batch` job: plans the batch if it is still planning, then claims items in chunks and copies them
 * concurrently until none is left, renewing its leases as it goes. A `held` batch (a sync cycle's diff is still
 * writing its items) is never planned: its items are copied as they come, and with nothing to copy the job waits
 * for more instead of finalizing, until the cycle releases it. Any number of these run on one batch, in any
 * number of processes; each may die at any point (see README "Guarantees").
 */
export class TransferExecutor {
  readonly #bandwidth: BatchBandwidth;
  /** Set by shutdown: nothing new is claimed or planned, and runs end as soon as their copies do. */
  #stopping = false;
  readonly #active = new Set<ActiveRun>();

  constructor(
    private readonly repo: TransfersRepo,
    private readonly itemQueue: TransferQueueRepo,
    private readonly planning: TransferPlanningRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly progress: TransferProgress,
    private readonly hooks: BatchHooks,
    private readonly copier: Copier,
    private readonly options: ExecutorOptions,
    private readonly log: Logger,
  ) {
    this.#bandwidth = new BatchBandwidth(options.jobsPerBatch ?? 1);
  }

  /** `jobId`: the pg-boss job running it, which may yield its slot to another organisation (none: it never does). */
  async run(batchId: string, jobId?: string): Promise<RunResult> {
    if (this.#stopping) return { copied: 0, failed: 0, stopped: true };
    const control: CopyControl = { abortCopies: () => undefined };
    const finished = this.#run(batchId, jobId, control);
    const active: ActiveRun = {
      finished: finished.catch(() => undefined),
      abortCopies: () => control.abortCopies(),
    };
    this.#active.add(active);
    try {
      return await finished;
    } finally {
      this.#active.delete(active);
    }
  }

  async #run(batchId: string, jobId: string | undefined, control: CopyControl): Promise<RunResult> {
    const batch = await this.repo.findForEngine(batchId);
    if (!batch) return { copied: 0, failed: 0 };
    if (batch.status === BATCH_STATUS.canceling) {
      await this.settleCancel(batchId);
      return { copied: 0, failed: 0 };
    }
    if (batch.status !== BATCH_STATUS.ongoing) return { copied: 0, failed: 0 };

    const endpoints = await this.#endpoints(batch);
    if (!endpoints) return { copied: 0, failed: 0 };
    this.progress.track(batch.id, batch.organizationId);
    let counts: RunResult = { copied: 0, failed: 0 };
    try {
      if (!(await this.#plan(batch, endpoints)))
        return this.#stopping ? { ...counts, stopped: true } : counts;
      await this.repo.markStarted(batch.id);
      counts = await this.#copyAll(batch, endpoints, jobId, control);
    } finally {
      await this.progress.untrack(batch.id);
    }
    const status = await this.repo.statusOf(batch.id);
    if ((counts.yielded || counts.stopped) && status === BATCH_STATUS.ongoing) return counts;
    if (status === BATCH_STATUS.canceling) await this.settleCancel(batch.id);
    else {
      // A move about to complete removes the folders it emptied first, so that Completed finds them gone. Every
      // job reaching the end may do it (deleting what is already gone is harmless); finalize happens once.
      if (batch.operation === 'move' && (await this.repo.wouldComplete(batch.id)))
        await this.#removeMovedFolders(batch, endpoints.source);
      if (await this.repo.finalize(batch.id)) await this.hooks.onBatchFinished(batch.id);
    }
    return counts;
  }

  /**
   * Drains this process's copies (SIGTERM, main.ts): nothing new is claimed from now on; the copies in flight get
   * `graceMs` to finish, then are aborted, and every item still held (in flight or claimed and waiting) is handed
   * back as pending at once (TransferQueueRepo.release: its upload and parts kept for the next worker to resume), so
   * another worker claims it now instead of when its lease would have run out. Resolves once every run ended.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.#stopping = true;
    const runs = [...this.#active];
    if (runs.length === 0) return;
    const finished = Promise.all(runs.map((run) => run.finished));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<'grace'>((resolve) => {
      timer = setTimeout(() => resolve('grace'), graceMs);
    });
    const first = await Promise.race([finished, grace]);
    clearTimeout(timer);
    if (first === 'grace') {
      this.log.info(
        { runs: runs.length },
        'transfer copies still running after the grace period: handing them back',
      );
      for (const run of runs) run.abortCopies();
    }
    await finished;
  }

  /**
   * A completed move leaves no folder behind in its source: the placeholders of the folders it moved go too
   * (engine/empty-folders.ts). A store that refuses leaves them, in the log; the move still completes.
   */
  async #removeMovedFolders(batch: BatchRow, source: CopyEndpoint): Promise<void> {
    const roots = batch.sourceSelection
      ? batch.sourceSelection.filter((entry) => entry.endsWith('/'))
      : [batch.sourcePath];
    if (roots.length === 0) return;
    try {
      const removed = await removeEmptyFolders(source.store, batch.sourceBucket, roots);
      if (removed > 0) this.log.info({ batchId: batch.id, removed }, 'moved folders removed from the source');
    } catch (error) {
      this.log.warn({ err: error, batchId: batch.id }, 'moved folders could not be removed from the source');
    }
  }

  /** Cancels what nobody works on and ends the batch when no item is in flight any more. */
  async settleCancel(batchId: string) {
    await this.repo.cancelIdleItems(batchId);
    if (await this.repo.finalize(batchId)) await this.hooks.onBatchFinished(batchId);
  }

  async #endpoints(
    batch: BatchView,
  ): Promise<{ source: CopyEndpoint; destination: CopyEndpoint; labels: TransferLabels } | null> {
    const [source, destination] = await Promise.all([
      batch.sourceCloudAccountId
        ? this.accounts.find(batch.organizationId, batch.sourceCloudAccountId)
        : null,
      batch.destinationCloudAccountId
        ? this.accounts.find(batch.organizationId, batch.destinationCloudAccountId)
        : null,
    ]);
    if (!source || !destination) {
      const error = source ? transferErrors.destinationAccountGone : transferErrors.sourceAccountGone;
      if (await this.repo.failBatch(batch.id, error)) await this.hooks.onBatchFinished(batch.id);
      return null;
    }
    const endpoint = async (account: CloudAccountRow, bucket: string): Promise<CopyEndpoint> => ({
      store: await this.stores.storeFor(account),
      accountId: account.id,
      bucket,
      endpointKey: endpointKeyOf(account, this.stores),
    });
    return {
      source: await endpoint(source, batch.sourceBucket),
      destination: await endpoint(destination, batch.destinationBucket),
      labels: {
        source: this.stores.configOf(source).provider,
        destination: this.stores.configOf(destination).provider,
      },
    };
  }

  /**
   * One planner per batch at a time (an advisory lock held by a connection, so a dead planner's lock goes with
   * its connection); the batch's other jobs wait for planning to end, then copy. Answers false when the batch
   * stopped being Ongoing.
   */
  async #plan(batch: BatchView, endpoints: { source: CopyEndpoint; destination: CopyEndpoint }) {
    let failures = 0;
    for (;;) {
      // A process shutting down leaves the planning to another worker (it resumes after the plan cursor).
      if (this.#stopping) return false;
      const fresh = await this.repo.findForEngine(batch.id);
      if (!fresh || fresh.status !== BATCH_STATUS.ongoing) return false;
      if (fresh.phase !== 'planning') return true;
      const attempt = await this.planning.withPlanningLock(batch.id, async () => {
        const current = await this.repo.findForEngine(batch.id);
        if (!current || current.status !== BATCH_STATUS.ongoing || current.phase !== 'planning') return;
        await this.repo.markStarted(batch.id);
        try {
          await planBatch(
            this.planning,
            current,
            {
              source: endpoints.source.store,
              destination: endpoints.destination.store,
              sameEndpoint: endpoints.source.endpointKey === endpoints.destination.endpointKey,
            },
            this.options.reservePlanned,
          );
        } catch (error) {
          // Out of quota: nothing of the batch has been copied yet (copies start once planning ends), and no
          // retry can pass; the batch fails with the spec's words, and the engine's hook settles its reservation.
          if (error instanceof QuotaExceeded) {
            if (await this.repo.failBatch(batch.id, quotaErrorText(error)))
              await this.hooks.onBatchFinished(batch.id);
            return;
          }
          // Past the requester's maximum transfer size: the same, in the permission's words.
          if (error instanceof SizeLimitExceeded) {
            if (await this.repo.failBatch(batch.id, error.message))
              await this.hooks.onBatchFinished(batch.id);
            return;
          }
          // A store that does not answer gets a few more tries (each already retried by the SDK), resuming after
          // the plan cursor; then the batch fails in words instead of being re-queued by the sweep for ever.
          failures += 1;
          if (retryable(error) && failures < PLAN_ATTEMPTS) {
            this.log.warn({ err: error, batchId: batch.id, failures }, 'planning failed, trying again');
            return;
          }
          const message = error instanceof Error ? error.message : String(error);
          if (await this.repo.failBatch(batch.id, transferErrors.planningFailed(message)))
            await this.hooks.onBatchFinished(batch.id);
          return;
        }
        // Planned: its totals are known, and the screens show them. The batch runs on: an event, not its end.
        await this.hooks.publishBatch(batch.id);
      });
      if (attempt.locked && failures > 0) await sleep(PLAN_RETRY_MS * 2 ** (failures - 1));
      if (!attempt.locked) await sleep(1000);
    }
  }

  async #copyAll(
    batch: BatchView,
    endpoints: { source: CopyEndpoint; destination: CopyEndpoint; labels: TransferLabels },
    jobId: string | undefined,
    control: CopyControl,
  ): Promise<RunResult> {
    const { leaseSeconds, objectConcurrency, claimChunk } = this.options;
    const maxClaims = this.options.maxClaims ?? DEFAULT_MAX_CLAIMS;
    const owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const ledger = this.itemQueue.ledger(owner);
    const queue: ClaimedItem[] = [];
    // Every item held from its start to its settle (its lease renewed, awaited before the job ends)…
    const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
    // …of which `copying` still copy: a slot is free once an object is verified, not once it is settled, so that
    // the settler may gather the items ending together into one statement without holding copies back.
    let copying = 0;
    const settler = new ItemSettler(this.itemQueue, owner, () => copying);
    // Wakes the loop below when a slot frees or an item is settled.
    let wake: (() => void) | null = null;
    const wakeUp = () => {
      wake?.();
      wake = null;
    };
    // The last claim found fewer items than it asked for: nothing is claimed again until the copies in flight end
    // (else every object ending near the batch's end would cost an empty claim).
    let drained = false;
    control.abortCopies = () => {
      for (const copy of running.values()) copy.controller.abort(SHUTTING_DOWN);
    };
    const counts = { copied: 0, failed: 0 };
    const outage = new OutageBackoff(
      (this.options.outageSeconds ?? DEFAULT_OUTAGE_SECONDS) * 1000,
      Math.max(3, 2 * objectConcurrency),
    );
    let canceled = false;
    // Set once another organisation waits for a slot this one holds more of: the job copies nothing new, lets what
    // is in flight finish, hands its claimed items back and ends, and its handler queues it again behind the others.
    let yielding = false;
    // Nothing claimable in a held batch is not the end: the diff may write more items, and only the release (phase
    // `copying`) lets anyone finalize (TransfersRepo.finalize refuses an Ongoing batch in any other phase).
    let held = batch.phase === 'held';
    const bucket = this.#bandwidth.acquire(batch.id, batch.bandwidthLimit);
    const pace = bucket ? { pace: (bytes: number, signal: AbortSignal) => bucket.take(bytes, signal) } : {};

    const renew = setInterval(
      () =>
        void (async () => {
          const asked = new Set([...queue.map((item) => item.id), ...running.keys()]);
          const held = await this.itemQueue.renewLeases([...asked], owner, leaseSeconds);
          // Only what this renewal asked for can be lost: a chunk claimed while it was on its way is held afresh.
          const lost = (id: number) => asked.has(id) && !held.has(id);
          for (const [id, copy] of running) if (lost(id)) copy.controller.abort(LEASE_LOST);
          for (let i = queue.length - 1; i >= 0; i--) if (lost(queue[i]?.id ?? -1)) queue.splice(i, 1);
        })().catch((error: unknown) => this.log.warn({ err: error }, 'transfer lease renewal failed')),
      Math.max(500, (leaseSeconds * 1000) / 3),
    );
    const watchCancel = setInterval(
      () =>
        void this.repo
          .statusOf(batch.id)
          .then((status) => {
            if (status === BATCH_STATUS.ongoing) return;
            canceled = true;
            for (const copy of running.values()) copy.controller.abort(CANCELED);
          })
          .catch((error: unknown) => this.log.warn({ err: error }, 'transfer cancel check failed')),
      1000,
    );
    const { yieldTo } = this.options;
    const turnStarted = Date.now();
    const watchTurn = setInterval(
      () =>
        void (async () => {
          if (!yieldTo || !jobId || yielding || Date.now() - turnStarted < MIN_TURN_MS) return;
          yielding = await yieldTo(batch.organizationId, jobId);
        })().catch((error: unknown) => this.log.warn({ err: error }, 'transfer turn check failed')),
      YIELD_CHECK_MS,
    );

    try {
      for (;;) {
        while (!canceled && !yielding && !this.#stopping && !outage.holding && copying < objectConcurrency) {
          if (queue.length === 0) {
            if (drained && running.size > 0 && !held) break;
            const claimed = await this.itemQueue.claim(batch.id, owner, leaseSeconds, claimChunk, maxClaims);
            queue.push(...claimed);
            drained = claimed.length < claimChunk;
            // Items whose workers stopped on them too often are never claimed again: failed once the batch drains.
            if (drained)
              await this.itemQueue.failAbandoned(
                batch.id,
                maxClaims,
                transferErrors.workerStopped(maxClaims),
              );
          }
          const item = queue.shift();
          if (!item) break;
          const controller = new AbortController();
          const task: CopyTask = {
            item,
            source: endpoints.source,
            destination: endpoints.destination,
            ledger,
            signal: controller.signal,
            onBytes: (delta) => this.progress.onBytes(batch.id, item.id, delta),
            ...pace,
          };
          copying += 1;
          let copied = false;
          const endCopy = () => {
            if (copied) return;
            copied = true;
            copying -= 1;
            wakeUp();
          };
          const settle: ItemSettle = (itemId, outcome) => {
            endCopy();
            return settler.settle(itemId, outcome);
          };
          const done = this.#copyItem(batch, task, item, owner, settle, outage, endpoints.labels)
            .then((outcome) => {
              if (outcome === 'done') counts.copied += 1;
              if (outcome === 'failed') counts.failed += 1;
            })
            .catch((error: unknown) =>
              this.log.error({ err: error, itemId: item.id }, 'transfer item crashed'),
            )
            .finally(() => {
              running.delete(item.id);
              endCopy();
              wakeUp();
            });
          running.set(item.id, { controller, done });
        }
        if (running.size === 0 && (yielding || this.#stopping)) break;
        if (running.size === 0 && !canceled && outage.spent) {
          await this.#giveUp(batch.id, outage);
          break;
        }
        if (running.size === 0 && !canceled && outage.holding) {
          // Paused for an unreachable store: the claimed items keep their leases (renewed) and wait with the job.
          await sleep(Math.min(PAUSE_STEP_MS, outage.pauseLeftMs));
          continue;
        }
        if (running.size === 0) {
          if (canceled || !held) break;
          held = await this.#stillHeld(batch.id);
          if (held) await sleep(HELD_POLL_MS);
          // Claim once more either way: items written, or the batch released, since the last claim.
          continue;
        }
        const woken = new Promise<void>((resolve) => (wake = resolve));
        // While held, look for new items now and then even with copies in flight.
        await (held ? Promise.race([woken, sleep(HELD_POLL_MS)]) : woken);
      }
    } finally {
      clearInterval(renew);
      clearInterval(watchCancel);
      clearInterval(watchTurn);
      await Promise.all([...running.values()].map((copy) => copy.done));
      this.#bandwidth.release(batch.id);
      const left = queue.splice(0);
      // Claimed but not started: handed back as never claimed when the job steps aside or its process stops.
      if ((yielding || this.#stopping) && !canceled)
        for (const item of left) await this.itemQueue.release(item.id, owner);
      else await Promise.all(left.map((item) => settler.settle(item.id, { status: 'canceled' })));
    }
    if (canceled) return counts;
    if (yielding) return { ...counts, yielded: true };
    return this.#stopping ? { ...counts, stopped: true } : counts;
  }

  /** Whether the batch is still Ongoing and held (not released, canceled or gone). */
  async #stillHeld(batchId: string): Promise<boolean> {
    const state = await this.repo.engineState(batchId);
    return state?.status === BATCH_STATUS.ongoing && state.phase === 'held';
  }

  async #copyItem(
    batch: BatchView,
    task: CopyTask,
    item: ClaimedItem,
    owner: string,
    settle: ItemSettle,
    outage: OutageBackoff,
    labels: TransferLabels,
  ): Promise<'done' | 'skipped' | 'failed' | 'canceled' | 'lost' | 'paused' | 'released'> {
    this.progress.fileStarted(batch.id, item.id, item.sourceKey, item.size, item.partsDone);
    const move = batch.operation === 'move';
    try {
      if (move && item.present && (await this.#stillPresent(task))) {
        await this.#deleteSource(task);
        outage.succeeded();
        return await this.#settleDone(batch.id, item, settle, { status: 'skipped', sourceDeleted: true });
      }
      // A move whose worker died after verifying the copy only has the source delete left to do.
      const verifiedBefore = move && (item.md5 !== null || item.sha256 !== null);
      let result: CopyResult | null = null;
      if (!verifiedBefore) {
        result = await this.#copyWithRetries(task, labels);
        if (move && !(await this.itemQueue.markVerified(item.id, owner, result))) return 'lost';
      }
      if (move) await this.#deleteSource(task);
      outage.succeeded();
      const settled = await this.#settleDone(batch.id, item, settle, {
        status: 'done',
        method: result?.method ?? null,
        md5: result?.md5 ?? null,
        sha256: result?.sha256 ?? null,
        sourceDeleted: move,
      });
      // Counted once recorded, by the worker whose copy was recorded: an object is counted once.
      if (settled === 'done' && result) {
        this.options.metrics?.transferObjects.inc(labels);
        this.options.metrics?.transferBytes.inc(labels, item.size);
      }
      return settled;
    } catch (error) {
      if (task.signal.aborted && task.signal.reason === LEASE_LOST) return 'lost';
      if (task.signal.aborted && task.signal.reason === SHUTTING_DOWN) {
        // Back to pending at once, its upload and parts kept: the next worker resumes it (see shutdown).
        await this.itemQueue.release(item.id, owner);
        return 'released';
      }
      if (task.signal.aborted) {
        await this.#abandon(task);
        await settle(item.id, { status: 'canceled' });
        this.progress.fileEnded(batch.id, item.id, 'Canceled');
        return 'canceled';
      }
      const message =
        error instanceof CopyError || error instanceof StorageError ? error.message : transferErrors.unknown;
      if (storeTrouble(error) && (await this.#waitsForStore(batch.id, task, outage, message))) {
        // The object waits for the store with its job: back to pending (its upload kept, its claim not counted as
        // a worker stopping on it), claimed again when the pause ends, or failed with the rest if it never does.
        await this.itemQueue.release(item.id, owner);
        return 'paused';
      }
      if (message === transferErrors.unknown)
        this.log.error({ err: error, itemId: item.id }, 'transfer item failed');
      // A failed item is copied again by a retry batch (new rows, fresh uploads): its parts would only cost.
      await this.#abandon(task);
      await settle(item.id, { status: 'failed', error: message });
      this.options.metrics?.transferErrors.inc(labels);
      this.progress.fileEnded(batch.id, item.id, 'Failed', message);
      return 'failed';
    }
  }

  /**
   * Whether a copy that failed on a store in trouble is part of an outage (engine/outage.ts): a pause is under
   * way, or a probe finds a store not answering, or copies keep failing so in a row.
   */
  async #waitsForStore(
    batchId: string,
    task: CopyTask,
    outage: OutageBackoff,
    cause: string,
  ): Promise<boolean> {
    const probed = outage.pausing
      ? outage.outage
      : await probeEndpoints({ source: task.source, destination: task.destination });
    const waits = outage.failed(probed, cause);
    if (waits && !outage.spent)
      this.log.warn(
        { batchId, side: outage.outage?.side, pauseMs: outage.pauseLeftMs },
        'a store of the transfer cannot be reached: pausing',
      );
    return waits;
  }

  /**
   * The store stayed unreachable past the budget: every object left fails with the store's words, the batch keeps
   * a readable error (the history and Transfer Status show it; a bell notice tells its owner, see
   * TransfersService.noticeFailure), and finalize ends it Failed. Retry Failed Files copies them once it is back.
   */
  async #giveUp(batchId: string, outage: OutageBackoff) {
    const seen = outage.outage;
    if (!seen) return;
    const error = transferMessages.storeUnreachable(seen.side, outage.waitedSeconds, seen.cause);
    const failed = await this.itemQueue.failUnreachable(batchId, seen.cause, error);
    this.log.warn(
      { batchId, side: seen.side, failed },
      'a store of the transfer stayed unreachable: batch failed',
    );
  }

  /**
   * Records a verified copy, or a move's object found already at the destination whose source is deleted. When the
   * database does not take the record (connection lost, statement refused), the item did not fail: it keeps its
   * lease, which runs out, and whoever claims it next copies the object again (or, for a move whose checksums were
   * recorded or whose object was there already, finishes the source's delete), instead of listing as failed a
   * file that was in fact copied, or a source already deleted.
   */
  async #settleDone(
    batchId: string,
    item: ClaimedItem,
    settle: ItemSettle,
    outcome: Extract<ItemOutcome, { status: 'done' | 'skipped' }>,
  ): Promise<'done' | 'skipped' | 'lost'> {
    let counted: boolean;
    try {
      counted = await settle(item.id, outcome);
    } catch (error) {
      this.log.error(
        { err: error, itemId: item.id },
        'a finished item could not be recorded: it is handled again once its lease runs out',
      );
      return 'lost';
    }
    if (!counted) return 'lost';
    this.progress.fileEnded(batchId, item.id, 'Succeeded');
    return outcome.status;
  }

  async #copyWithRetries(task: CopyTask, labels: TransferLabels): Promise<CopyResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.copier.copyObject(task);
      } catch (error) {
        if (task.signal.aborted || !retryable(error) || attempt >= this.options.attempts) throw error;
        this.options.metrics?.transferRetries.inc(labels);
        this.log.debug(
          { err: error, itemId: task.item.id, attempt },
          'transfer item attempt failed, retrying',
        );
        await sleep(250 * 2 ** attempt, undefined, { signal: task.signal });
      }
    }
  }

  /**
   * Whether a move's object planned as already at the destination still is: the source as planned and the
   * destination holding its content (sameContent on both objects' own answers). Then only the source's delete is
   * left; otherwise it is copied like any other object. A source already gone while the destination holds the
   * object is a delete done by a worker that stopped before recording it.
   */
  async #stillPresent(task: CopyTask): Promise<boolean> {
    const { source, destination, item } = task;
    const [original, copy] = await Promise.all([
      source.store.stat(source.bucket, item.sourceKey),
      destination.store.stat(destination.bucket, item.destinationKey),
    ]);
    if (!copy) return false;
    if (!original) return true;
    const asPlanned =
      original.size === item.size && (item.sourceEtag === null || original.etag === item.sourceEtag);
    return asPlanned && sameContent(original, copy, source.endpointKey === destination.endpointKey);
  }

  async #deleteSource(task: CopyTask) {
    const { source, item } = task;
    const result = await source.store.deleteMany(source.bucket, [item.sourceKey]);
    const refused = result.errors[0];
    if (refused)
      throw new CopyError(`The copy verified, but the source could not be deleted: ${refused.message}`, true);
  }

  async #abandon(task: CopyTask) {
    await this.copier
      .abandonCopy(task)
      .catch((error: unknown) =>
        this.log.warn({ err: error, itemId: task.item.id }, 'could not abort the upload of a transfer item'),
      );
  }
}

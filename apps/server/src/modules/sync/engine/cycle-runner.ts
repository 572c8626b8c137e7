import { BATCH_STATUS, SYNC_CYCLE_STATUS, SYNC_DRY_RUN_SAMPLE, transferMessages } from '@cumulo/contract';
import { StorageError, type ObjectStore } from '@cumulo/storage';
import type { Logger } from '../../../logger.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../../cloud-accounts/store-registry.ts';
import { QuotaExceeded } from '../../billing/entitlements.ts';
import { endpointKeyOf } from '../../transfers/engine/executor.ts';
import { destinationFolder } from '../../transfers/engine/keys.ts';
import { quotaErrorText } from '../../transfers/transfer-quota.ts';
import type { DiffChunk, DroppedBatch, SyncCyclesRepo } from '../sync-cycles.repo.ts';
import type { SyncCycleRow, SyncJobRow } from '../sync.views.ts';
import { deleteCandidates } from './deletions.ts';
import { diffListings, ListingError, type DiffEntry, type DiffOptions, type StateObject } from './diff.ts';

/** Entries of the merge per transaction (each with the cursor): what a killed diff may have to list again. */
const DIFF_CHUNK = 1000;
/** Rows of the job's state read per query in a cycle that does not list the destination. */
const STATE_PAGE = 1000;

const syncErrors = {
  sourceAccountGone: 'The source cloud account of this sync was removed.',
  destinationAccountGone: 'The destination cloud account of this sync was removed.',
  batchGone: 'The transfer of this cycle was removed.',
  missingBucket: transferMessages.missingBucket,
  unreachable: (side: 'source' | 'destination', bucket: string, account: string, message: string) =>
    `The ${side} bucket ${bucket} in ${account} could not be read: ${message}`,
  copyFailed: (count: number) =>
    `${count} object${count === 1 ? '' : 's'} could not be copied: the failed files of the cycle's transfer say why.`,
  deleteFailed: (count: number, first: string | null) =>
    `${count} object${count === 1 ? '' : 's'} could not be deleted${first ? `: ${first}` : '.'}`,
};

/** A step that cannot succeed by trying again: the cycle ends Faulted with this message. */
class CycleFault extends Error {}

interface Endpoint {
  account: CloudAccountRow;
  store: ObjectStore;
  bucket: string;
}

/** What the runner tells the rest of the product; the service wires these to /rm, the transfer engine and mail. */
interface CycleRunnerHooks {
  publishCycle(cycle: SyncCycleRow): Promise<void>;
  /**
   * Queues the transfer jobs of a batch (when the diff first writes copies, and again at its release), and tells
   * the screens. Jobs beyond the first set are harmless: they find nothing to claim and finalize nothing early.
   */
  startBatch(batchId: string): Promise<void>;
  /** The cycle went waiting for an approval: bell and e-mail to the approvers. */
  approvalNeeded(cycle: SyncCycleRow, job: SyncJobRow): Promise<void>;
  /**
   * Reserves the c2c quota of a chunk's copies before they are written (transfers README "Quota"); throws
   * QuotaExceeded when that would pass the organisation's limit, which faults the cycle in the spec's words. A
   * batch no longer Ongoing holds nothing, and the chunk's write then finds it so.
   */
  reserveCopies(batch: { id: string; organizationId: string }, bytes: number): Promise<boolean>;
  /** A held batch was dropped: what it copied so far settles its reservation. */
  batchDropped(batch: DroppedBatch): Promise<void>;
}

export type StepOutcome = 'finished' | 'waiting' | 'busy';

const emptyChunk = (): DiffChunk => ({
  copies: [],
  deletions: [],
  sourceCount: 0,
  destinationCount: 0,
  destinationBytes: 0,
  unchangedCount: 0,
  states: [],
  cursor: '',
});

/** The job's state in key order, a keyset page of the primary key at a time, after a relative key. */
async function* statePages(
  repo: SyncCyclesRepo,
  syncJobId: string,
  after: string | null,
): AsyncGenerator<StateObject[]> {
  let cursor = after;
  for (;;) {
    const page = await repo.statePage(syncJobId, cursor, STATE_PAGE);
    if (page.length > 0) yield page;
    if (page.length < STATE_PAGE) return;
    cursor = page[page.length - 1]?.key ?? null;
  }
}

/**
 * What a full check's entry tells the state about its destination key: an unchanged pair holds the source's size
 * and ETag; a destination object that differs or is gone from the source holds its own size and no source ETag,
 * so that no later cycle reading the state takes it for unchanged. A source-only key has no row (yet).
 */
function stateOf(entry: DiffEntry): StateObject | null {
  if (entry.kind === 'unchanged')
    return { key: entry.key, size: entry.source.size, sourceEtag: entry.source.etag };
  if (entry.destination) return { key: entry.key, size: entry.destination.size, sourceEtag: null };
  return null;
}

/**
 * The phase machine of a cycle (README "How a cycle flows"). `advance` looks at the cycle's phase and moves it on
 * as far as it can without waiting (for the transfer engine, or an approval), under the cycle's lock; running it
 * twice, or after a worker died anywhere in it, is harmless.
 */
export class CycleRunner {
  constructor(
    private readonly repo: SyncCyclesRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly hooks: CycleRunnerHooks,
    private readonly log: Logger,
  ) {}

  async advance(cycleId: string): Promise<StepOutcome> {
    const outcome = await this.repo.withCycleLock(cycleId, () => this.#run(cycleId));
    return outcome.locked ? (outcome.value ?? 'finished') : 'busy';
  }

  async #run(cycleId: string): Promise<StepOutcome> {
    for (let steps = 0; steps < 10; steps++) {
      const cycle = await this.repo.find(cycleId);
      if (!cycle || cycle.finishedAt) return 'finished';
      const job = await this.repo.findJob(cycle.syncJobId);
      if (!job) return 'finished';
      try {
        if (cycle.phase === 'diffing') await this.#diff(cycle, job);
        else if (cycle.phase === 'copying') {
          if (!(await this.#afterCopy(cycle, job))) return 'waiting';
        } else if (cycle.phase === 'deleting') await this.#delete(cycle, job);
        else if (cycle.phase === 'awaiting_approval') return 'waiting';
        else return 'finished';
      } catch (error) {
        const message = this.#faultMessage(error);
        if (message === null) throw error;
        await this.#fault(cycle, message);
        return 'finished';
      }
    }
    return 'waiting';
  }

  /** The words of an error a retry would not cure; null for one that pg-boss should retry (the database's). */
  #faultMessage(error: unknown): string | null {
    if (error instanceof CycleFault) return error.message;
    if (error instanceof StorageError) return error.message;
    if (error instanceof QuotaExceeded) return quotaErrorText(error);
    return null;
  }

  async #fault(cycle: SyncCycleRow, message: string) {
    this.log.warn({ cycleId: cycle.id, error: message }, 'sync cycle faulted');
    const row = await this.repo.finish(cycle.id, SYNC_CYCLE_STATUS.faulted, { error: message });
    if (cycle.batchId) await this.#dropBatch(cycle.batchId);
    if (row) await this.hooks.publishCycle(row);
  }

  async #dropBatch(batchId: string) {
    const dropped = await this.repo.dropHeldBatch(batchId);
    if (dropped) await this.hooks.batchDropped(dropped);
  }

  async #endpoints(job: SyncJobRow): Promise<{ source: Endpoint; destination: Endpoint }> {
    const [source, destination] = await Promise.all([
      this.accounts.find(job.organizationId, job.sourceCloudAccountId),
      this.accounts.find(job.organizationId, job.destinationCloudAccountId),
    ]);
    if (!source) throw new CycleFault(syncErrors.sourceAccountGone);
    if (!destination) throw new CycleFault(syncErrors.destinationAccountGone);
    return {
      source: { account: source, store: await this.stores.storeFor(source), bucket: job.sourceBucket },
      destination: {
        account: destination,
        store: await this.stores.storeFor(destination),
        bucket: job.destinationBucket,
      },
    };
  }

  /** A missing bucket or an unreachable store says so in words, with the side and the account. */
  async #checkBucket(side: 'source' | 'destination', endpoint: Endpoint) {
    let found: { region: string | null } | null;
    try {
      found = await endpoint.store.headBucket(endpoint.bucket);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new CycleFault(syncErrors.unreachable(side, endpoint.bucket, endpoint.account.name, message));
    }
    if (!found) throw new CycleFault(syncErrors.missingBucket(side, endpoint.bucket, endpoint.account.name));
  }

  /**
   * The merge of this cycle: against the destination's listing in a full check (`destinationListed`), else
   * against the job's state, without a single request to the destination.
   */
  async #entries(cycle: SyncCycleRow, job: SyncJobRow): Promise<AsyncGenerator<DiffEntry>> {
    const { source, destination } = await this.#endpoints(job);
    await this.#checkBucket('source', source);
    let destinationSide: DiffOptions['destination'];
    if (cycle.destinationListed) {
      await this.#checkBucket('destination', destination);
      destinationSide = { store: destination.store, bucket: destination.bucket, path: job.destinationPath };
    } else {
      const repo = this.repo;
      destinationSide = {
        state: { path: job.destinationPath, pages: (after) => statePages(repo, job.id, after) },
      };
    }
    const entries = diffListings({
      source: { store: source.store, bucket: source.bucket, path: job.sourcePath },
      destination: destinationSide,
      sameEndpoint:
        endpointKeyOf(source.account, this.stores) === endpointKeyOf(destination.account, this.stores),
      after: cycle.dryRun ? null : cycle.diffCursor,
    });
    const endpoints = { source, destination };
    const log = this.log;
    return (async function* () {
      try {
        yield* entries;
      } catch (error) {
        if (!(error instanceof ListingError)) throw error;
        const endpoint = endpoints[error.side];
        log.debug({ err: error.storeError, cycleId: cycle.id }, 'sync listing failed');
        throw new CycleFault(
          syncErrors.unreachable(error.side, endpoint.bucket, endpoint.account.name, error.message),
        );
      }
    })();
  }

  #deletes(job: SyncJobRow): boolean {
    return job.kind === 'replication' && job.allowDelete;
  }

  async #diff(cycle: SyncCycleRow, job: SyncJobRow) {
    if (cycle.dryRun) return this.#dryRun(cycle, job);
    const batchId = cycle.batchId;
    if (!batchId) throw new CycleFault(syncErrors.batchGone);
    const destinationBase = destinationFolder(job.destinationPath);
    const deletes = this.#deletes(job);
    let chunk = emptyChunk();
    let entries = 0;
    // The batch's copies start with the first chunk that writes any, not after the whole diff (the batch stays
    // held, so nobody finalizes it before the release). Once per run of the diff: a resumed one queues again in
    // case its predecessor died before queuing; extra jobs are harmless.
    let started = false;
    const flush = async (): Promise<boolean> => {
      await this.hooks.reserveCopies(
        { id: batchId, organizationId: cycle.organizationId },
        chunk.copies.reduce((sum, copy) => sum + copy.size, 0),
      );
      const written = await this.repo.writeDiffChunk(cycle, batchId, chunk);
      chunk = emptyChunk();
      entries = 0;
      if (!written) return false;
      if (written.batchStatus !== BATCH_STATUS.ongoing) {
        const batch = await this.repo.batchState(batchId);
        // Its copies already run: an account removed meanwhile fails the batch, and with it the cycle.
        if (batch?.status === BATCH_STATUS.failed)
          throw new CycleFault(batch.error ?? syncErrors.copyFailed(batch.failedNumber));
        // The cycle's transfer was canceled from the transfer screens while the diff filled it.
        const row = await this.repo.finish(cycle.id, SYNC_CYCLE_STATUS.cancelled);
        if (row) await this.hooks.publishCycle(row);
        return false;
      }
      if (written.copies > 0 && !started) {
        started = true;
        await this.hooks.startBatch(batchId);
      }
      await this.hooks.publishCycle(written.cycle);
      return true;
    };

    for await (const entry of await this.#entries(cycle, job)) {
      this.#count(chunk, entry);
      if (entry.kind === 'copy') {
        chunk.copies.push({
          sourceKey: entry.source.key,
          destinationKey: destinationBase + entry.key,
          size: entry.source.size,
          sourceEtag: entry.source.etag,
          sourceMd5: entry.source.md5,
        });
      } else if (entry.kind === 'delete' && deletes) {
        chunk.deletions.push({
          key: entry.destination.key,
          size: entry.destination.size,
          etag: entry.destination.etag,
        });
      }
      if (cycle.destinationListed) {
        const state = stateOf(entry);
        if (state) chunk.states.push(state);
      }
      chunk.cursor = entry.key;
      entries += 1;
      if (entries >= DIFF_CHUNK && !(await flush())) return;
    }
    if (entries > 0 && !(await flush())) return;

    const diffed = await this.repo.find(cycle.id);
    if (!diffed || diffed.finishedAt) return;
    if (cycle.destinationListed) await this.repo.endFullCheck(cycle);
    if (diffed.copyCount > 0) {
      const row = await this.repo.advance(cycle.id, ['diffing'], {
        phase: 'copying',
        status: SYNC_CYCLE_STATUS.transferring,
      });
      if (row) await this.hooks.publishCycle(row);
      return;
    }
    await this.#dropBatch(batchId);
    await this.#guard({ ...diffed, batchId: null }, job);
  }

  #count(chunk: DiffChunk, entry: DiffEntry) {
    if (entry.kind !== 'delete') chunk.sourceCount += 1;
    if (entry.destination) {
      chunk.destinationCount += 1;
      chunk.destinationBytes += entry.destination.size;
    }
    if (entry.kind === 'unchanged') chunk.unchangedCount += 1;
  }

  /** The same merge, counted in memory: no item, no deletion row, only counts and a bounded sample. */
  async #dryRun(cycle: SyncCycleRow, job: SyncJobRow) {
    const counts = emptyChunk();
    const sample: NonNullable<SyncCycleRow['sample']> = { copy: [], delete: [] };
    let copyCount = 0;
    let copyBytes = 0;
    let deleteCount = 0;
    let deleteBytes = 0;
    const deletes = this.#deletes(job);
    for await (const entry of await this.#entries(cycle, job)) {
      this.#count(counts, entry);
      if (entry.kind === 'copy') {
        copyCount += 1;
        copyBytes += entry.source.size;
        if (sample.copy.length < SYNC_DRY_RUN_SAMPLE)
          sample.copy.push({ key: entry.source.key, size: entry.source.size });
      } else if (entry.kind === 'delete' && deletes) {
        deleteCount += 1;
        deleteBytes += entry.destination.size;
        if (sample.delete.length < SYNC_DRY_RUN_SAMPLE)
          sample.delete.push({ key: entry.destination.key, size: entry.destination.size });
      }
    }
    const changes = copyCount + deleteCount > 0;
    const row = await this.repo.finish(
      cycle.id,
      changes ? SYNC_CYCLE_STATUS.completed : SYNC_CYCLE_STATUS.noChange,
      {
        sourceCount: counts.sourceCount,
        destinationCount: counts.destinationCount,
        destinationBytes: counts.destinationBytes,
        unchangedCount: counts.unchangedCount,
        copyCount,
        copyBytes,
        deleteCount,
        deleteBytes,
        sample,
      },
    );
    if (row) await this.hooks.publishCycle(row);
  }

  /**
   * The batch is with the transfer engine: released first if a worker died between the diff and the release.
   * Answers false while it copies; a Failed batch faults the cycle and a Canceled one cancels it (no delete after
   * either), a Completed one moves on to the deletes.
   */
  async #afterCopy(cycle: SyncCycleRow, job: SyncJobRow): Promise<boolean> {
    if (!cycle.batchId) throw new CycleFault(syncErrors.batchGone);
    const batch = await this.repo.batchState(cycle.batchId);
    if (!batch) throw new CycleFault(syncErrors.batchGone);
    const ended: number[] = [BATCH_STATUS.completed, BATCH_STATUS.failed, BATCH_STATUS.canceled];
    if (ended.includes(batch.status)) {
      // Whatever the batch's end, what it copied is at the destination now: the state says so before anything
      // else happens (upserts, so a step run twice writes the same rows).
      await this.repo.recordCopies(cycle, cycle.batchId, destinationFolder(job.destinationPath));
    }
    if (batch.status === BATCH_STATUS.canceled) {
      const row = await this.repo.finish(cycle.id, SYNC_CYCLE_STATUS.cancelled);
      if (row) await this.hooks.publishCycle(row);
      return true;
    }
    if (batch.status === BATCH_STATUS.failed) {
      throw new CycleFault(batch.error ?? syncErrors.copyFailed(batch.failedNumber));
    }
    if (batch.status === BATCH_STATUS.completed) {
      await this.#guard(cycle, job);
      return true;
    }
    if (batch.phase === 'held' && (await this.repo.releaseBatch(cycle.batchId))) {
      await this.hooks.startBatch(cycle.batchId);
    }
    return false;
  }

  /**
   * The delete guardrail: candidates above the job's count or percent of the destination wait for an approval;
   * fewer are deleted at once; none (or a job that may not delete any more) ends the cycle.
   */
  async #guard(cycle: SyncCycleRow, job: SyncJobRow) {
    const from: Array<'diffing' | 'copying'> = ['diffing', 'copying'];
    if (cycle.deleteCount === 0 || !this.#deletes(job)) {
      await this.repo.keepPending(cycle.id);
      await this.#complete(cycle.id);
      return;
    }
    const overCount = cycle.deleteCount > job.deleteThresholdCount;
    const overPercent = cycle.deleteCount * 100 > job.deleteThresholdPercent * cycle.destinationCount;
    if (overCount || overPercent) {
      const row = await this.repo.advance(cycle.id, from, {
        phase: 'awaiting_approval',
        status: SYNC_CYCLE_STATUS.processing,
        approval: 'waiting',
      });
      if (!row) return;
      await this.hooks.publishCycle(row);
      await this.hooks.approvalNeeded(row, job);
      return;
    }
    const row = await this.repo.advance(cycle.id, from, {
      phase: 'deleting',
      status: SYNC_CYCLE_STATUS.processing,
    });
    if (row) await this.hooks.publishCycle(row);
  }

  async #delete(cycle: SyncCycleRow, job: SyncJobRow) {
    if (this.#deletes(job)) {
      const { destination } = await this.#endpoints(job);
      await deleteCandidates(
        this.repo,
        cycle,
        {
          store: destination.store,
          bucket: destination.bucket,
          base: destinationFolder(job.destinationPath),
        },
        job.quarantineDays !== null,
        (row) => this.hooks.publishCycle(row),
      );
    } else {
      // "Sync Deleted objects!" was turned off after the diff: nothing is deleted.
      await this.repo.keepPending(cycle.id);
    }
    await this.#complete(cycle.id);
  }

  /** Completed, NoChange when it neither copied nor deleted anything, Faulted when a delete failed. */
  async #complete(cycleId: string) {
    const cycle = await this.repo.find(cycleId);
    if (!cycle || cycle.finishedAt) return;
    const failed = await this.repo.failedDeletions(cycleId);
    const row =
      failed.count > 0
        ? await this.repo.finish(cycleId, SYNC_CYCLE_STATUS.faulted, {
            error: syncErrors.deleteFailed(failed.count, failed.error),
          })
        : await this.repo.finish(
            cycleId,
            cycle.copyCount > 0 || cycle.deletedCount > 0
              ? SYNC_CYCLE_STATUS.completed
              : SYNC_CYCLE_STATUS.noChange,
          );
    if (row) await this.hooks.publishCycle(row);
  }
}

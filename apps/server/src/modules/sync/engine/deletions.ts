import { SYNC_QUARANTINE_PREFIX } from '@cumulo/contract';
import { StorageError, type ObjectStore } from '@cumulo/storage';
import type { DeletionOutcome, SyncCyclesRepo } from '../sync-cycles.repo.ts';
import type { SyncCycleRow } from '../sync.views.ts';

/** Candidates deleted per round: one `deleteMany` (S3 deletes 1000 keys per request). */
const DELETE_CHUNK = 1000;
/** Server-side quarantine copies in flight at once. */
const QUARANTINE_CONCURRENCY = 16;

/**
 * Where a quarantined object goes: under the date the cycle started (not the date the delete ran, so a delete
 * resumed after midnight keeps one folder per cycle) and the cycle's id.
 */
export function quarantineKey(cycle: Pick<SyncCycleRow, 'id' | 'startedAt'>, key: string): string {
  return `${SYNC_QUARANTINE_PREFIX}${cycle.startedAt.toISOString().slice(0, 10)}/${cycle.id}/${key}`;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function inParallel<T, R>(values: T[], limit: number, work: (value: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(values.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, values.length) }, async () => {
    while (next < values.length) {
      const index = next++;
      results[index] = await work(values[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Copies one candidate into the quarantine; false when it is gone already (a resumed chunk copied it before). */
async function quarantineOne(
  store: ObjectStore,
  bucket: string,
  cycle: SyncCycleRow,
  key: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const target = quarantineKey(cycle, key);
  try {
    await store.copy({ bucket, key }, { bucket, key: target });
    return { ok: true };
  } catch (error) {
    if (error instanceof StorageError && error.code === 'ObjectNotFound') {
      // Already moved by a worker that died before it marked the row: the copy is there, or the object is gone.
      return { ok: true };
    }
    return { ok: false, error: messageOf(error) };
  }
}

/**
 * Deletes (or quarantines, then deletes) the cycle's pending candidates, a chunk at a time, settling each chunk's
 * rows (and removing the job's state rows of the keys gone) after its requests: a worker killed mid-chunk leaves those rows pending and its successor runs the chunk
 * again (a missing key counts as deleted; a quarantine copy of a key already moved is skipped). Answers the cycle
 * as it stands after the last chunk.
 */
export async function deleteCandidates(
  repo: SyncCyclesRepo,
  cycle: SyncCycleRow,
  /** `base`: the job's destination folder, which the state's relative keys are under. */
  destination: { store: ObjectStore; bucket: string; base: string },
  quarantine: boolean,
  onChunk: (cycle: SyncCycleRow) => Promise<void>,
): Promise<SyncCycleRow> {
  let current = cycle;
  for (;;) {
    const rows = await repo.pendingDeletions(cycle.id, DELETE_CHUNK);
    if (rows.length === 0) return current;
    const outcomes: DeletionOutcome[] = [];
    let deletable = rows.map((row) => row.key);
    if (quarantine) {
      const copies = await inParallel(deletable, QUARANTINE_CONCURRENCY, (key) =>
        quarantineOne(destination.store, destination.bucket, cycle, key),
      );
      deletable = [];
      copies.forEach((copy, index) => {
        const key = rows[index]?.key ?? '';
        if (copy.ok) deletable.push(key);
        else outcomes.push({ key, status: 'failed', error: copy.error });
      });
    }
    if (deletable.length > 0) {
      const result = await destination.store.deleteMany(destination.bucket, deletable);
      const refused = new Map(result.errors.map((error) => [error.key, error.message]));
      for (const key of deletable) {
        const error = refused.get(key);
        outcomes.push(
          error !== undefined
            ? { key, status: 'failed', error }
            : { key, status: quarantine ? 'quarantined' : 'deleted' },
        );
      }
    }
    current = (await repo.settleDeletions(cycle, destination.base, outcomes)) ?? current;
    await onChunk(current);
  }
}

/**
 * Empties quarantines whose time is up (`now` is passed so that a test need not wait days). Each purged copy's
 * row then reads `deleted`. Answers how many objects were purged.
 */
export async function purgeQuarantine(
  repo: SyncCyclesRepo,
  storeOf: (organizationId: string, accountId: string) => Promise<ObjectStore | null>,
  now: Date,
): Promise<number> {
  let purged = 0;
  for (let round = 0; round < 20; round++) {
    const due = await repo.quarantineToPurge(now, DELETE_CHUNK);
    if (due.length === 0) break;
    for (const entry of due) {
      const store = await storeOf(entry.organizationId, entry.accountId);
      // The account is gone: nothing can be reached; the rows stay and the next purge looks again.
      if (!store) continue;
      const cycle = { id: entry.cycleId, startedAt: entry.startedAt };
      const result = await store.deleteMany(
        entry.bucket,
        entry.keys.map((key) => quarantineKey(cycle, key)),
      );
      const refused = new Set(result.errors.map((error) => error.key));
      const done = entry.keys.filter((key) => !refused.has(quarantineKey(cycle, key)));
      await repo.markPurged(entry.cycleId, done);
      purged += done.length;
      if (done.length === 0) return purged;
    }
  }
  return purged;
}

import { BATCH_STATUS, accessMessages } from '@cumulo/contract';
import { mapAhead, readAhead, type ObjectInfo, type ObjectStore } from '@cumulo/storage';
import type { BatchRow } from '../transfers.repo.ts';
import type { PlannedItem, TransferPlanningRepo } from '../transfer-planning.repo.ts';
import {
  CONTENT_CHECK_CONCURRENCY,
  compareKeys,
  destinationFolder,
  holdsSameContent,
  isFolderPlaceholder,
  relativeKey,
  sourceBase,
} from './keys.ts';

/** Items written per transaction: memory stays one listing page plus one chunk whatever the bucket size. */
const PLAN_CHUNK = 2000;

interface PlanEndpoints {
  source: ObjectStore;
  destination: ObjectStore;
  /** Same endpoint and credentials: ETags of both sides are comparable. */
  sameEndpoint: boolean;
}

async function* objectsOf(store: ObjectStore, bucket: string, prefix: string): AsyncGenerator<ObjectInfo> {
  // The next page is fetched while this one is planned (and, with Skip Existing, while the other side is read).
  for await (const page of readAhead(store.list(bucket, { prefix }))) yield* page.objects;
}

/**
 * The `wanted` source objects of one listing, each with whether "Skip Existing Files" finds it already at the
 * destination: a merge of the two sorted listings, one page of each in memory, with a HEAD where the listings
 * leave an object in doubt (holdsSameContent), several in flight while the merge goes on.
 */
async function* plannedObjects(
  endpoints: PlanEndpoints,
  batch: BatchRow,
  sourcePrefix: string,
  base: string,
  destinationBase: string,
  wanted: (source: ObjectInfo) => boolean,
): AsyncGenerator<{ source: ObjectInfo; skipped: boolean }> {
  const sources = objectsOf(endpoints.source, batch.sourceBucket, sourcePrefix);
  if (!batch.skipExisting) {
    for await (const source of sources) if (wanted(source)) yield { source, skipped: false };
    return;
  }
  const destinationPrefix = destinationBase + relativeKey(sourcePrefix, base);
  const destinationSide = { store: endpoints.destination, bucket: batch.destinationBucket };
  async function* paired(): AsyncGenerator<{ source: ObjectInfo; destination: ObjectInfo | null }> {
    const destinations = objectsOf(endpoints.destination, batch.destinationBucket, destinationPrefix);
    try {
      let next = await destinations.next();
      for await (const source of sources) {
        if (!wanted(source)) continue;
        const relative = relativeKey(source.key, base);
        while (!next.done && compareKeys(relativeKey(next.value.key, destinationBase), relative) < 0) {
          next = await destinations.next();
        }
        const match =
          !next.done && relativeKey(next.value.key, destinationBase) === relative ? next.value : null;
        yield { source, destination: match };
      }
    } finally {
      await destinations.return(undefined);
    }
  }
  yield* mapAhead(paired(), CONTENT_CHECK_CONCURRENCY, ({ source, destination }) => {
    if (destination === null) return { source, skipped: false };
    const same = holdsSameContent(source, destination, destinationSide, endpoints.sameEndpoint);
    return typeof same === 'boolean'
      ? { source, skipped: same }
      : same.then((skipped) => ({ source, skipped }));
  });
}

/** A batch whose counted bytes pass its requester's maximum transfer size (`sizeLimit`, modules/access). */
export class SizeLimitExceeded extends Error {
  constructor(bytes: number, limit: number) {
    super(accessMessages.tooLarge('max_transfer_size', bytes, limit));
  }
}

/**
 * Holds the quota of the bytes a chunk will copy, before the chunk is written; false when the batch is no longer
 * Ongoing (nothing held); throws QuotaExceeded when that would pass the organisation's limit (README "Quota").
 */
export type ReservePlanned = (batch: BatchRow, bytes: number) => Promise<boolean>;

/**
 * Streams the source listing into the batch's items, a chunk per transaction, saving the last planned key as the
 * plan cursor: a planner killed mid-way is re-run by the job's retry and skips what was planned (the unique
 * (batch, key) index also makes any overlap harmless). Answers false when the batch was canceled meanwhile.
 * Each chunk's bytes to copy are reserved first: a refusal stops planning before the chunk is written.
 */
export async function planBatch(
  repo: TransferPlanningRepo,
  batch: BatchRow,
  endpoints: PlanEndpoints,
  reserve: ReservePlanned = async () => true,
): Promise<boolean> {
  const base = sourceBase(batch.sourcePath);
  const destinationBase = destinationFolder(batch.destinationPath);
  const cursor = batch.planCursor;
  const move = batch.operation === 'move';
  // A selection plans each key and folder in key order, so one cursor still says how far planning went.
  const entries = batch.sourceSelection
    ? [...new Set(batch.sourceSelection)].sort(compareKeys)
    : [batch.sourcePath];
  let chunk: PlannedItem[] = [];
  let last: string | null = null;
  // A re-run planner starts from what the earlier run planned, so resuming does not reset the size cap.
  let counted = batch.totalSize - batch.skippedSize;

  const flush = async () => {
    // Skipped objects and a move's objects already at the destination copy no byte.
    const toCopy = chunk.reduce(
      (sum, item) => (item.status === 'pending' && !item.present ? sum + item.size : sum),
      0,
    );
    counted += toCopy;
    // Refused before the chunk is written or reserved: copies start once planning ends, so nothing was copied.
    if (batch.sizeLimit !== null && counted > batch.sizeLimit) {
      throw new SizeLimitExceeded(counted, batch.sizeLimit);
    }
    if (!(await reserve(batch, toCopy))) return false;
    const status = await repo.insertPlanned(batch.id, chunk, last);
    chunk = [];
    return status === BATCH_STATUS.ongoing;
  };

  for (const entry of entries) {
    const exact = batch.sourceSelection !== null && !entry.endsWith('/');
    const wanted = (source: ObjectInfo) =>
      (!exact || source.key === entry) &&
      // Folder placeholders ("a/" of zero bytes) carry no content; the keys below them recreate the folder.
      !isFolderPlaceholder(source) &&
      // Planned before this planner was re-run.
      (cursor === null || compareKeys(source.key, cursor) > 0);
    const planned = plannedObjects(endpoints, batch, entry, base, destinationBase, wanted);
    for await (const { source, skipped } of planned) {
      chunk.push({
        sourceKey: source.key,
        destinationKey: destinationBase + relativeKey(source.key, base),
        size: source.size,
        sourceEtag: source.etag,
        sourceMd5: source.md5,
        // A move still owes the source of an object already there its delete: a worker does it (executor.ts).
        status: skipped && !move ? 'skipped' : 'pending',
        present: skipped && move,
      });
      last = source.key;
      if (chunk.length >= PLAN_CHUNK && !(await flush())) return false;
    }
  }
  if (!(await flush())) return false;
  await repo.finishPlanning(batch.id);
  return true;
}

// The bucket of bench/sync: N objects of 4 KiB under nested prefixes, seeded straight into s3rver's disk layout
// (bench/shared/s3rver-seed.ts), and the change the incremental sync must carry over: 1 % of the objects
// rewritten with other bytes at the same size, 0.5 % new, 0.5 % deleted.
import { createObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { ensureS3rverSeed, type Seed, type SeedLayout } from '../shared/s3rver-seed.ts';
import { bodyBytes, KiB } from '../transfer/seed.ts';

export const SYNC_BUCKET = 'bench-sync';
const OBJECT_SIZE = 4 * KiB;
/** Rewritten bodies come from another stretch of the deterministic generator: same size, other bytes. */
const REWRITE_OFFSET = 10_000_000;

const LAYOUT: SeedLayout = {
  name: 'sync-small',
  version: 1,
  bucket: SYNC_BUCKET,
  keyOf: (index) =>
    `set-${index % 10}/part-${Math.floor(index / 10) % 10}/object-${String(index).padStart(6, '0')}.bin`,
  bodyOf: (index) => bodyBytes(index, OBJECT_SIZE),
  samples: [7],
};

export const seedSync = (dataDir: string, objects: number): Promise<Seed> =>
  ensureS3rverSeed(dataDir, LAYOUT, objects);

export interface SourceChange {
  changed: string[];
  added: string[];
  deleted: string[];
}

/** Which keys of an N-object seed change: every 100th rewritten, every 200th (offset 50) deleted, N/200 added. */
export function changeOf(
  objects: number,
): SourceChange & { indexes: { changed: number[]; added: number[] } } {
  const changedIndexes: number[] = [];
  const deleted: string[] = [];
  for (let index = 0; index < objects; index++) {
    if (index % 100 === 0) changedIndexes.push(index);
    if (index % 200 === 50) deleted.push(LAYOUT.keyOf(index));
  }
  const addedIndexes = Array.from({ length: Math.floor(objects / 200) }, (_, i) => objects + i);
  return {
    changed: changedIndexes.map((index) => LAYOUT.keyOf(index)),
    added: addedIndexes.map((index) => LAYOUT.keyOf(index)),
    deleted,
    indexes: { changed: changedIndexes, added: addedIndexes },
  };
}

/** Applies the change to the source through its S3 API (straight to s3rver, not through a counting proxy). */
export async function changeSource(endpoint: string, objects: number): Promise<SourceChange> {
  const change = changeOf(objects);
  const store = await createObjectStore({
    provider: 'genericS3',
    endpoint,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    forcePathStyle: true,
  });
  try {
    const writes = [
      ...change.indexes.changed.map((index) => ({
        index,
        body: bodyBytes(REWRITE_OFFSET + index, OBJECT_SIZE),
      })),
      ...change.indexes.added.map((index) => ({ index, body: LAYOUT.bodyOf(index) })),
    ];
    for (let start = 0; start < writes.length; start += 16) {
      await Promise.all(
        writes
          .slice(start, start + 16)
          .map(({ index, body }) => store.write(SYNC_BUCKET, LAYOUT.keyOf(index), body)),
      );
    }
    const result = await store.deleteMany(SYNC_BUCKET, change.deleted);
    if (result.errors.length > 0) throw new Error(`could not delete ${result.errors.length} source objects`);
  } finally {
    await store.close();
  }
  return { changed: change.changed, added: change.added, deleted: change.deleted };
}

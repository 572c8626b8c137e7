// The inventory bucket: N objects of 0–1024 bytes in folders of 500, seeded straight into s3rver's disk layout
// (bench/shared/s3rver-seed.ts).
import { ensureS3rverSeed, type Seed, type SeedLayout } from '../shared/s3rver-seed.ts';

export type { Seed };
export const BENCH_BUCKET = 'cumulo-bench';
/** Objects per folder: a bucket with folders, as real buckets are, and as s3rver needs to list in linear time. */
const FOLDER_SIZE = 500;
const MAX_OBJECT_SIZE = 1024;

function keyOf(index: number): string {
  const folder = String(Math.floor(index / FOLDER_SIZE)).padStart(4, '0');
  return `folder-${folder}/object-${String(index).padStart(7, '0')}.bin`;
}

/** 0–1024 bytes, spread so totals catch a dropped or doubled page. */
function sizeOf(index: number): number {
  return (index * 7919) % (MAX_OBJECT_SIZE + 1);
}

const PATTERN = Buffer.from(Array.from({ length: 2 * MAX_OBJECT_SIZE + 64 }, (_, i) => (i * 131 + 7) % 251));

const INVENTORY_LAYOUT: SeedLayout = {
  name: 's3rver',
  version: 1,
  bucket: BENCH_BUCKET,
  keyOf,
  bodyOf: (index) => {
    const start = index % 64;
    return PATTERN.subarray(start, start + sizeOf(index));
  },
  samples: [0, 1, 2, 777, FOLDER_SIZE + 3],
};

/** The cached seed for `count` objects under `dataDir`, written (and its layout checked) on first use. */
export function ensureSeed(dataDir: string, count: number): Promise<Seed> {
  return ensureS3rverSeed(dataDir, INVENTORY_LAYOUT, count);
}

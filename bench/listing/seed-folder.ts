// The listing bucket: one folder of N small objects, seeded straight into s3rver's disk layout
// (bench/shared/s3rver-seed.ts).
import { ensureS3rverSeed, type SeedLayout } from '../shared/s3rver-seed.ts';

export const LISTING_BUCKET = 'cumulo-listing';
export const BIG_FOLDER = 'big-folder/';

const FOLDER_LAYOUT: SeedLayout = {
  name: 's3rver-folder',
  version: 2,
  bucket: LISTING_BUCKET,
  keyOf: (index) => `${BIG_FOLDER}object-${String(index).padStart(7, '0')}.bin`,
  bodyOf: (index) => Buffer.from(`object ${index}\n`),
  samples: [7],
};

/** s3rver's root directory holding LISTING_BUCKET with `count` objects in BIG_FOLDER, cached under `dataDir`. */
export async function ensureFolderSeed(dataDir: string, count: number): Promise<string> {
  return (await ensureS3rverSeed(dataDir, FOLDER_LAYOUT, count)).directory;
}

// The source buckets of bench/transfer, seeded straight into s3rver's disk layout (bench/shared/s3rver-seed.ts):
// 1000 objects of 64 KiB under nested prefixes, and two objects of 1 GiB.
import { createCipheriv } from 'node:crypto';
import { ensureS3rverSeed, type Seed, type SeedLayout } from '../shared/s3rver-seed.ts';

export const SMALL_BUCKET = 'bench-small';
export const LARGE_BUCKET = 'bench-large';
export const LARGE_PARTS_BUCKET = 'bench-large-parts';
export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

/** Incompressible, deterministic bytes: AES-256-CTR of zeros under a key derived from `index`. */
export function bodyBytes(index: number, size: number): Buffer {
  const key = Buffer.alloc(32, index % 256);
  key.writeUInt32BE(index, 0);
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(size)), cipher.final()]);
}

const SMALL_LAYOUT: SeedLayout = {
  name: 'transfer-small',
  version: 1,
  bucket: SMALL_BUCKET,
  // Nested prefixes, ten per level, as real buckets hold them.
  keyOf: (index) =>
    `set-${index % 10}/part-${Math.floor(index / 10) % 10}/object-${String(index).padStart(5, '0')}.bin`,
  bodyOf: (index) => bodyBytes(index, 64 * KiB),
  samples: [3],
};

/** Two objects of `size` (1 GiB in the cases; smaller for a smoke run, cached apart). */
const largeLayout = (size: number): SeedLayout => ({
  name: size === GiB ? 'transfer-large' : `transfer-large-${size / MiB}mib`,
  version: 1,
  bucket: LARGE_BUCKET,
  keyOf: (index) => `large/object-${index}.bin`,
  bodyOf: (index) => bodyBytes(1000 + index, size),
  // The layout is the same writer as the small seed's, which is checked against a real PUT; a 1 GiB PUT sample
  // would go multipart and could not be compared file for file.
  samples: [],
});

/**
 * The same two objects as uploaded in 5 MiB parts (rclone's chunk size, and Cumulo's own for 1 GiB), as most large
 * objects are: their ETag is the MD5 of the part MD5s, not of their bytes. Written by the seeder with the part
 * layout the test extension keeps, whose completion is checked in s3rver-multipart.spec.ts.
 */
const largePartsLayout = (size: number): SeedLayout => ({
  ...largeLayout(size),
  name: size === GiB ? 'transfer-large-parts' : `transfer-large-parts-${size / MiB}mib`,
  bucket: LARGE_PARTS_BUCKET,
  partSize: 5 * MiB,
});

export const seedSmall = (dataDir: string, count = 1000): Promise<Seed> =>
  ensureS3rverSeed(dataDir, SMALL_LAYOUT, count);
export const seedLarge = (dataDir: string, size = GiB): Promise<Seed> =>
  ensureS3rverSeed(dataDir, largeLayout(size), 2);
export const seedLargeParts = (dataDir: string, size = GiB): Promise<Seed> =>
  ensureS3rverSeed(dataDir, largePartsLayout(size), 2);
export const smallKeys = (count = 1000) => Array.from({ length: count }, (_, i) => SMALL_LAYOUT.keyOf(i));
export const largeKeys = () => [0, 1].map((index) => largeLayout(GiB).keyOf(index));

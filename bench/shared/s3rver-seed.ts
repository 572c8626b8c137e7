// Seeds an s3rver directory with N objects by writing s3rver's own on-disk layout (three files per object: the
// body, its MD5 and the metadata JSON), which is ~50× faster than N PUTs through its HTTP API. Before trusting
// that shortcut, the layout check PUTs sample objects through a real s3rver and compares the files byte for byte.
// Each benchmark describes its bucket as a SeedLayout; seeds are cached under the benchmark's data directory.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { startS3rverProcess } from '../inventory/s3rver-process.ts';

export interface SeedLayout {
  /** Names the cache: `<dataDir>/<name>-<count>` and its manifest `<name>-<count>.json`. */
  name: string;
  /** Bumped whenever keys or bodies change, so a stale cached seed is rebuilt. */
  version: number;
  bucket: string;
  keyOf(index: number): string;
  bodyOf(index: number): Buffer;
  /** Indexes PUT through the real s3rver by the layout check. */
  samples: number[];
  /**
   * Objects as completed from parts of this size (the last one shorter): the ETag S3 gives them (the MD5 of the
   * part MD5s and the count) and the part layout the test extension keeps (`parts.json`, testing/s3rver-multipart.ts).
   */
  partSize?: number;
}

export interface Seed {
  /** s3rver's root directory; it holds exactly one bucket, the layout's. */
  directory: string;
  objects: number;
  bytes: number;
}

/**
 * The files s3rver 3.7 writes for a PutObject without metadata (see its FilesystemStore.putMetadata), or those the
 * test extension leaves after a CompleteMultipartUpload of parts of `partSize`.
 */
function writeObjectFiles(bucketDir: string, key: string, body: Buffer, partSize?: number): void {
  const base = path.join(bucketDir, `${key}._S3rver_`);
  fs.writeFileSync(`${base}object`, body);
  if (partSize) {
    const sizes: number[] = [];
    const md5s: Buffer[] = [];
    for (let at = 0; at < body.length; at += partSize) {
      const part = body.subarray(at, at + partSize);
      sizes.push(part.length);
      md5s.push(createHash('md5').update(part).digest());
    }
    const etag = `${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${sizes.length}`;
    fs.writeFileSync(`${base}object.md5`, etag);
    fs.writeFileSync(`${base}parts.json`, JSON.stringify({ etag, sizes }));
  } else {
    fs.writeFileSync(`${base}object.md5`, createHash('md5').update(body).digest('hex'));
  }
  fs.writeFileSync(
    `${base}metadata.json`,
    JSON.stringify({ 'content-type': 'application/octet-stream' }, null, 2),
  );
}

/** Writes objects `indexes` of the layout under `root`; answers their total bytes. */
function writeObjects(root: string, layout: SeedLayout, indexes: Iterable<number>): number {
  const bucketDir = path.join(root, layout.bucket);
  let madeDir = '';
  let bytes = 0;
  for (const index of indexes) {
    const key = layout.keyOf(index);
    const dir = path.dirname(path.join(bucketDir, key));
    if (dir !== madeDir) {
      fs.mkdirSync(dir, { recursive: true });
      madeDir = dir;
    }
    const body = layout.bodyOf(index);
    writeObjectFiles(bucketDir, key, body, layout.partSize);
    bytes += body.length;
  }
  return bytes;
}

function filesUnder(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, file), fs.readFileSync(file).toString('base64'));
  }
  return files;
}

/** PUTs the layout's samples through s3rver and checks the direct writer produces the same files. */
async function verifyLayout(scratch: string, layout: SeedLayout): Promise<void> {
  // A layout without samples relies on another layout's check of the same writer (see its definition).
  if (layout.samples.length === 0) return;
  const viaApi = path.join(scratch, 'via-api');
  const direct = path.join(scratch, 'direct');
  fs.mkdirSync(viaApi, { recursive: true });
  const server = await startS3rverProcess(viaApi);
  const store = await createObjectStore({
    provider: 'genericS3',
    endpoint: server.endpoint,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
  });
  try {
    await store.createBucket(layout.bucket);
    for (const index of layout.samples)
      await store.write(layout.bucket, layout.keyOf(index), layout.bodyOf(index));
  } finally {
    await store.close();
    await server.stop();
  }
  writeObjects(direct, layout, layout.samples);
  const expected = filesUnder(viaApi);
  const written = filesUnder(direct);
  const differing = [...new Set([...expected.keys(), ...written.keys()])].filter(
    (file) => expected.get(file) !== written.get(file),
  );
  if (differing.length > 0) {
    throw new Error(
      `s3rver's on-disk layout changed: the direct seeder differs from a real PUT on ${differing.join(', ')}`,
    );
  }
}

function readManifest(file: string): { version: number; objects: number; bytes: number } | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    const { layoutVersion, objects, bytes } = manifest;
    if (typeof layoutVersion !== 'number' || typeof objects !== 'number' || typeof bytes !== 'number') {
      return null;
    }
    return { version: layoutVersion, objects, bytes };
  } catch {
    return null;
  }
}

/** The cached seed of `count` objects of `layout` under `dataDir`, written (and its layout checked) on first use. */
export async function ensureS3rverSeed(dataDir: string, layout: SeedLayout, count: number): Promise<Seed> {
  const directory = path.join(dataDir, `${layout.name}-${count}`);
  const manifestFile = `${directory}.json`;
  const manifest = readManifest(manifestFile);
  if (manifest?.version === layout.version && manifest.objects === count && fs.existsSync(directory)) {
    return { directory, objects: count, bytes: manifest.bytes };
  }
  fs.rmSync(manifestFile, { force: true });
  fs.rmSync(directory, { recursive: true, force: true });
  const scratch = `${directory}.tmp`;
  fs.rmSync(scratch, { recursive: true, force: true });
  const started = performance.now();
  await verifyLayout(path.join(scratch, 'layout-check'), layout);
  const root = path.join(scratch, 'root');
  const bytes = writeObjects(root, layout, indexesUpTo(count));
  fs.renameSync(root, directory);
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.writeFileSync(manifestFile, JSON.stringify({ layoutVersion: layout.version, objects: count, bytes }));
  console.log(
    `seeded ${count} objects (${bytes} bytes) of ${layout.bucket} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { directory, objects: count, bytes };
}

function* indexesUpTo(count: number): Generator<number> {
  for (let index = 0; index < count; index++) yield index;
}

// Seeds an s3rver directory with N objects by writing s3rver's own on-disk layout (three files per object:
// the body, its MD5 and the metadata JSON), which is ~50× faster than N PUTs through its HTTP API. Before
// trusting that shortcut, `verifyLayout` PUTs sample objects through the real s3rver and compares the files.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { startS3rverProcess } from './s3rver-process.ts';

/** Bumped whenever the key layout or sizes change, so stale cached seeds are rebuilt. */
const LAYOUT_VERSION = 1;
export const BENCH_BUCKET = 'cumulo-bench';
/** Objects per folder: a bucket with folders, as real buckets are, and as s3rver needs to list in linear time. */
const FOLDER_SIZE = 500;
const MAX_OBJECT_SIZE = 1024;

export function keyOf(index: number): string {
  const folder = String(Math.floor(index / FOLDER_SIZE)).padStart(4, '0');
  return `folder-${folder}/object-${String(index).padStart(7, '0')}.bin`;
}

/** 0–1024 bytes, spread so totals catch a dropped or doubled page. */
export function sizeOf(index: number): number {
  return (index * 7919) % (MAX_OBJECT_SIZE + 1);
}

const PATTERN = Buffer.from(Array.from({ length: 2 * MAX_OBJECT_SIZE + 64 }, (_, i) => (i * 131 + 7) % 251));

function bodyOf(index: number): Buffer {
  const start = index % 64;
  return PATTERN.subarray(start, start + sizeOf(index));
}

/** The files s3rver 3.7 writes for a PutObject without metadata (see its FilesystemStore.putMetadata). */
function writeObjectFiles(bucketDir: string, index: number): number {
  const key = keyOf(index);
  const body = bodyOf(index);
  const base = path.join(bucketDir, `${key}._S3rver_`);
  fs.writeFileSync(`${base}object`, body);
  fs.writeFileSync(`${base}object.md5`, createHash('md5').update(body).digest('hex'));
  fs.writeFileSync(
    `${base}metadata.json`,
    JSON.stringify({ 'content-type': 'application/octet-stream' }, null, 2),
  );
  return body.length;
}

function writeBucket(root: string, count: number): number {
  const bucketDir = path.join(root, BENCH_BUCKET);
  let bytes = 0;
  for (let index = 0; index < count; index++) {
    if (index % FOLDER_SIZE === 0)
      fs.mkdirSync(path.dirname(path.join(bucketDir, keyOf(index))), { recursive: true });
    bytes += writeObjectFiles(bucketDir, index);
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

/** PUTs sample objects through s3rver and checks the direct writer produces the same files byte for byte. */
async function verifyLayout(scratch: string): Promise<void> {
  const samples = [0, 1, 2, 777, FOLDER_SIZE + 3];
  const viaApi = path.join(scratch, 'via-api');
  const direct = path.join(scratch, 'direct');
  fs.mkdirSync(viaApi, { recursive: true });
  const server = await startS3rverProcess(viaApi);
  const store = createObjectStore({
    provider: 'genericS3',
    endpoint: server.endpoint,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
  });
  try {
    await store.createBucket(BENCH_BUCKET);
    for (const index of samples) await store.write(BENCH_BUCKET, keyOf(index), Buffer.from(bodyOf(index)));
  } finally {
    await store.close();
    await server.stop();
  }
  const directBucket = path.join(direct, BENCH_BUCKET);
  for (const index of samples) {
    fs.mkdirSync(path.dirname(path.join(directBucket, keyOf(index))), { recursive: true });
    writeObjectFiles(directBucket, index);
  }
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

export interface Seed {
  /** s3rver's root directory; it holds exactly one bucket, BENCH_BUCKET. */
  directory: string;
  objects: number;
  bytes: number;
}

/** The cached seed for `count` objects under `dataDir`, written (and its layout checked) on first use. */
export async function ensureSeed(dataDir: string, count: number): Promise<Seed> {
  const directory = path.join(dataDir, `s3rver-${count}`);
  const manifestFile = path.join(dataDir, `s3rver-${count}.json`);
  const manifest = readManifest(manifestFile);
  if (manifest && manifest.layoutVersion === LAYOUT_VERSION && fs.existsSync(directory)) {
    return { directory, objects: manifest.objects, bytes: manifest.bytes };
  }
  fs.rmSync(manifestFile, { force: true });
  fs.rmSync(directory, { recursive: true, force: true });
  const scratch = `${directory}.tmp`;
  fs.rmSync(scratch, { recursive: true, force: true });
  const started = performance.now();
  await verifyLayout(path.join(scratch, 'layout-check'));
  const root = path.join(scratch, 'root');
  const bytes = writeBucket(root, count);
  fs.renameSync(root, directory);
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.writeFileSync(manifestFile, JSON.stringify({ layoutVersion: LAYOUT_VERSION, objects: count, bytes }));
  console.log(
    `seeded ${count} objects (${bytes} bytes) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { directory, objects: count, bytes };
}

function readManifest(file: string): { layoutVersion: number; objects: number; bytes: number } | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as {
      layoutVersion: number;
      objects: number;
      bytes: number;
    };
  } catch {
    return null;
  }
}

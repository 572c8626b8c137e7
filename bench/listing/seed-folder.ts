// Seeds an s3rver directory with one folder of N objects by writing s3rver's own on-disk layout (the body, its
// MD5 and the metadata JSON per object), as bench/inventory/seed.ts does for its bucket. Before trusting the
// shortcut, a sample object is PUT through a real s3rver and its files compared byte for byte.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { startS3rverProcess } from '../inventory/s3rver-process.ts';

/** Bumped whenever keys or bodies change, so a stale cached seed is rebuilt. */
const LAYOUT_VERSION = 1;
export const LISTING_BUCKET = 'cumulo-listing';
export const BIG_FOLDER = 'big-folder/';

export function keyOf(index: number): string {
  return `${BIG_FOLDER}object-${String(index).padStart(7, '0')}.bin`;
}

function bodyOf(index: number): Buffer {
  return Buffer.from(`object ${index}\n`);
}

function writeObjectFiles(bucketDir: string, index: number): void {
  const body = bodyOf(index);
  const base = path.join(bucketDir, `${keyOf(index)}._S3rver_`);
  fs.writeFileSync(`${base}object`, body);
  fs.writeFileSync(`${base}object.md5`, createHash('md5').update(body).digest('hex'));
  fs.writeFileSync(
    `${base}metadata.json`,
    JSON.stringify({ 'content-type': 'application/octet-stream' }, null, 2),
  );
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

async function verifyLayout(scratch: string): Promise<void> {
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
    await store.createBucket(LISTING_BUCKET);
    await store.write(LISTING_BUCKET, keyOf(7), bodyOf(7));
  } finally {
    await store.close();
    await server.stop();
  }
  const bucketDir = path.join(direct, LISTING_BUCKET);
  fs.mkdirSync(path.join(bucketDir, BIG_FOLDER), { recursive: true });
  writeObjectFiles(bucketDir, 7);
  const expected = filesUnder(viaApi);
  const written = filesUnder(direct);
  const differing = [...new Set([...expected.keys(), ...written.keys()])].filter(
    (file) => expected.get(file) !== written.get(file),
  );
  if (differing.length > 0) {
    throw new Error(`s3rver's on-disk layout changed: the direct seeder differs on ${differing.join(', ')}`);
  }
}

/** s3rver's root directory holding LISTING_BUCKET with `count` objects in BIG_FOLDER, cached under `dataDir`. */
export async function ensureFolderSeed(dataDir: string, count: number): Promise<string> {
  const directory = path.join(dataDir, `s3rver-folder-${count}`);
  const manifestFile = `${directory}.json`;
  try {
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { layoutVersion: number };
    if (manifest.layoutVersion === LAYOUT_VERSION && fs.existsSync(directory)) return directory;
  } catch {
    // no usable manifest: seed again
  }
  fs.rmSync(manifestFile, { force: true });
  fs.rmSync(directory, { recursive: true, force: true });
  const scratch = `${directory}.tmp`;
  fs.rmSync(scratch, { recursive: true, force: true });
  const started = performance.now();
  await verifyLayout(path.join(scratch, 'layout-check'));
  const root = path.join(scratch, 'root');
  const bucketDir = path.join(root, LISTING_BUCKET);
  fs.mkdirSync(path.join(bucketDir, BIG_FOLDER), { recursive: true });
  for (let index = 0; index < count; index++) writeObjectFiles(bucketDir, index);
  fs.renameSync(root, directory);
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.writeFileSync(manifestFile, JSON.stringify({ layoutVersion: LAYOUT_VERSION, objects: count }));
  console.log(
    `seeded ${count} objects in one folder in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return directory;
}

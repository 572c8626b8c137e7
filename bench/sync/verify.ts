// Checks that a destination bucket holds exactly the source's objects: the same keys and sizes through the S3 API,
// and the same bytes, compared body file by body file in s3rver's directories. A sync that is fast but wrong
// must fail the benchmark.
import fs from 'node:fs';
import path from 'node:path';
import { createObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';

/** s3rver keeps an object's body in `<bucket dir>/<key>._S3rver_object`. */
const BODY_SUFFIX = '._S3rver_object';

function bodiesUnder(bucketDir: string): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const entry of fs.readdirSync(bucketDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(BODY_SUFFIX)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const key = path.relative(bucketDir, file).slice(0, -BODY_SUFFIX.length).split(path.sep).join('/');
    bodies.set(key, file);
  }
  return bodies;
}

async function listingOf(endpoint: string, bucket: string): Promise<Map<string, number>> {
  const store = await createObjectStore({
    provider: 'genericS3',
    endpoint,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    forcePathStyle: true,
  });
  const sizes = new Map<string, number>();
  try {
    for await (const page of store.list(bucket))
      for (const object of page.objects) sizes.set(object.key, object.size);
  } finally {
    await store.close();
  }
  return sizes;
}

export interface Side {
  endpoint: string;
  /** The s3rver's root directory. */
  directory: string;
  bucket: string;
}

/** The differences between source and destination (empty when they are equal), at most `limit` listed. */
export async function differences(source: Side, destination: Side, limit = 10): Promise<string[]> {
  const problems: string[] = [];
  const note = (problem: string) => {
    if (problems.length < limit) problems.push(problem);
  };
  const [sourceList, destinationList] = await Promise.all([
    listingOf(source.endpoint, source.bucket),
    listingOf(destination.endpoint, destination.bucket),
  ]);
  for (const [key, size] of sourceList) {
    const other = destinationList.get(key);
    if (other === undefined) note(`missing at the destination: ${key}`);
    else if (other !== size) note(`size ${other} instead of ${size}: ${key}`);
  }
  for (const key of destinationList.keys()) if (!sourceList.has(key)) note(`not at the source: ${key}`);
  const sourceBodies = bodiesUnder(path.join(source.directory, source.bucket));
  const destinationBodies = bodiesUnder(path.join(destination.directory, destination.bucket));
  if (sourceBodies.size !== sourceList.size)
    note(`the source lists ${sourceList.size} keys but holds ${sourceBodies.size}`);
  for (const [key, file] of sourceBodies) {
    const other = destinationBodies.get(key);
    if (other === undefined) note(`no body at the destination: ${key}`);
    else if (!fs.readFileSync(file).equals(fs.readFileSync(other))) note(`other bytes: ${key}`);
  }
  for (const key of destinationBodies.keys())
    if (!sourceBodies.has(key)) note(`extra body at the destination: ${key}`);
  return problems;
}

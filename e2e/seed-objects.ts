import { createCipheriv, createHash } from 'node:crypto';
import type { ObjectStore } from '@cumulo/storage';

export const MiB = 1024 * 1024;

/**
 * The bytes of an object, the same for the same key and size in every run: AES-128-CTR over zeros with a key derived
 * from the object's key, so 100 MiB are made in a blink and look random to any compression on the way.
 */
export function contentOf(key: string, size: number): Buffer {
  const secret = createHash('sha256').update(key).digest().subarray(0, 16);
  const cipher = createCipheriv('aes-128-ctr', secret, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(size)), cipher.final()]);
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** What the test keeps of each seeded object to compare the copies with. */
export interface Seeded {
  size: number;
  sha256: string;
}

/** Runs `work` over `items` with at most `limit` at once. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(lanes);
}

/** Writes each key with its deterministic bytes; returns what was written, by key. */
export async function seedObjects(
  store: ObjectStore,
  bucket: string,
  objects: ReadonlyArray<{ key: string; size: number }>,
  limit = 24,
): Promise<Map<string, Seeded>> {
  const seeded = new Map<string, Seeded>();
  await inParallel(objects, limit, async ({ key, size }) => {
    const body = contentOf(key, size);
    await store.write(bucket, key, body, { size });
    seeded.set(key, { size, sha256: sha256(body) });
  });
  return seeded;
}

/** Every object under `prefix` with its size (the store's listing, all pages). */
export async function listSizes(
  store: ObjectStore,
  bucket: string,
  prefix = '',
): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for await (const page of store.list(bucket, { prefix })) {
    for (const object of page.objects) sizes.set(object.key, object.size);
  }
  return sizes;
}

/** SHA-256 of an object as the store serves it, streamed. */
export async function storedSha256(store: ObjectStore, bucket: string, key: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of await store.read(bucket, key)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

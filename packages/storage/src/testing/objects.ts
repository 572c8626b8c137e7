import { buffer } from 'node:stream/consumers';
import type { ObjectStore, ReadOptions } from '../object-store.ts';

/** The whole body of an object, read through the store as the product reads it (tests compare it byte for byte). */
export async function readAll(
  store: ObjectStore,
  bucket: string,
  key: string,
  options?: ReadOptions,
): Promise<Buffer> {
  return buffer(await store.read(bucket, key, options));
}

/**
 * Every key of a bucket (under `prefix`), through all the pages of its listing. Sorted here, so a test compares
 * the keys it expects whatever page size or order a store lists in; the listing order itself is the contract's.
 */
export async function keysOf(store: ObjectStore, bucket: string, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of store.list(bucket, { prefix })) keys.push(...page.objects.map((o) => o.key));
  return keys.sort();
}

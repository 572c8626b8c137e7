import { buffer } from 'node:stream/consumers';
import type { ObjectStore } from '@cumulo/storage';

/** The whole body of an object, read through the store as the product reads it (tests compare it byte for byte). */
export async function readAll(store: ObjectStore, bucket: string, key: string): Promise<Buffer> {
  return buffer(await store.read(bucket, key));
}

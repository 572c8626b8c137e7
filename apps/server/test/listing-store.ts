import type { ListOptions, ListPage, ObjectInfo, ObjectStore } from '@cumulo/storage';
import { compareKeys } from '../src/modules/transfers/engine/keys.ts';

/**
 * A store held in memory for the listing merges (the sync diff, the transfer planner): `list` (sorted UTF-8,
 * paged like the stores) and `stat`, the only calls a merge may make, and `deleteMany` for the tidying after a
 * move; every call is recorded, so a test tells
 * how many requests a merge sent. By default the store declares metadataInListings (as Azure); with
 * `metadataInListings: false` its listings show no metadata, which only a stat tells (as S3).
 */
export function listingStore(
  objects: Array<Partial<ObjectInfo> & { key: string }>,
  pageSize = 2,
  { metadataInListings = true } = {},
) {
  const calls: string[] = [];
  const sorted = objects
    .map((object) => ({
      size: 1,
      lastModified: null,
      etag: null,
      md5: null,
      contentType: null,
      metadata: {},
      ...object,
    }))
    .sort((a, b) => compareKeys(a.key, b.key));
  const store = {
    provider: 'aws',
    capabilities: metadataInListings ? { metadataInListings } : {},
    async *list(_bucket: string, options: ListOptions = {}): AsyncGenerator<ListPage> {
      calls.push(`list ${options.prefix ?? ''}`);
      const under = sorted
        .filter((object) => object.key.startsWith(options.prefix ?? ''))
        .map((object) => (metadataInListings ? object : { ...object, metadata: {} }));
      for (let at = 0; at < under.length; at += pageSize) {
        yield { objects: under.slice(at, at + pageSize), prefixes: [], continuationToken: null };
      }
    },
    async deleteMany(_bucket: string, keys: string[]) {
      calls.push(`delete ${keys.join(' ')}`);
      for (const key of keys) {
        const at = sorted.findIndex((object) => object.key === key);
        if (at >= 0) sorted.splice(at, 1);
      }
      return { deleted: keys, errors: [] };
    },
    async stat(_bucket: string, key: string): Promise<ObjectInfo | null> {
      calls.push(`stat ${key}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return sorted.find((object) => object.key === key) ?? null;
    },
  };
  return { store: store as unknown as ObjectStore, calls };
}

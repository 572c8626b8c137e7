import { describe, expect, it } from 'vitest';
import type { ListPage, ObjectStore } from '@cumulo/storage';
import { listingStore } from '../../../../test/listing-store.ts';
import { compareKeys } from '../../transfers/engine/keys.ts';
import { diffListings, ListingError, type DiffEntry, type StateObject } from './diff.ts';

// The merge alone, on listings held in memory (test/listing-store.ts); the real stores run in
// sync-cycles.int.spec.ts.

/** A full check of one bucket's root against another's, across endpoints. */
const bucketToBucket = (source: ObjectStore, destination: ObjectStore) =>
  diffListings({
    source: { store: source, bucket: 's', path: '' },
    destination: { store: destination, bucket: 'd', path: '' },
    sameEndpoint: false,
  });

async function collect(entries: AsyncGenerator<DiffEntry>) {
  const out: Array<[string, string]> = [];
  for await (const entry of entries) out.push([entry.kind, entry.key]);
  return out;
}

describe('diffListings: the merge of two sorted listings', () => {
  it('tells unchanged, copy and delete apart by size then checksum, in UTF-8 key order', async () => {
    const source = listingStore([
      { key: 'a.txt', size: 3, md5: 'aaa' },
      { key: 'b.txt', size: 3, md5: 'bbb' },
      { key: 'c.txt', size: 4, md5: 'ccc' },
      { key: 'é.txt', size: 1, md5: 'eee' },
      { key: 'z.txt', size: 1, md5: 'zzz' },
      { key: 'sha.bin', size: 5, metadata: { 'cumulo-sha256': 'AB' } },
    ]);
    const destination = listingStore([
      { key: 'a.txt', size: 3, md5: 'aaa' },
      { key: 'b.txt', size: 3, md5: 'b00' },
      { key: 'c.txt', size: 5, md5: 'ccc' },
      { key: 'gone.txt', size: 9 },
      { key: 'sha.bin', size: 5, metadata: { 'cumulo-sha256': 'ab' } },
      { key: 'é.txt', size: 1, metadata: { 'cumulo-md5': 'EEE' } },
    ]);
    const entries = await collect(bucketToBucket(source.store, destination.store));
    expect(entries).toEqual([
      ['unchanged', 'a.txt'],
      ['copy', 'b.txt'],
      ['copy', 'c.txt'],
      ['delete', 'gone.txt'],
      ['unchanged', 'sha.bin'],
      ['copy', 'z.txt'],
      ['unchanged', 'é.txt'],
    ]);
    // Listings only: not one request per object.
    expect([...source.calls, ...destination.calls]).toEqual(['list ', 'list ']);
  });

  it('asks the destination with a HEAD only where a listing without metadata leaves an equal-size object in doubt', async () => {
    const kmsEtag = 'f'.repeat(32);
    const source = listingStore([
      { key: 'multipart.bin', size: 10, etag: 'abc-2' },
      { key: 'kms.bin', size: 4, etag: kmsEtag, md5: kmsEtag },
      { key: 'rewritten.bin', size: 7, etag: 'x-2' },
      { key: 'resized.bin', size: 5, etag: 'r-2' },
      { key: 'small.txt', size: 2, etag: 'aa', md5: 'aa' },
      { key: 'foreign.bin', size: 3, etag: 'q-2' },
    ]);
    const destination = listingStore(
      [
        // Copied by Cumulo from this very version (its own ETag is another upload's).
        { key: 'multipart.bin', size: 10, etag: 'def-3', metadata: { 'cumulo-source-etag': 'abc-2' } },
        // An SSE-KMS source's listed "MD5" is its ETag, unlike the copy's real MD5: the source version tells.
        {
          key: 'kms.bin',
          size: 4,
          etag: '0'.repeat(32),
          md5: '0'.repeat(32),
          metadata: { 'cumulo-source-etag': kmsEtag },
        },
        // Copied from an older version of the same size.
        { key: 'rewritten.bin', size: 7, etag: 'y-2', metadata: { 'cumulo-source-etag': 'x-1' } },
        { key: 'resized.bin', size: 6, etag: 'r-2', metadata: { 'cumulo-source-etag': 'r-2' } },
        { key: 'small.txt', size: 2, etag: 'aa', md5: 'aa' },
        // Written by another tool: nothing tells, so it is copied.
        { key: 'foreign.bin', size: 3, etag: 'z-2' },
      ],
      2,
      { metadataInListings: false },
    );
    const entries = await collect(bucketToBucket(source.store, destination.store));
    expect(entries).toEqual([
      ['copy', 'foreign.bin'],
      ['unchanged', 'kms.bin'],
      ['unchanged', 'multipart.bin'],
      ['copy', 'resized.bin'],
      ['copy', 'rewritten.bin'],
      ['unchanged', 'small.txt'],
    ]);
    // No HEAD for a size that differs, nor for MD5s that agree; the source is never asked.
    expect(destination.calls.filter((call) => call.startsWith('stat')).sort()).toEqual([
      'stat foreign.bin',
      'stat kms.bin',
      'stat multipart.bin',
      'stat rewritten.bin',
    ]);
    expect(source.calls).toEqual(['list ']);
  });

  it('compares ETags only between the same endpoint', async () => {
    const source = listingStore([{ key: 'x', size: 2, etag: 'e-1' }]);
    const destination = listingStore([{ key: 'x', size: 2, etag: 'e-1' }]);
    const sides = {
      source: { store: source.store, bucket: 's', path: '' },
      destination: { store: destination.store, bucket: 'd', path: '' },
    };
    expect(await collect(diffListings({ ...sides, sameEndpoint: true }))).toEqual([['unchanged', 'x']]);
    expect(await collect(diffListings({ ...sides, sameEndpoint: false }))).toEqual([['copy', 'x']]);
  });

  it('maps a source prefix onto a destination folder and skips the quarantine and folder placeholders', async () => {
    const source = listingStore([
      { key: 'photos/2024/a.jpg', md5: '1' },
      { key: 'photos/2024/', size: 0 },
      { key: 'photos/2024/b.jpg', md5: '2' },
      { key: 'other/c.jpg', md5: '3' },
    ]);
    const destination = listingStore([
      { key: 'backup/2024/a.jpg', md5: '1' },
      { key: 'backup/2024/old.jpg', md5: '4' },
      { key: 'backup/2024/', size: 0 },
      { key: '.cumulo-quarantine/2024-01-01/c/backup/2024/x.jpg', md5: '5' },
      { key: 'backup/elsewhere.jpg', md5: '6' },
    ]);
    const entries = await collect(
      diffListings({
        source: { store: source.store, bucket: 's', path: 'photos/20' },
        destination: { store: destination.store, bucket: 'd', path: 'backup' },
        sameEndpoint: false,
      }),
    );
    expect(entries).toEqual([
      ['unchanged', '2024/a.jpg'],
      ['copy', '2024/b.jpg'],
      ['delete', '2024/old.jpg'],
    ]);
    expect(destination.calls).toEqual(['list backup/20']);
  });

  it('resumes after a cursor: entries up to it are not yielded again', async () => {
    const keys = ['a', 'b', 'c', 'd', 'e'];
    const source = listingStore(keys.map((key) => ({ key, md5: key })));
    const destination = listingStore([{ key: 'b', md5: 'b' }, { key: 'bb' }, { key: 'f' }]);
    const entries = await collect(
      diffListings({
        source: { store: source.store, bucket: 's', path: '' },
        destination: { store: destination.store, bucket: 'd', path: '' },
        sameEndpoint: false,
        after: 'bb',
      }),
    );
    expect(entries).toEqual([
      ['copy', 'c'],
      ['copy', 'd'],
      ['copy', 'e'],
      ['delete', 'f'],
    ]);
  });

  it('merges the source against the state: same size and same source ETag are unchanged, the destination unlisted', async () => {
    const source = listingStore([
      { key: 'photos/a', size: 1, etag: 'e-a' },
      { key: 'photos/b', size: 1, etag: 'e-b2' },
      { key: 'photos/c', size: 2, etag: 'e-c' },
      { key: 'photos/d', size: 1, etag: null },
      { key: 'photos/new', size: 1, etag: 'e-n' },
      { key: 'photos/é', size: 1, etag: 'e-é' },
    ]);
    const rows: StateObject[] = [
      { key: 'a', size: 1, sourceEtag: 'e-a' },
      { key: 'b', size: 1, sourceEtag: 'e-b' },
      { key: 'c', size: 1, sourceEtag: 'e-c' },
      // A destination key a full check found different or alone: never unchanged, even with a null source ETag.
      { key: 'd', size: 1, sourceEtag: null },
      { key: 'gone', size: 7, sourceEtag: 'e-g' },
      { key: 'é', size: 1, sourceEtag: 'e-é' },
    ].sort((x, y) => compareKeys(x.key, y.key));
    const reads: Array<string | null> = [];
    const state = {
      path: 'backup',
      async *pages(after: string | null): AsyncGenerator<StateObject[]> {
        reads.push(after);
        const left = rows.filter((row) => after === null || compareKeys(row.key, after) > 0);
        for (let at = 0; at < left.length; at += 2) yield left.slice(at, at + 2);
      },
    };
    const entries: DiffEntry[] = [];
    for await (const entry of diffListings({
      source: { store: source.store, bucket: 's', path: 'photos/' },
      destination: { state },
      sameEndpoint: false,
    }))
      entries.push(entry);
    expect(entries.map((entry) => [entry.kind, entry.key])).toEqual([
      ['unchanged', 'a'],
      ['copy', 'b'],
      ['copy', 'c'],
      ['copy', 'd'],
      ['delete', 'gone'],
      ['copy', 'new'],
      ['unchanged', 'é'],
    ]);
    // A state row's destination is the key under the destination folder, with its size and no ETag of its own.
    expect(entries.find((entry) => entry.key === 'gone')?.destination).toEqual({
      key: 'backup/gone',
      size: 7,
      etag: null,
    });
    expect(source.calls).toEqual(['list photos/']);

    // Resumed after a cursor, the state is read from after it.
    const resumed = await collect(
      diffListings({
        source: { store: source.store, bucket: 's', path: 'photos/' },
        destination: { state },
        sameEndpoint: false,
        after: 'd',
      }),
    );
    expect(resumed).toEqual([
      ['delete', 'gone'],
      ['copy', 'new'],
      ['unchanged', 'é'],
    ]);
    expect(reads).toEqual([null, 'd']);
  });

  it('says which side a failed listing was', async () => {
    const source = listingStore([{ key: 'a' }]);
    const broken = {
      provider: 'aws',
      // A listing whose first page fails, as a missing bucket's does.
      list: (): AsyncIterable<ListPage> => ({
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.reject(new Error('The specified bucket does not exist')),
        }),
      }),
    } as unknown as ObjectStore;
    const entries = diffListings({
      source: { store: source.store, bucket: 's', path: '' },
      destination: { store: broken, bucket: 'd', path: '' },
      sameEndpoint: false,
    });
    const error = await collect(entries).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListingError);
    expect(error).toMatchObject({ side: 'destination', message: 'The specified bucket does not exist' });
  });

  it('says the destination failed when a HEAD it needed fails', async () => {
    const source = listingStore([{ key: 'a', size: 3, etag: 'a-2' }]);
    const destination = listingStore([{ key: 'a', size: 3, etag: 'b-2' }], 2, { metadataInListings: false });
    destination.store.stat = () => Promise.reject(new Error('The provider could not be reached'));
    const error = await collect(bucketToBucket(source.store, destination.store)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListingError);
    expect(error).toMatchObject({ side: 'destination', message: 'The provider could not be reached' });
  });
});

import { describe, expect, it } from 'vitest';
import { keysOf } from '@cumulo/storage/testing';
import { listingStore } from '../../../../test/listing-store.ts';
import { removeEmptyFolders } from './empty-folders.ts';

const folder = (key: string) => ({ key, size: 0 });
const file = (key: string) => ({ key, size: 10 });

describe('removeEmptyFolders (the source of a completed move)', () => {
  it('deletes the placeholders under a moved root that nothing is left below, and keeps the others', async () => {
    const { store, calls } = listingStore([
      folder('m/'),
      folder('m/a/'),
      file('m/a/written-meanwhile.txt'),
      folder('m/b/'),
      folder('m/b/c/'),
      folder('m/d/'),
      file('m-other.txt'),
      folder('m-other/'),
      folder('n/'),
    ]);

    expect(await removeEmptyFolders(store, 'b', ['m/'])).toBe(3);
    expect(calls.filter((call) => call.startsWith('list'))).toEqual(['list m/']);

    // m/ and m/a/ hold an object written after the move planned; m-other/ and n/ were never moved.
    expect(await keysOf(store, 'b')).toEqual([
      'm-other.txt',
      'm-other/',
      'm/',
      'm/a/',
      'm/a/written-meanwhile.txt',
      'n/',
    ]);
  });

  it('treats a key ending in "/" with content as an object, not a folder', async () => {
    const { store } = listingStore([folder('x/'), { key: 'x/odd/', size: 5 }, folder('x/y/')]);
    expect(await removeEmptyFolders(store, 'b', ['x/'])).toBe(1);
    expect(await keysOf(store, 'b')).toEqual(['x/', 'x/odd/']);
  });

  it('lists a root once when the selection holds it and folders inside it, and empties a whole bucket', async () => {
    const selected = listingStore([folder('a/'), folder('a/b/'), folder('c/')]);
    expect(await removeEmptyFolders(selected.store, 'b', ['a/b/', 'a/'])).toBe(2);
    expect(selected.calls.filter((call) => call.startsWith('list'))).toEqual(['list a/']);
    expect(await keysOf(selected.store, 'b')).toEqual(['c/']);

    const bucket = listingStore([folder('a/'), folder('a/b/'), folder('c/')]);
    expect(await removeEmptyFolders(bucket.store, 'b', [''])).toBe(3);
    expect(await keysOf(bucket.store, 'b')).toEqual([]);
  });
});

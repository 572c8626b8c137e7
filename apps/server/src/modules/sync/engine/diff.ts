import { SYNC_QUARANTINE_PREFIX } from '@cumulo/contract';
import { mapAhead, readAhead, type ObjectInfo, type ObjectStore } from '@cumulo/storage';
import {
  CONTENT_CHECK_CONCURRENCY,
  compareKeys,
  destinationFolder,
  holdsSameContent,
  isFolderPlaceholder,
  relativeKey,
  sourceBase,
} from '../../transfers/engine/keys.ts';

/** One side of a sync: a store, a bucket and the path under it (a prefix for a source, a folder for a destination). */
interface DiffSide {
  store: ObjectStore;
  bucket: string;
  path: string;
}

/** What the job's state (`sync_objects`) says one destination key holds: relative key, and the source's size and
 * ETag it was copied from (null: never to be taken as unchanged). */
export interface StateObject {
  key: string;
  size: number;
  sourceEtag: string | null;
}

/**
 * The destination as Cumulo knows it, instead of listing it: the state's rows in key order (UTF-8 byte order),
 * a page at a time, starting after a relative key (null: from the first).
 */
interface DestinationState {
  /** The job's destination path: a state row's destination key is `destinationFolder(path) + key`. */
  path: string;
  pages(after: string | null): AsyncIterable<StateObject[]>;
}

export interface DiffOptions {
  source: DiffSide;
  /** A store listing (a full check, compared with `holdsSameContent`) or the job's state (compared by size and
   * source ETag). */
  destination: DiffSide | { state: DestinationState };
  /** Same endpoint and credentials on both sides: their ETags are comparable. */
  sameEndpoint: boolean;
  /** A relative key already handled (a diff resumed after its cursor): entries up to it are not yielded. */
  after?: string | null;
}

/**
 * A destination object as the merge saw it: from a listing, or from the state (then `etag` is null, the
 * destination's own ETag being unknown, and `sourceEtag` is the row's).
 */
interface DestinationObject {
  key: string;
  size: number;
  etag: string | null;
}

/**
 * One relative key of the merge. `key` is relative to the source's folder and the destination's folder alike, so
 * the destination key of a copy is `destinationFolder(path) + key`.
 */
export type DiffEntry =
  | { kind: 'unchanged'; key: string; source: ObjectInfo; destination: DestinationObject }
  | { kind: 'copy'; key: string; source: ObjectInfo; destination: DestinationObject | null }
  | { kind: 'delete'; key: string; destination: DestinationObject };

/** A listing of one side failed: which side, and the store's own error. */
export class ListingError extends Error {
  constructor(
    readonly side: 'source' | 'destination',
    readonly storeError: unknown,
  ) {
    super(storeError instanceof Error ? storeError.message : String(storeError));
    this.name = 'ListingError';
  }
}

/**
 * What a sync never copies nor deletes: the quarantine (a diff of a destination must not delete its own
 * quarantine, nor copy another job's quarantine along), and zero-byte folder placeholders, which carry no content
 * (the keys below them recreate the folder).
 */
function ignored(object: ObjectInfo): boolean {
  return object.key.startsWith(SYNC_QUARANTINE_PREFIX) || isFolderPlaceholder(object);
}

/** One side of the merge as a sorted stream, each destination entry with how it compares to a source object. */
interface Sided {
  key: string;
  object: DestinationObject;
  same(source: ObjectInfo): boolean | Promise<boolean>;
}

async function* objectsOf(
  side: DiffSide,
  prefix: string,
  base: string,
  which: 'source' | 'destination',
): AsyncGenerator<{ key: string; object: ObjectInfo }> {
  try {
    // The next page of each side is fetched while the merge works on the current ones.
    for await (const page of readAhead(side.store.list(side.bucket, { prefix }))) {
      for (const object of page.objects) {
        if (!ignored(object)) yield { key: relativeKey(object.key, base), object };
      }
    }
  } catch (error) {
    throw new ListingError(which, error);
  }
}

async function* listedDestination(
  side: DiffSide,
  prefix: string,
  base: string,
  sameEndpoint: boolean,
): AsyncGenerator<Sided> {
  // A HEAD that fails is the destination failing to answer, as its listing would: the same fault for the cycle.
  const destinationFault = (error: unknown) => {
    throw new ListingError('destination', error);
  };
  for await (const { key, object } of objectsOf(side, prefix, base, 'destination')) {
    yield {
      key,
      object,
      same: (source) => {
        const same = holdsSameContent(source, object, side, sameEndpoint);
        return typeof same === 'boolean' ? same : same.catch(destinationFault);
      },
    };
  }
}

/**
 * The state's rows as the destination side: a row is the same as a source object of the same size and the same
 * (non-null) ETag it was copied from. Its next page is read while the merge works on the current one.
 */
async function* stateDestination(state: DestinationState, after: string | null): AsyncGenerator<Sided> {
  const base = destinationFolder(state.path);
  for await (const page of readAhead(state.pages(after))) {
    for (const row of page) {
      const object = { key: base + row.key, size: row.size, etag: null };
      yield {
        key: row.key,
        object,
        same: (source) => source.size === row.size && source.etag !== null && source.etag === row.sourceEtag,
      };
    }
  }
}

/** A merge step: a decided entry, or a key on both sides whose comparison may still need a request. */
type Merged = DiffEntry | { kind: 'both'; key: string; source: ObjectInfo; destination: Sided };

/**
 * The merge of the sorted source listing with the sorted destination (its listing, or the job's state), UTF-8
 * byte order, a page of each side in memory: the same relative key with the same content is unchanged, a source
 * key missing or different at the destination is a copy, and a destination key missing at the source is a delete
 * (whether a delete is allowed is the caller's rule). No request per object, except a HEAD where a full check's
 * listings leave one in doubt (holdsSameContent), several in flight while the merge goes on. Shared by cycles,
 * dry runs and the bench.
 */
export async function* diffListings(options: DiffOptions): AsyncGenerator<DiffEntry> {
  yield* mapAhead(merge(options), CONTENT_CHECK_CONCURRENCY, (entry): DiffEntry | Promise<DiffEntry> => {
    if (entry.kind !== 'both') return entry;
    const { key, source, destination } = entry;
    const decide = (same: boolean): DiffEntry =>
      same
        ? { kind: 'unchanged', key, source, destination: destination.object }
        : { kind: 'copy', key, source, destination: destination.object };
    const same = destination.same(source);
    return typeof same === 'boolean' ? decide(same) : same.then(decide);
  });
}

async function* merge(options: DiffOptions): AsyncGenerator<Merged> {
  const { source, destination, sameEndpoint } = options;
  const after = options.after ?? null;
  const base = sourceBase(source.path);
  const sources = objectsOf(source, source.path, base, 'source');
  let destinations: AsyncGenerator<Sided>;
  if ('state' in destination) {
    // Rows up to the cursor would not be yielded anyway: the state is read from after it.
    destinations = stateDestination(destination.state, after);
  } else {
    const destinationBase = destinationFolder(destination.path);
    destinations = listedDestination(
      destination,
      destinationBase + relativeKey(source.path, base),
      destinationBase,
      sameEndpoint,
    );
  }
  const done = (key: string) => after !== null && compareKeys(key, after) <= 0;
  try {
    let s = await sources.next();
    let d = await destinations.next();
    while (!s.done || !d.done) {
      const order = s.done ? 1 : d.done ? -1 : compareKeys(s.value.key, d.value.key);
      if (order < 0 && !s.done) {
        const { key, object } = s.value;
        if (!done(key)) yield { kind: 'copy', key, source: object, destination: null };
        s = await sources.next();
      } else if (order > 0 && !d.done) {
        const { key, object } = d.value;
        if (!done(key)) yield { kind: 'delete', key, destination: object };
        d = await destinations.next();
      } else if (!s.done && !d.done) {
        const { key, object } = s.value;
        if (!done(key)) yield { kind: 'both', key, source: object, destination: d.value };
        s = await sources.next();
        d = await destinations.next();
      }
    }
  } finally {
    await sources.return(undefined);
    await destinations.return(undefined);
  }
}

import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { PART_LIMITS, SINGLE_REQUEST_MAX, StorageError, type ObjectInfo } from '@cumulo/storage';
import {
  CHECKSUM_MISMATCH,
  MD5_METADATA,
  SOURCE_CHANGED,
  SOURCE_ETAG_METADATA,
  SHA256_METADATA,
  carriedMetadata,
  comparableMd5,
  contentOf,
  discardDestination,
  failure,
  isUnsupported,
  readSource,
  sourceChecksums,
  sourceTags,
  sourceVersionOf,
  statDestination,
  statSource,
  unchangedSource,
  writeWithTags,
} from './copy-steps.ts';
import { CopyError, type CopyResult, type CopyTask } from './copy-task.ts';
import { DEFAULT_TRANSFER_MEMORY, MemoryBudget } from './memory-budget.ts';
import { copyInParts, forget, serverCopyInParts, type PartsSettings } from './parts-copy.ts';
import { matchesPartsMd5, PartsMd5, sourcePartSize, sourcePartsAre } from './source-parts.ts';
import { destinationGates, type ThrottleGate, type ThrottleGates } from './throttle.ts';

export interface CopyOptions {
  /** Parts in flight per object (default 4), each with its buffer until it is hashed. */
  partConcurrency?: number;
  /** Forced part size (raised to the destination's minimum and part-count limit). */
  partSize?: number;
  /** At or below this size an object is copied in one request through memory (default 8 MiB). */
  singleMax?: number;
  /** At or below this size a server-side copy is one call (S3 CopyObject stops at 5 GiB); above, part copies. */
  serverCopyMax?: number;
  /** Backoff gates shared by every copy to a destination (default: this process's). */
  gates?: ThrottleGates;
  /** The copy buffers every object in flight shares (default: this process's, of DEFAULT_TRANSFER_MEMORY). */
  memory?: MemoryBudget;
}

const processMemory = new MemoryBudget(DEFAULT_TRANSFER_MEMORY);

export const DEFAULT_PART_CONCURRENCY = 4;

interface Settings extends PartsSettings {
  singleMax: number;
  serverCopyMax: number;
}

function settingsOf(task: CopyTask, options: CopyOptions): Settings {
  const { destination } = task;
  return {
    concurrency: Math.max(1, options.partConcurrency ?? DEFAULT_PART_CONCURRENCY),
    partSize: options.partSize,
    singleMax: options.singleMax ?? SINGLE_REQUEST_MAX,
    serverCopyMax: options.serverCopyMax ?? PART_LIMITS.s3.maxPart,
    gate: (options.gates ?? destinationGates).gateFor(destination.endpointKey, destination.bucket),
    memory: options.memory ?? processMemory,
  };
}

/**
 * Copies one object and verifies it: the destination holds exactly the source's bytes (size always; MD5 where
 * the source exposes a comparable one; otherwise a SHA-256 computed while streaming, kept in the destination's
 * `cumulo-sha256` metadata). Resolves only for a verified copy; rejects with CopyError, or with the task
 * signal's reason when aborted. An aborted or failed parts copy leaves its upload and ledger in place for the
 * next attempt to resume from (the executor may call abandonCopy instead); `task.item` is kept in step with the
 * ledger (method, uploadId, partSize).
 */
export async function copyObject(task: CopyTask, options: CopyOptions = {}): Promise<CopyResult> {
  const settings = settingsOf(task, options);
  try {
    task.signal.throwIfAborted();
    return await chooseAndCopy(task, settings);
  } catch (error) {
    throw failure(task, error);
  }
}

async function chooseAndCopy(task: CopyTask, settings: Settings): Promise<CopyResult> {
  const { item, source, destination } = task;
  const parts = destination.store.capabilities.parts;
  if (parts && item.uploadId && item.method === 'parts') return copyInParts(task, parts, settings);
  if (source.endpointKey === destination.endpointKey) {
    const copied = await serverCopy(task, settings);
    if (copied) return copied;
  }
  if (item.size <= settings.singleMax) return copySingle(task, settings);
  if (parts) return copyInParts(task, parts, settings);
  return copyStream(task, settings.gate);
}

/**
 * Same endpoint and credentials: the store copies by itself and no byte passes through the worker. Null when
 * the store cannot (the caller then copies the bytes).
 *
 * A copy in one call asks nothing beforehand when the listing told the source's MD5: the copy is conditional on
 * the listed ETag (the store refuses a changed source) and verified by the MD5 in the store's answer — one
 * request per object. Without a listed MD5, the source's stat gives the checksums to compare, and the
 * destination's stat what was written.
 */
async function serverCopy(task: CopyTask, settings: Settings): Promise<CopyResult | null> {
  const { item, source, destination } = task;
  const parts = destination.store.capabilities.parts;
  const resuming = item.method === 'server-copy' && item.uploadId !== null;
  // Azure's copy from URL runs inside Azure for any size; S3's CopyObject stops at serverCopyMax.
  const inOneCall =
    !resuming && (destination.store.provider === 'azure' || item.size <= settings.serverCopyMax);
  if (!inOneCall) {
    return parts ? serverCopyInParts(task, parts, settings, await statSource(task), isUnsupported) : null;
  }
  const listedMd5 = comparableMd5(item.sourceMd5);
  const stated = listedMd5 ? null : await statSource(task);
  let expected = stated ? sourceChecksums(stated, item.sourceMd5) : { md5: listedMd5, sha256: null };
  let copied: { md5: string | null };
  try {
    copied = await settings.gate.call(
      () =>
        destination.store.copy(
          { bucket: source.bucket, key: item.sourceKey },
          { bucket: destination.bucket, key: item.destinationKey },
          {
            size: item.size,
            ...(item.sourceEtag ? { ifMatch: item.sourceEtag } : {}),
            // A source without an MD5 (multipart, Azure without Content-MD5) gets a copy whose own checksums will
            // not compare with it either: the copy records the source version, as a copy through the worker does,
            // so that a later Skip Existing Files knows it. A source with an MD5 keeps it in its copy.
            ...(stated ? { addMetadata: sourceVersionOf(stated) } : {}),
          },
        ),
      task.signal,
    );
  } catch (error) {
    if (isUnsupported(error)) return null;
    if (error instanceof StorageError && error.status === 412) throw new CopyError(SOURCE_CHANGED, true);
    throw error;
  }
  task.onBytes(item.size);
  // The copy's own answer tells its MD5 (S3's single-part ETag, GCS): no HEAD. Otherwise look at the destination.
  const written =
    expected.md5 !== null && copied.md5 !== null ? copied.md5 : (await statDestination(task)).md5;
  // A single CopyObject of a single-part object keeps its MD5 ETag: compare when both sides expose one.
  if (listedMd5 && written !== null && written !== listedMd5) {
    // The listed "MD5" may be the ETag of an SSE-KMS or SSE-C object, which is no MD5: the source's own answer
    // says which (sourceChecksums), at the cost of a HEAD on this path only.
    try {
      expected = sourceChecksums(await statSource(task), item.sourceMd5);
      // Not comparable after all: the size is what is left to check, as for any copy without an MD5.
      if (expected.md5 === null) await statDestination(task);
    } catch (error) {
      // A source that changed since the listing (a server ignoring the copy's condition) leaves no copy behind.
      await discardDestination(task);
      throw error;
    }
  }
  const comparable = expected.md5 !== null && written !== null;
  if (comparable && written !== expected.md5) {
    await discardDestination(task);
    throw new CopyError(CHECKSUM_MISMATCH, true);
  }
  if (!comparable && !stated) await recordSourceVersion(task, settings.gate);
  return {
    method: 'server-copy',
    md5: comparable ? expected.md5 : null,
    sha256: expected.sha256,
    verifiedBy: comparable ? 'md5' : 'server-copy',
  };
}

/**
 * A copy inside one store that no MD5 verified (an SSE-KMS or SSE-C side, whose ETag is no MD5: known only from
 * the copy's answers) will not compare with its source next time either, so a Skip Existing Files or a sync would
 * copy it again on every run. It gets the source version a copy through the worker carries, by a copy of itself
 * with the record added (S3: HEAD and CopyObject REPLACE, no byte through the worker). The planned ETag is the
 * version copied: the copy was conditional on it and the source's answers matched it. The copy is verified
 * already: a record the store refuses costs a later run a copy, not this item its success.
 */
async function recordSourceVersion(task: CopyTask, gate: ThrottleGate): Promise<void> {
  const { item, destination } = task;
  if (!item.sourceEtag) return;
  const copy = { bucket: destination.bucket, key: item.destinationKey };
  try {
    await gate.call(
      () =>
        destination.store.copy(copy, copy, {
          addMetadata: { [SOURCE_ETAG_METADATA]: item.sourceEtag ?? '' },
        }),
      task.signal,
    );
  } catch (error) {
    task.signal.throwIfAborted();
    if (!(error instanceof StorageError)) throw error;
  }
}

/**
 * Small objects: read whole into memory, checked against the source's checksums before anything is written,
 * then written in one request whose Content-MD5 the store checks on arrival.
 */
async function copySingle(task: CopyTask, settings: Settings): Promise<CopyResult> {
  const memory = await settings.memory.lease(task.item.size, 1, task.signal);
  try {
    return await copySingleIn(memory.buffer(), task, settings.gate);
  } finally {
    memory.release();
  }
}

async function copySingleIn(buffer: Buffer, task: CopyTask, gate: ThrottleGate): Promise<CopyResult> {
  const { item, destination } = task;
  // One GET tells the source's info with its bytes (S3, Azure); a store whose read answer lacks it is asked after.
  let reported: ObjectInfo | undefined;
  const bytes = await readSource(task, null, task.signal, {
    onInfo: (info) => (reported = info),
    into: buffer,
  });
  const info = reported ? unchangedSource(task, reported) : await statSource(task);
  const expected = sourceChecksums(info, item.sourceMd5);
  const md5 = createHash('md5').update(bytes).digest('hex');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if ((expected.md5 && md5 !== expected.md5) || (expected.sha256 && sha256 !== expected.sha256)) {
    throw new CopyError(CHECKSUM_MISMATCH, true);
  }
  // A source uploaded in parts has no MD5 to compare: its parts ETag is checked instead, where its layout is told.
  const partSize = expected.md5 ? null : await sourcePartSize(task, info);
  let partsChecked = false;
  if (partSize !== null) {
    const parts = new PartsMd5(partSize);
    parts.update(bytes);
    partsChecked = matchesPartsMd5(info, parts.digest());
    if (!partsChecked && (await sourcePartsAre(task, partSize))) throw new CopyError(CHECKSUM_MISMATCH, true);
  }
  const tags = await sourceTags(task, info);
  const written = await gate.call(
    () =>
      writeWithTags(tags, (carried) =>
        destination.store.write(destination.bucket, item.destinationKey, bytes, {
          ...contentOf(info),
          md5,
          sha256,
          metadata: { ...carriedMetadata(info), [SHA256_METADATA]: sha256 },
          ...(carried ? { tags: carried } : {}),
          size: bytes.length,
          signal: task.signal,
        }),
      ),
    task.signal,
  );
  task.onBytes(bytes.length);
  // The store checked our MD5 against what it received and stored: the destination holds exactly these bytes,
  // and a HEAD would tell nothing more. Otherwise look.
  if (!written.md5Checked) {
    const stored = await statDestination(task);
    if (stored.md5 !== null && stored.md5 !== md5) {
      await discardDestination(task);
      throw new CopyError(CHECKSUM_MISMATCH, true);
    }
  }
  return {
    method: 'single',
    md5,
    sha256,
    verifiedBy: expected.md5 ? 'md5' : partsChecked ? 'parts-md5' : 'sha256',
  };
}

/**
 * Destinations without parts (GCS): one streaming write with the bytes hashed on the way: their MD5 (the
 * destination's own MD5 must match it), and to check them against the source its MD5, else its parts ETag in its
 * part sizes, else a SHA-256 recorded with the item. Not resumable across a crash (GCS resumable sessions are not
 * exposed by the contract), and the hashes are known only once the object exists, too late for its metadata: such
 * objects carry `cumulo-md5` (when the source had one), the source version and GCS's own MD5, which is
 * comparable. A mismatch found after the write removes the object.
 */
async function copyStream(
  task: CopyTask,
  gate: ThrottleGate,
  options: { sourceParts: boolean } = { sourceParts: true },
): Promise<CopyResult> {
  const { item, source, destination } = task;
  const info = await statSource(task);
  const expected = sourceChecksums(info, item.sourceMd5);
  // A source uploaded in parts is checked against its parts ETag, hashed in its part sizes on the way; the
  // SHA-256 pass is then not needed, as with a source MD5.
  const partSize = expected.md5 || !options.sourceParts ? null : await sourcePartSize(task, info);
  let reported = 0;
  const digest = await gate.call(async () => {
    // A throttled attempt starts the stream over, so the hashes start over with it.
    const md5 = createHash('md5');
    const sha256 = expected.md5 || partSize !== null ? null : createHash('sha256');
    const parts = partSize === null ? null : new PartsMd5(partSize);
    const body = await source.store.read(source.bucket, item.sourceKey, { signal: task.signal });
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        sha256?.update(chunk);
        parts?.update(chunk);
        if (!task.pace) return done(null, chunk);
        task.pace(chunk.length, task.signal).then(
          () => done(null, chunk),
          (error: unknown) => done(error as Error),
        );
      },
    });
    body.on('error', (error) => hashing.destroy(error));
    await destination.store.write(destination.bucket, item.destinationKey, body.pipe(hashing), {
      ...contentOf(info),
      metadata: { ...carriedMetadata(info), ...(expected.md5 ? { [MD5_METADATA]: expected.md5 } : {}) },
      size: item.size,
      signal: task.signal,
      onProgress: (written) => {
        if (written > reported) task.onBytes(written - reported);
        reported = Math.max(reported, written);
      },
    });
    return { md5: md5.digest('hex'), sha256: sha256?.digest('hex') ?? null, parts: parts?.digest() ?? null };
  }, task.signal);
  const written = await statDestination(task);
  if ((expected.md5 && digest.md5 !== expected.md5) || (written.md5 && written.md5 !== digest.md5)) {
    await discardDestination(task);
    throw new CopyError(CHECKSUM_MISMATCH, true);
  }
  if (partSize !== null && digest.parts && !matchesPartsMd5(info, digest.parts)) {
    if (await sourcePartsAre(task, partSize)) {
      await discardDestination(task);
      throw new CopyError(CHECKSUM_MISMATCH, true);
    }
    // Parts of unequal sizes: nothing is known of the bytes but what the destination says; copied again, hashed.
    return copyStream(task, gate, { sourceParts: false });
  }
  return {
    method: 'stream',
    md5: digest.md5,
    sha256: digest.sha256,
    verifiedBy: expected.md5 ? 'md5' : partSize !== null ? 'parts-md5' : 'sha256',
  };
}

/**
 * Gives up on an interrupted copy: aborts the destination's multipart upload (its parts are billed storage until
 * then) and clears the ledger. For cancel, or when the executor decides not to resume.
 */
export async function abandonCopy(task: CopyTask): Promise<void> {
  const { item, destination } = task;
  const parts = destination.store.capabilities.parts;
  if (parts && item.uploadId) {
    await parts.abort({ bucket: destination.bucket, key: item.destinationKey, uploadId: item.uploadId });
  }
  await forget(task);
}

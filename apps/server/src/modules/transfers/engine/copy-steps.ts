import { createHash } from 'node:crypto';
import { StorageError, type ContentHeaders, type ObjectInfo } from '@cumulo/storage';
import { CopyError, type CopyTask } from './copy-task.ts';

/** Metadata names Cumulo writes on copied objects (lower case: every adapter hands metadata back lower-cased). */
export const SHA256_METADATA = 'cumulo-sha256';
export const MD5_METADATA = 'cumulo-md5';
/**
 * The ETag of the source version a copy holds. A later "Skip Existing Files" or full check finds the copy up to
 * date when the source still has that ETag, where no checksum of the two sides compares: a multipart or SSE-KMS
 * source has no MD5 a listing could show, and its destination's own is another upload's.
 */
export const SOURCE_ETAG_METADATA = 'cumulo-source-etag';

export const SOURCE_CHANGED = 'The source object changed during the copy';
export const CHECKSUM_MISMATCH = 'The copied bytes do not match the checksum of the source object';

const HEX_MD5 = /^[0-9a-f]{32}$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

export const md5Hex = (bytes: Buffer): string => createHash('md5').update(bytes).digest('hex');

/** What the source says about its content: a comparable MD5 and an earlier copy's SHA-256, each when known. */
export interface SourceChecksums {
  md5: string | null;
  sha256: string | null;
}

/** A hex MD5 in lower case, or null for anything else (a multipart ETag, an Azure ETag, nothing). */
export function comparableMd5(value: string | null | undefined): string | null {
  return value && HEX_MD5.test(value.toLowerCase()) ? value.toLowerCase() : null;
}

export function sourceChecksums(info: ObjectInfo, plannedMd5: string | null): SourceChecksums {
  const candidates = [info.md5, info.metadata[MD5_METADATA], listedMd5Of(info, plannedMd5)];
  const md5 = candidates.map(comparableMd5).find((value) => value !== null);
  const sha256 = info.metadata[SHA256_METADATA];
  return {
    md5: md5 ?? null,
    sha256: sha256 && HEX_SHA256.test(sha256.toLowerCase()) ? sha256.toLowerCase() : null,
  };
}

/**
 * The MD5 the listing told, unless the object's own answer says otherwise: a listing shows an S3 ETag as it is,
 * and an object encrypted with SSE-KMS or a customer key has a 32-hex ETag that is not its MD5. When the object's
 * answer carries that same ETag and no MD5, the listed value was the ETag, not a checksum.
 */
function listedMd5Of(info: ObjectInfo, plannedMd5: string | null): string | null {
  const listed = comparableMd5(plannedMd5);
  if (listed !== null && info.md5 === null && comparableMd5(info.etag) === listed) return null;
  return listed;
}

/**
 * Metadata a copy of the bytes carries: the user metadata of the source without Cumulo's checksums of it (the
 * copy states its own), and the source version it was made from.
 */
export function carriedMetadata(info: ObjectInfo): Record<string, string> {
  const metadata = { ...info.metadata };
  delete metadata[SHA256_METADATA];
  delete metadata[MD5_METADATA];
  return { ...metadata, ...sourceVersionOf(info) };
}

/**
 * The source's content type and content headers, which the copy is written with: a copy that lost its
 * Content-Encoding would serve compressed bytes as if they were plain, one that lost its Content-Disposition a
 * download without its name. Cache-Control and Content-Language travel too, as rclone's --metadata and DataSync
 * carry them.
 */
export function contentOf(info: ObjectInfo): { contentType?: string; contentHeaders?: ContentHeaders } {
  return {
    ...(info.contentType ? { contentType: info.contentType } : {}),
    ...(info.contentHeaders ? { contentHeaders: info.contentHeaders } : {}),
  };
}

/** The source version as metadata, when the source has an ETag. */
export function sourceVersionOf(info: ObjectInfo): Record<string, string> {
  return info.etag ? { [SOURCE_ETAG_METADATA]: info.etag } : {};
}

/**
 * The source's object tags, for a destination that keeps tags (`objectTags` on both sides: S3 tag sets, Azure
 * blob index tags): asked for only when the source's GET or HEAD counted some, which S3 tells only a key allowed
 * to read them. S3's CopyObject keeps them by itself; an upload in parts starts with none.
 */
export async function sourceTags(
  task: CopyTask,
  info: ObjectInfo,
): Promise<Record<string, string> | undefined> {
  const tags = task.source.store.capabilities.objectTags;
  if (!info.tagCount || !tags || !task.destination.store.capabilities.objectTags) return undefined;
  return tags.get(task.source.bucket, task.item.sourceKey);
}

/**
 * Answers that may mean "not with these tags": a key allowed to write but not to tag (s3:PutObjectTagging:
 * AccessDenied), a store that does not take `x-amz-tagging` (501 NotImplemented), tags its rules refuse (400
 * InvalidTag).
 */
const TAG_REFUSALS = new Set([400, 403, 501]);

/**
 * Runs a write (a PutObject, or the start of an upload in parts) with the source's tags. When the destination
 * refuses the whole write in a way the tags may have caused, it is sent once more without them: the object is
 * copied as every copy was before tags travelled, rather than failed for its tags. A refusal that was not about
 * the tags comes back from that second write.
 */
export async function writeWithTags<T>(
  tags: Record<string, string> | undefined,
  write: (tags: Record<string, string> | undefined) => Promise<T>,
): Promise<T> {
  if (!tags || Object.keys(tags).length === 0) return write(undefined);
  try {
    return await write(tags);
  } catch (error) {
    if (error instanceof StorageError && error.status !== null && TAG_REFUSALS.has(error.status))
      return write(undefined);
    throw error;
  }
}

/**
 * Store errors become the item's error. Throttling, network trouble and unknown answers may pass on a later
 * attempt; a missing object or bucket, refused credentials or an unsupported call will not.
 */
export function toCopyError(error: unknown): CopyError {
  if (error instanceof CopyError) return error;
  if (error instanceof StorageError) {
    const retryable = error.code === 'Throttled' || error.code === 'Network' || error.code === 'Unknown';
    return new CopyError(error.message, retryable, { cause: error });
  }
  return new CopyError(error instanceof Error ? error.message : String(error), true, { cause: error });
}

/** A cancelled copy rejects with the task's own abort reason, so the executor can tell it from a failure. */
export function failure(task: CopyTask, error: unknown): unknown {
  return task.signal.aborted ? task.signal.reason : toCopyError(error);
}

/** True when the store does not offer a server-side call at all (s3rver answers UploadPartCopy with 501). */
export function isUnsupported(error: unknown): boolean {
  return (
    error instanceof StorageError &&
    (error.code === 'Unsupported' || error.status === 501 || error.status === 405)
  );
}

/** The source as it is now; its ETag and size must still be the planned ones. */
export async function statSource(task: CopyTask): Promise<ObjectInfo> {
  const { source, item } = task;
  const info = await source.store.stat(source.bucket, item.sourceKey);
  if (!info) throw new CopyError('The source object no longer exists', false);
  return unchangedSource(task, info);
}

/** The source's info (from a stat or a read's answer) must still match what was planned. */
export function unchangedSource(task: CopyTask, info: ObjectInfo): ObjectInfo {
  const { item } = task;
  if (info.size !== item.size || (item.sourceEtag && info.etag && info.etag !== item.sourceEtag)) {
    throw new CopyError(SOURCE_CHANGED, true);
  }
  return info;
}

/** The destination after the write: it must hold exactly the item's size. */
export async function statDestination(task: CopyTask): Promise<ObjectInfo> {
  const { destination, item } = task;
  const info = await destination.store.stat(destination.bucket, item.destinationKey);
  if (!info) throw new CopyError('The copied object is missing at the destination', true);
  if (info.size !== item.size) {
    throw new CopyError(`The destination holds ${info.size} bytes where the source has ${item.size}`, true);
  }
  return info;
}

/** Removes a destination object that failed verification, so nothing unverified is left looking complete. */
export async function discardDestination(task: CopyTask): Promise<void> {
  const { destination, item } = task;
  await destination.store.deleteMany(destination.bucket, [item.destinationKey]).catch(() => undefined);
}

/**
 * Source bytes read whole into memory: one byte range (inclusive), or the whole object when `range` is null.
 * A short or long answer is a failed read, never a silently different object. `into` is the buffer to read into
 * (a leased one, see MemoryBudget), at least as long as what is read; the answer is a view of it.
 */
export async function readSource(
  task: CopyTask,
  range: { start: number; end: number } | null,
  signal: AbortSignal,
  options: { onInfo?: (info: ObjectInfo) => void; into?: Buffer } = {},
): Promise<Buffer> {
  const { source, item } = task;
  const { onInfo, into } = options;
  const expected = range ? range.end - range.start + 1 : item.size;
  if (into && into.length < expected)
    throw new RangeError(`a ${into.length}-byte buffer cannot hold ${expected}`);
  const stream = await source.store.read(source.bucket, item.sourceKey, {
    ...(range ? { range } : {}),
    signal,
    ...(onInfo ? { onInfo } : {}),
  });
  const bytes = into ? into.subarray(0, expected) : Buffer.allocUnsafe(expected);
  let filled = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (filled + chunk.length > expected) {
      stream.destroy();
      throw new CopyError(SOURCE_CHANGED, true);
    }
    chunk.copy(bytes, filled);
    filled += chunk.length;
    // The stream stays paused while the limit holds it back, so the source slows down with it.
    if (task.pace) await task.pace(chunk.length, signal);
  }
  if (filled !== expected) {
    throw new CopyError(`The source sent ${filled} bytes where ${expected} were asked for`, true);
  }
  return bytes;
}

import { StorageError, type ContentHeaders, type ObjectInfo } from '@cumulo/storage';
import type { CopyTask } from './copy-task.ts';

/**
 * What a copy carries besides the bytes: the content headers, the user metadata, the source version, the object
 * tags. A leaf of the copy methods (`methods/`).
 */

/** Metadata names Cumulo writes on copied objects (lower case: every adapter hands metadata back lower-cased). */
export const SHA256_METADATA = 'cumulo-sha256';
export const MD5_METADATA = 'cumulo-md5';
/**
 * The ETag of the source version a copy holds. A later "Skip Existing Files" or full check finds the copy up to
 * date when the source still has that ETag, where no checksum of the two sides compares: a multipart or SSE-KMS
 * source has no MD5 a listing could show, and its destination's own is another upload's.
 */
export const SOURCE_ETAG_METADATA = 'cumulo-source-etag';

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

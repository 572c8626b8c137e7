import { StorageError, type ObjectInfo, type ObjectStore } from '@cumulo/storage';
import { MD5_METADATA, SHA256_METADATA, SOURCE_ETAG_METADATA } from './metadata-tags.ts';

/**
 * Where a source key lands. Keys keep their path relative to the folder the source path names: a folder
 * ('photos/') or the folder of a prefix ('photos/20' → 'photos/'), so copying prefix 'photos/20' to 'backup/'
 * writes 'photos/2024/a.jpg' as 'backup/2024/a.jpg'.
 */
export function sourceBase(sourcePath: string): string {
  return sourcePath.slice(0, sourcePath.lastIndexOf('/') + 1);
}

/** A non-empty destination path is a folder. */
export function destinationFolder(destinationPath: string): string {
  return destinationPath === '' || destinationPath.endsWith('/') ? destinationPath : `${destinationPath}/`;
}

export function relativeKey(key: string, base: string): string {
  return key.startsWith(base) ? key.slice(base.length) : key;
}

/** Listings are in UTF-8 byte order (ListPage), which JavaScript's UTF-16 string order is not. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** An S3 ETag of an object uploaded in parts: the MD5 of the parts' MD5s and the part count. */
const PARTS_ETAG = /^[0-9a-f]{32}-\d+$/i;

/**
 * Whether the destination already holds the source's content, from what the two objects' infos tell without a
 * request: size, then the source version the destination was copied from (Cumulo's `cumulo-source-etag`), then
 * the same parts ETag on both sides, then the strongest checksum both expose (MD5 both ways, else Cumulo's own
 * checksum metadata), else the ETag when both sides are the same endpoint (same store, same ETag rule).
 */
export function sameContent(source: ObjectInfo, destination: ObjectInfo, sameEndpoint: boolean): boolean {
  if (source.size !== destination.size) return false;
  // A copy Cumulo verified, of this very version: also where no checksum compares (multipart, SSE-KMS sources).
  if (source.etag !== null && destination.metadata[SOURCE_ETAG_METADATA] === source.etag) return true;
  // The same bytes uploaded in the same parts, on any two S3 stores: a copy Cumulo wrote in the source's own parts
  // (methods/parallel-parts.ts), or two uploads by tools with one part size. Listings show it, so no HEAD is needed.
  if (source.etag !== null && PARTS_ETAG.test(source.etag) && source.etag === destination.etag) return true;
  const sourceMd5 = source.md5 ?? source.metadata[MD5_METADATA] ?? null;
  const destinationMd5 = destination.md5 ?? destination.metadata[MD5_METADATA] ?? null;
  if (sourceMd5 && destinationMd5) return sourceMd5.toLowerCase() === destinationMd5.toLowerCase();
  const sourceSha = source.metadata[SHA256_METADATA];
  const destinationSha = destination.metadata[SHA256_METADATA];
  if (sourceSha && destinationSha) return sourceSha.toLowerCase() === destinationSha.toLowerCase();
  return sameEndpoint && source.etag !== null && source.etag === destination.etag;
}

/** HEADs in flight while a listing is compared: a few of its objects need one, most none. */
export const CONTENT_CHECK_CONCURRENCY = 16;

/**
 * sameContent, and when the listings leave an object of equal size in doubt, the destination's own answer: an
 * S3 listing shows no user metadata, where Cumulo keeps the source version and checksums of what it copied. One
 * HEAD, only for an object that would otherwise be copied again whole (and only when that store's listings do
 * not carry metadata); every other answer is given at once, without a promise. A destination that refuses the
 * HEAD is copied, as it would have been without one.
 */
export function holdsSameContent(
  source: ObjectInfo,
  destination: ObjectInfo,
  side: { store: ObjectStore; bucket: string },
  sameEndpoint: boolean,
): boolean | Promise<boolean> {
  if (sameContent(source, destination, sameEndpoint)) return true;
  if (source.size !== destination.size || side.store.capabilities.metadataInListings) return false;
  return side.store.stat(side.bucket, destination.key).then(
    (stated) => stated !== null && sameContent(source, stated, sameEndpoint),
    (error: unknown) => {
      if (error instanceof StorageError && error.code === 'AccessDenied') return false;
      throw error;
    },
  );
}

/**
 * A folder placeholder: the zero-byte "a/" object that S3 consoles and Azure Storage Explorer write to show an
 * empty folder. It carries no content: copies and syncs leave it out (the keys below it recreate the folder), and
 * a completed move removes the ones it leaves behind in its source (empty-folders.ts).
 */
export function isFolderPlaceholder(object: { key: string; size: number }): boolean {
  return object.key.endsWith('/') && object.size === 0;
}

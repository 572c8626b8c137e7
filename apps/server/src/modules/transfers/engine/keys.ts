import type { ObjectInfo } from '@cumulo/storage';

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

/**
 * Whether the destination already holds the source's content, without a HEAD per object: size, then the
 * strongest checksum both listings expose (MD5 both ways, else Cumulo's own checksum metadata), else the ETag
 * when both sides are the same endpoint (same store, same ETag rule).
 */
export function sameContent(source: ObjectInfo, destination: ObjectInfo, sameEndpoint: boolean): boolean {
  if (source.size !== destination.size) return false;
  const sourceMd5 = source.md5 ?? source.metadata['cumulo-md5'] ?? null;
  const destinationMd5 = destination.md5 ?? destination.metadata['cumulo-md5'] ?? null;
  if (sourceMd5 && destinationMd5) return sourceMd5.toLowerCase() === destinationMd5.toLowerCase();
  const sourceSha = source.metadata['cumulo-sha256'];
  const destinationSha = destination.metadata['cumulo-sha256'];
  if (sourceSha && destinationSha) return sourceSha.toLowerCase() === destinationSha.toLowerCase();
  return sameEndpoint && source.etag !== null && source.etag === destination.etag;
}

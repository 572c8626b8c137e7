import { createHash, type Hash } from 'node:crypto';
import { StorageError, type ObjectInfo } from '@cumulo/storage';
import type { CopyTask } from './copy-task.ts';

/**
 * A source uploaded in parts, and the check of a copy against its parts ETag.
 *
 * Most large objects are uploaded in parts, and S3's ETag of such an object is the MD5 of its parts' MD5s and the
 * part count (`ObjectInfo.partsMd5`), not the MD5 of its bytes. Hashing the bytes read in the source's own part
 * sizes gives that ETag again: the one check of the bytes against the source a multipart object allows. The part
 * size is taken from where part 1 ends and assumed uniform, as every tool uploads; when the check fails,
 * `sourcePartsAre` tells a wrong assumption (parts of unequal sizes) from wrong bytes.
 */

/** Part look-ups in flight while a source's layout is checked after a mismatch. */
const LAYOUT_CHECKS = 8;

/** The parts ETag digest of part MD5s given in part order (hex or raw). */
export function partsMd5Of(md5s: Array<string | Buffer>): string {
  const hash = createHash('md5');
  for (const md5 of md5s) hash.update(typeof md5 === 'string' ? Buffer.from(md5, 'hex') : md5);
  return hash.digest('hex');
}

/** MD5s of consecutive parts of `partSize` bytes of a stream fed in order, and the parts ETag they make. */
export class PartsMd5 {
  readonly #md5s: Buffer[] = [];
  #hash: Hash = createHash('md5');
  #inPart = 0;

  constructor(readonly partSize: number) {
    if (!(partSize > 0)) throw new RangeError('a part holds at least a byte');
  }

  update(chunk: Buffer): void {
    for (let at = 0; at < chunk.length;) {
      const take = Math.min(chunk.length - at, this.partSize - this.#inPart);
      this.#hash.update(chunk.subarray(at, at + take));
      this.#inPart += take;
      at += take;
      if (this.#inPart === this.partSize) this.#endPart();
    }
  }

  /** The MD5 of the part MD5s (hex) and the part count, the last part being what was fed after the others. */
  digest(): { md5: string; parts: number } {
    if (this.#inPart > 0) this.#endPart();
    return { md5: partsMd5Of(this.#md5s), parts: this.#md5s.length };
  }

  #endPart(): void {
    this.#md5s.push(this.#hash.digest());
    this.#hash = createHash('md5');
    this.#inPart = 0;
  }
}

/** True when the digest of the bytes read is the source's parts ETag. */
export function matchesPartsMd5(info: ObjectInfo, digest: { md5: string; parts: number }): boolean {
  return (
    info.partsMd5 !== undefined && info.partsMd5.md5 === digest.md5 && info.partsMd5.parts === digest.parts
  );
}

/**
 * The part size of a source uploaded in parts, when its store tells its parts ETag and where its first part
 * ends (one HeadObject with partNumber=1; none for an object of one part); null otherwise. The other parts are
 * assumed to be of that size, but for the last. A store that refuses the question (an S3-compatible server
 * without `partNumber`) is not asked to be checked this way: the copy goes on as for any other source.
 */
export async function sourcePartSize(task: CopyTask, info: ObjectInfo): Promise<number | null> {
  const count = info.partsMd5?.parts;
  if (!count) return null;
  if (count === 1) return info.size > 0 ? info.size : null;
  const statPart = task.source.store.capabilities.partLayout?.statPart;
  if (!statPart) return null;
  const first = await statPart(task.source.bucket, task.item.sourceKey, 1).catch((error: unknown) => {
    task.signal.throwIfAborted();
    if (error instanceof StorageError && error.code === 'ObjectNotFound') throw error;
    return null;
  });
  if (!first || first.start !== 0 || first.parts !== count || first.etag !== info.etag) return null;
  const size = first.size;
  const fits = size > 0 && (count - 1) * size < info.size && info.size <= count * size;
  return fits ? size : null;
}

/**
 * Whether every part of the source lies where parts of `partSize` put it: asked part by part, after the bytes
 * read failed to give the source's parts ETag. True means the bytes were wrong; false that the parts were not of
 * one size, and nothing is known of the bytes.
 */
export async function sourcePartsAre(task: CopyTask, partSize: number): Promise<boolean> {
  const statPart = task.source.store.capabilities.partLayout?.statPart;
  const count = Math.ceil(task.item.size / partSize);
  if (count === 1) return true;
  if (!statPart) return false;
  let next = 1;
  let uniform = true;
  const checker = async () => {
    while (uniform && next <= count) {
      const partNumber = next++;
      task.signal.throwIfAborted();
      const part = await statPart(task.source.bucket, task.item.sourceKey, partNumber);
      const start = (partNumber - 1) * partSize;
      const size = Math.min(partSize, task.item.size - start);
      if (!part || part.start !== start || part.size !== size) uniform = false;
    }
  };
  await Promise.all(Array.from({ length: Math.min(LAYOUT_CHECKS, count) }, checker));
  return uniform;
}

import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { AGENT_BLOCK_SIZE, uploadPartSize } from '@cumulo/contract';

/**
 * Checksums of the bytes a transfer moves. S3 answers each PUT (and each part) with the MD5 of what it stored as
 * the ETag, and a multipart object's ETag is `md5(part md5s…)-<parts>`: the agent compares both with what it sent
 * or received.
 */

const MiB = 1024 * 1024;
/** Part sizes a multipart ETag is tried with besides Cumulo's own: the common choices of S3 clients. */
const CANDIDATE_PART_SIZES = [AGENT_BLOCK_SIZE, 8 * MiB, 16 * MiB, 15 * MiB, 10 * MiB, 64 * MiB, 100 * MiB];

/** A pass-through that hashes what flows through it (the bytes a PUT sends, or a GET receives). */
export class HashingStream extends Transform {
  readonly hash: Hash = createHash('md5');
  bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

export const PLAIN_MD5 = /^[0-9a-f]{32}$/i;
export const MULTIPART_ETAG = /^([0-9a-f]{32})-(\d+)$/i;

/** `md5(concat(part md5s))-<count>`, the ETag S3 gives a multipart object. */
export function multipartEtag(partMd5s: string[]): string {
  const hash = createHash('md5');
  for (const part of partMd5s) hash.update(Buffer.from(part, 'hex'));
  return `${hash.digest('hex')}-${partMd5s.length}`;
}

/** How a downloaded (or re-read) file was checked. */
export type Verification = 'md5' | 'multipart-md5' | 'size';

const partsOf = (size: number, partSize: number) => Math.max(1, Math.ceil(size / partSize));

/**
 * Reads `file` once and checks it against the store's ETag: a plain MD5, or a multipart ETag with whichever common
 * part size gives its part count. Answers how it verified, or null when the bytes differ. A multipart ETag that no
 * tried part size explains is a damaged copy when Cumulo's own part size (`uploadPartSize`: how the page and the
 * agent upload) gives its part count, and otherwise an object some other tool cut differently: then, as for a
 * store with no usable ETag (Azure, GCS), the size check done by the caller is the only one ('size').
 */
export async function verifyFile(
  file: string,
  size: number,
  etag: string | null,
): Promise<Verification | null> {
  const plain = etag !== null && PLAIN_MD5.test(etag);
  const multipart = etag ? MULTIPART_ETAG.exec(etag) : null;
  const parts = multipart ? Number(multipart[2]) : 0;
  const ownPartSize = uploadPartSize(size);
  const sizes = multipart
    ? [...new Set([ownPartSize, ...CANDIDATE_PART_SIZES])].filter(
        (partSize) => partsOf(size, partSize) === parts,
      )
    : [];
  if (!plain && sizes.length === 0) return 'size';
  const whole = plain ? createHash('md5') : null;
  const runs = sizes.map((partSize) => ({
    partSize,
    hash: createHash('md5'),
    inPart: 0,
    md5s: [] as string[],
  }));
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(MiB);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      whole?.update(chunk);
      for (const run of runs) {
        let offset = 0;
        while (offset < chunk.length) {
          const take = Math.min(run.partSize - run.inPart, chunk.length - offset);
          run.hash.update(chunk.subarray(offset, offset + take));
          run.inPart += take;
          offset += take;
          if (run.inPart === run.partSize) {
            run.md5s.push(run.hash.digest('hex'));
            run.hash = createHash('md5');
            run.inPart = 0;
          }
        }
      }
    }
  } finally {
    await handle.close();
  }
  if (whole) return whole.digest('hex') === etag?.toLowerCase() ? 'md5' : null;
  for (const run of runs) {
    if (run.inPart > 0) run.md5s.push(run.hash.digest('hex'));
    if (multipartEtag(run.md5s) === etag?.toLowerCase()) return 'multipart-md5';
  }
  return partsOf(size, ownPartSize) === parts ? null : 'size';
}

/** MD5 (hex) of `length` bytes of an open file from `start`. */
export async function md5OfRange(file: string, start: number, length: number): Promise<string> {
  const hash = createHash('md5');
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(MiB, Math.max(1, length)));
    let done = 0;
    while (done < length) {
      const { bytesRead } = await handle.read(
        buffer,
        0,
        Math.min(buffer.length, length - done),
        start + done,
      );
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      done += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

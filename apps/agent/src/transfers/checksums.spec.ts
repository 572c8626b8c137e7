import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { md5OfRange, multipartEtag, verifyFile } from './checksums.ts';

const MiB = 1024 * 1024;
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
/** The ETag S3 gives an object uploaded in parts of `partSize`. */
function s3Etag(bytes: Buffer, partSize: number): string {
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += partSize)
    parts.push(md5(bytes.subarray(start, start + partSize)));
  return multipartEtag(parts);
}

describe('checking a local file against the store’s ETag', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'cumulo-checksums-'));
  const bytes = randomBytes(17 * MiB + 123);
  const file = path.join(folder, 'clip.bin');
  writeFileSync(file, bytes);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('verifies a plain MD5 ETag, and refuses other bytes', async () => {
    expect(await verifyFile(file, bytes.length, md5(bytes))).toBe('md5');
    expect(await verifyFile(file, bytes.length, md5(Buffer.from('other')))).toBeNull();
  });

  it('verifies a multipart ETag with whichever common part size gives its part count', async () => {
    expect(await verifyFile(file, bytes.length, s3Etag(bytes, 5 * MiB))).toBe('multipart-md5');
    expect(await verifyFile(file, bytes.length, s3Etag(bytes, 8 * MiB))).toBe('multipart-md5');
    expect(await verifyFile(file, bytes.length, s3Etag(bytes, 16 * MiB))).toBe('multipart-md5');
    const damaged = Buffer.from(bytes);
    damaged[6 * MiB] = (damaged[6 * MiB] ?? 0) ^ 1;
    expect(await verifyFile(file, bytes.length, s3Etag(damaged, 5 * MiB))).toBeNull();
  });

  it('falls back to the size when the ETag tells nothing comparable', async () => {
    expect(await verifyFile(file, bytes.length, '0x8DC1234ABCD')).toBe('size');
    expect(await verifyFile(file, bytes.length, null)).toBe('size');
    // Cut by another tool in parts no tried size explains (7 MiB: 3 parts, as 8 MiB would give): not a damage.
    expect(await verifyFile(file, bytes.length, s3Etag(bytes, 7 * MiB))).toBe('size');
  });

  it('hashes a byte range of a file', async () => {
    expect(await md5OfRange(file, 5 * MiB, 5 * MiB)).toBe(md5(bytes.subarray(5 * MiB, 10 * MiB)));
    expect(await md5OfRange(file, 15 * MiB, bytes.length)).toBe(md5(bytes.subarray(15 * MiB)));
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PartsMd5, partsMd5Of } from './source-parts.ts';

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest();

/** S3's parts ETag digest of `bytes` uploaded in parts of `partSize`, computed part by part. */
function expectedOf(bytes: Buffer, partSize: number) {
  const parts = [];
  for (let at = 0; at < bytes.length; at += partSize) parts.push(md5(bytes.subarray(at, at + partSize)));
  return { md5: createHash('md5').update(Buffer.concat(parts)).digest('hex'), parts: parts.length };
}

describe('PartsMd5', () => {
  it('gives the parts ETag of a stream fed in chunks that straddle the part boundaries', () => {
    const bytes = randomBytes(10_000);
    const hasher = new PartsMd5(3000);
    // Chunks of 1, 2999, 3001, 7 … bytes: every boundary falls inside, at the edge of, or between chunks.
    const cuts = [0, 1, 3000, 6001, 6008, 9000, 10_000];
    for (let i = 1; i < cuts.length; i++) hasher.update(bytes.subarray(cuts[i - 1], cuts[i]));

    expect(hasher.digest()).toEqual(expectedOf(bytes, 3000));
  });

  it('counts no empty last part when the size is a whole number of parts', () => {
    const bytes = randomBytes(9000);
    const hasher = new PartsMd5(3000);
    hasher.update(bytes);

    expect(hasher.digest()).toEqual({ ...expectedOf(bytes, 3000), parts: 3 });
  });

  it('of one part is the MD5 of the MD5 of the bytes', () => {
    const bytes = randomBytes(500);
    const hasher = new PartsMd5(500);
    hasher.update(bytes);

    expect(hasher.digest()).toEqual({ md5: createHash('md5').update(md5(bytes)).digest('hex'), parts: 1 });
    expect(partsMd5Of([md5(bytes).toString('hex')])).toBe(hasher.digest().md5);
  });
});

import { describe, expect, it } from 'vitest';
import { partSizeFor } from './part-size.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const TiB = 1024 * GiB;

describe('part sizes within provider limits', () => {
  it('uses the 5 MiB S3 minimum while 10 000 parts suffice', () => {
    expect(partSizeFor('aws', 100 * MiB)).toBe(5 * MiB);
    expect(partSizeFor('wasabi', 48 * GiB)).toBe(5 * MiB);
  });
  it('grows S3 parts so a 5 TiB object fits in 10 000 parts', () => {
    const part = partSizeFor('aws', 5 * TiB);
    expect(Math.ceil((5 * TiB) / part)).toBeLessThanOrEqual(10_000);
    expect(part % MiB).toBe(0);
    expect(part).toBeLessThanOrEqual(5 * GiB);
  });
  it('keeps Azure within 50 000 blocks of at most 4000 MiB', () => {
    expect(partSizeFor('azure', 10 * GiB)).toBe(4 * MiB);
    const part = partSizeFor('azure', 190 * TiB);
    expect(Math.ceil((190 * TiB) / part)).toBeLessThanOrEqual(50_000);
    expect(part).toBeLessThanOrEqual(4000 * MiB);
  });
  it('uses 256 KiB multiples for GCS chunks', () => {
    expect(partSizeFor('google', 3 * GiB) % (256 * 1024)).toBe(0);
  });
  it('refuses an object larger than the provider can hold', () => {
    expect(() => partSizeFor('aws', 60 * TiB)).toThrow(RangeError);
  });
});

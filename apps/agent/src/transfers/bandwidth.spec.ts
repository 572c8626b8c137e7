import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { Bandwidth, parseRate } from './bandwidth.ts';

const MiB = 1024 * 1024;

describe('--bwlimit', () => {
  it('reads rates as rclone writes them: bytes, K, M, G (1024-based), off', () => {
    expect(parseRate('1000')).toBe(1000);
    expect(parseRate('512K')).toBe(512 * 1024);
    expect(parseRate('10M')).toBe(10 * MiB);
    expect(parseRate('1.5g')).toBe(1.5 * 1024 * MiB);
    expect(parseRate('24MiB')).toBe(24 * MiB);
    expect(parseRate('off')).toBe(0);
    expect(() => parseRate('fast')).toThrow(/Not a rate/);
    expect(() => parseRate('-3M')).toThrow(/Not a rate/);
  });

  it('holds a stream to the rate beyond the first burst, and lets everything through', async () => {
    const bandwidth = new Bandwidth();
    bandwidth.rate = 8 * MiB;
    const chunks = Array.from({ length: 24 }, () => Buffer.alloc(256 * 1024, 7));
    const began = performance.now();
    let passed = 0;
    for await (const chunk of Readable.from(chunks).pipe(bandwidth.pacer()))
      passed += (chunk as Buffer).length;
    const seconds = (performance.now() - began) / 1000;
    expect(passed).toBe(6 * MiB);
    // 6 MiB at 8 MiB/s is 0.75 s, less the 0.25 s burst allowed ahead.
    expect(seconds).toBeGreaterThanOrEqual(0.45);
    expect(seconds).toBeLessThan(2);
  });

  it('costs nothing when off', async () => {
    const bandwidth = new Bandwidth();
    const began = performance.now();
    for (let i = 0; i < 1000; i++) await bandwidth.take(MiB);
    expect(performance.now() - began).toBeLessThan(100);
  });
});

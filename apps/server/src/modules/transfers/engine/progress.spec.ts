import { describe, expect, it } from 'vitest';
import { RATE_WINDOW_MS, windowRate, type BytesSample } from './progress.ts';

const MiB = 1024 * 1024;

describe('windowRate: the live rate and ETA of a batch whose bytes arrive an object or a part at a time', () => {
  it('reads a 1 MiB/s batch that reports 4 MiB every 4 s as 1 MiB/s, not 0 and then 4 MiB/s', () => {
    const samples: BytesSample[] = [];
    const rates: number[] = [];
    for (let second = 0; second <= 60; second += 1) {
      rates.push(windowRate(samples, second * 1000, Math.floor(second / 4) * 4 * MiB));
    }
    // Once the window is full, every reading is within a part's worth of the true rate.
    for (const rate of rates.slice(RATE_WINDOW_MS / 1000)) {
      expect(rate / MiB).toBeGreaterThan(0.85);
      expect(rate / MiB).toBeLessThan(1.15);
    }
    // Memory stays the window's samples, whatever the batch's length.
    expect(samples.length).toBeLessThanOrEqual(RATE_WINDOW_MS / 1000 + 2);
  });

  it('answers 0 before two samples span any time, and follows a batch that stopped moving', () => {
    const samples: BytesSample[] = [];
    expect(windowRate(samples, 0, 0)).toBe(0);
    expect(windowRate(samples, 1000, MiB)).toBe(MiB);
    let rate = 0;
    for (let second = 2; second <= 2 + RATE_WINDOW_MS / 1000 + 1; second += 1) {
      rate = windowRate(samples, second * 1000, MiB);
    }
    expect(rate).toBe(0);
  });
});

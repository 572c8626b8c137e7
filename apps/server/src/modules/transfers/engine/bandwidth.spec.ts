import { describe, expect, it } from 'vitest';
import { BatchBandwidth, TokenBucket, type BandwidthClock } from './bandwidth.ts';

const MiB = 1024 * 1024;

/** A clock that only moves when the bucket sleeps (or the test says so): no real time passes in these tests. */
function fakeClock() {
  let at = 0;
  const sleeps: number[] = [];
  const clock: BandwidthClock = {
    now: () => at,
    sleep: async (ms) => {
      sleeps.push(ms);
      at += ms;
    },
  };
  return { clock, sleeps, elapsed: () => at, advance: (ms: number) => (at += ms) };
}

describe('TokenBucket: bytes read through the worker, paced to a rate', () => {
  it('starts empty, and lets a burst of up to one second of bytes saved while idle through without waiting', async () => {
    const time = fakeClock();
    const bucket = new TokenBucket(2 * MiB, undefined, time.clock);
    expect(bucket.tokens).toBe(0);

    time.advance(5000);
    for (let read = 0; read < 2 * MiB; read += 64 * 1024) await bucket.take(64 * 1024);

    expect(time.sleeps).toEqual([]);
    expect(bucket.tokens).toBe(0);
  });

  it('reads 100 MiB at 2 MiB/s in 50 seconds of clock time: no free first second', async () => {
    const time = fakeClock();
    const bucket = new TokenBucket(2 * MiB, undefined, time.clock);

    for (let read = 0; read < 100 * MiB; read += 64 * 1024) await bucket.take(64 * 1024);

    expect(time.elapsed()).toBeCloseTo(50_000, 6);
    // Each chunk past the burst waits exactly its own share: 64 KiB at 2 MiB/s.
    expect(time.sleeps.every((ms) => Math.abs(ms - 31.25) < 1e-9)).toBe(true);
  });

  it('paces part-sized reads too: an 8 MiB part at 1 MiB/s waits until its debt is paid', async () => {
    const time = fakeClock();
    const bucket = new TokenBucket(MiB, undefined, time.clock);

    await bucket.take(8 * MiB);
    await bucket.take(8 * MiB);

    expect(time.sleeps).toEqual([8000, 8000]);
  });

  it('changes its rate from now on, keeping what it held up to the new burst', async () => {
    const time = fakeClock();
    const bucket = new TokenBucket(MiB, undefined, time.clock);
    await bucket.take(MiB);

    time.advance(500);
    bucket.setRate(2 * MiB);
    expect(bucket.tokens).toBe(512 * 1024);
    time.advance(500);
    expect(bucket.tokens).toBe(1536 * 1024);
    bucket.setRate(MiB / 2);
    expect(bucket.tokens).toBe(512 * 1024);
  });

  it('refills while idle, never beyond the burst', async () => {
    const time = fakeClock();
    const bucket = new TokenBucket(MiB, 512 * 1024, time.clock);
    await bucket.take(512 * 1024);

    time.advance(250);
    expect(bucket.tokens).toBe(256 * 1024);
    time.advance(60_000);
    expect(bucket.tokens).toBe(512 * 1024);
  });

  it('queues concurrent readers in arrival order, so their total keeps to the rate', async () => {
    let at = 0;
    const waits: number[] = [];
    const clock: BandwidthClock = {
      now: () => at,
      // The readers reserve at the same instant; the clock moves only when the test says.
      sleep: async (ms) => {
        waits.push(ms);
      },
    };
    const bucket = new TokenBucket(MiB, undefined, clock);

    await Promise.all([bucket.take(MiB), bucket.take(MiB), bucket.take(MiB)]);

    expect(waits).toEqual([1000, 2000, 3000]);
    at = 3000;
    expect(bucket.tokens).toBe(0);
  });

  it('stops waiting when the copy is aborted', async () => {
    const clock: BandwidthClock = {
      now: () => 0,
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
        ),
    };
    const bucket = new TokenBucket(MiB, undefined, clock);
    const controller = new AbortController();
    const waiting = bucket.take(10 * MiB, controller.signal);

    controller.abort(new Error('transfer canceled'));

    await expect(waiting).rejects.toThrow('transfer canceled');
    await expect(bucket.take(1, controller.signal)).rejects.toThrow('transfer canceled');
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket(0)).toThrow(RangeError);
  });
});

describe('BatchBandwidth: a batch limit split over its jobs', () => {
  it('gives each job of a limited batch an even share; jobs of one process read at their shares added up', () => {
    const bandwidth = new BatchBandwidth(2, fakeClock().clock);

    const first = bandwidth.acquire('batch-a', 2 * MiB);
    expect(first?.rate).toBe(MiB);
    const second = bandwidth.acquire('batch-a', 2 * MiB);
    expect(second).toBe(first);
    expect(first?.rate).toBe(2 * MiB);
    // A third job of the batch in this process (the sweep may queue one) never reads past the whole limit.
    bandwidth.acquire('batch-a', 2 * MiB);
    expect(first?.rate).toBe(2 * MiB);

    expect(bandwidth.acquire('batch-b', 4 * MiB)?.rate).toBe(2 * MiB);
  });

  it("a batch copied by both its jobs in one process reads 20 MiB at its 2 MiB/s limit, not at one job's share", async () => {
    const time = fakeClock();
    const bandwidth = new BatchBandwidth(2, time.clock);
    const jobs = [bandwidth.acquire('batch-a', 2 * MiB), bandwidth.acquire('batch-a', 2 * MiB)];

    await Promise.all(
      jobs.map(async (bucket) => {
        for (let read = 0; read < 10 * MiB; read += 64 * 1024) await bucket?.take(64 * 1024);
      }),
    );

    // 20 MiB at 2 MiB/s; at one share, 20 s.
    expect(time.elapsed()).toBeCloseTo(10_000, 0);
  });

  it('keeps the rate when a job ends: the one left copying a large object reads at the whole limit', async () => {
    const time = fakeClock();
    const bandwidth = new BatchBandwidth(2, time.clock);
    const copying = bandwidth.acquire('batch-a', MiB);
    bandwidth.acquire('batch-a', MiB);
    // The second job found nothing to claim (the first claimed the batch's only object) and ended.
    bandwidth.release('batch-a');

    for (let read = 0; read < 10 * MiB; read += 64 * 1024) await copying?.take(64 * 1024);

    expect(copying?.rate).toBe(MiB);
    expect(time.elapsed()).toBeCloseTo(10_000, 0);
  });

  it('gives an unlimited batch no bucket', () => {
    expect(new BatchBandwidth(2).acquire('batch-a', null)).toBeNull();
  });

  it('forgets a batch once its last job released it', () => {
    const bandwidth = new BatchBandwidth(2, fakeClock().clock);
    const first = bandwidth.acquire('batch-a', 2 * MiB);
    bandwidth.acquire('batch-a', 2 * MiB);

    bandwidth.release('batch-a');
    expect(bandwidth.acquire('batch-a', 2 * MiB)).toBe(first);
    bandwidth.release('batch-a');
    bandwidth.release('batch-a');

    expect(bandwidth.acquire('batch-a', 2 * MiB)).not.toBe(first);
  });
});

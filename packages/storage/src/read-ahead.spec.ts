import { describe, expect, it } from 'vitest';
import { mapAhead, readAhead } from './read-ahead.ts';

/** A source that records when each element was asked for, relative to what the consumer has seen. */
function recorded(count: number, log: string[], failAt?: number) {
  return (async function* () {
    for (let i = 0; i < count; i++) {
      log.push(`fetch ${i}`);
      await Promise.resolve();
      if (i === failAt) throw new Error(`page ${i} failed`);
      yield i;
    }
  })();
}

describe('readAhead', () => {
  it('asks for the next element before the caller is done with the current one', async () => {
    const log: string[] = [];
    for await (const value of readAhead(recorded(3, log))) log.push(`use ${value}`);
    expect(log).toEqual(['fetch 0', 'fetch 1', 'use 0', 'fetch 2', 'use 1', 'use 2']);
  });

  it('surfaces an error when the failed element is reached, after the ones before it', async () => {
    const seen: number[] = [];
    const walk = async () => {
      for await (const value of readAhead(recorded(3, [], 1))) seen.push(value);
    };
    await expect(walk()).rejects.toThrow('page 1 failed');
    expect(seen).toEqual([0]);
  });
});

describe('mapAhead', () => {
  const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  async function* numbers(count: number) {
    for (let i = 0; i < count; i++) yield i;
  }

  it('keeps the source order while later calls finish first, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const results: number[] = [];
    const call = async (n: number) => {
      running++;
      most = Math.max(most, running);
      await later(n % 2 === 0 ? 15 : 1);
      running--;
      return n * 10;
    };
    // Every third answers at once, as an object whose listings tell enough.
    for await (const value of mapAhead(numbers(10), 3, (n) => (n % 3 === 1 ? n * 10 : call(n))))
      results.push(value);
    expect(results).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    // Calls overlap, and the answers held (ready or not) never exceed the limit.
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(3);
  });

  it('yields a ready result without waiting for the source to give its next element', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const source = (async function* () {
      yield 1;
      yield 2;
      // The next page of a listing that is slow to come (or waits on what the consumer does with these).
      await gate;
      yield 3;
    })();
    const seen: number[] = [];
    for await (const value of mapAhead(source, 16, (n) => n)) {
      seen.push(value);
      if (value === 2) release();
    }
    expect(seen).toEqual([1, 2, 3]);
  });

  it('surfaces a failed call when its element is reached, after the ones before it', async () => {
    const seen: number[] = [];
    const walk = async () => {
      for await (const value of mapAhead(numbers(5), 4, async (n) => {
        if (n === 2) throw new Error('call 2 failed');
        await later(5);
        return n;
      }))
        seen.push(value);
    };
    await expect(walk()).rejects.toThrow('call 2 failed');
    expect(seen).toEqual([0, 1]);
  });
});

describe.each([
  ['readAhead', (source: AsyncIterable<number>) => readAhead(source)],
  ['mapAhead', (source: AsyncIterable<number>) => mapAhead(source, 4, (n) => n)],
])('%s', (_name, iterate) => {
  it('closes the source when the caller stops early', async () => {
    let closed = false;
    const source = (async function* () {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        closed = true;
      }
    })();
    for await (const value of iterate(source)) if (value === 1) break;
    expect(closed).toBe(true);
  });
});

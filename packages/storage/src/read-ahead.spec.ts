import { describe, expect, it } from 'vitest';
import { readAhead } from './read-ahead.ts';

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

  it('closes the source when the caller stops early', async () => {
    let closed = false;
    const source = (async function* () {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        closed = true;
      }
    })();
    for await (const value of readAhead(source)) if (value === 1) break;
    expect(closed).toBe(true);
  });
});

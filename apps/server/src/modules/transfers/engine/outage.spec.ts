import { describe, expect, it } from 'vitest';
import { StorageError } from '@cumulo/storage';
import { CopyError } from './copy-task.ts';
import { OutageBackoff, storeTrouble, type Outage } from './outage.ts';

const down: Outage = {
  side: 'destination',
  cause: 'The provider could not be reached: it refused the connection',
};

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('storeTrouble', () => {
  it('tells a store in trouble from an object refused', () => {
    expect(storeTrouble(new StorageError('Network', 'x', 'aws'))).toBe(true);
    expect(storeTrouble(new StorageError('Throttled', 'x', 'aws', 503))).toBe(true);
    expect(storeTrouble(new StorageError('Unknown', 'x', 'aws', 500))).toBe(true);
    expect(storeTrouble(new CopyError('x', true, { cause: new StorageError('Network', 'x', 'aws') }))).toBe(
      true,
    );
    expect(storeTrouble(new StorageError('Unknown', 'x', 'aws', 400))).toBe(false);
    expect(storeTrouble(new StorageError('AccessDenied', 'x', 'aws', 403))).toBe(false);
    expect(storeTrouble(new CopyError('checksum mismatch', true))).toBe(false);
  });
});

describe('OutageBackoff', () => {
  it('pauses 5 s, 10 s, 20 s … up to a minute while the store stays down, then spends the budget', () => {
    const time = clock();
    const outage = new OutageBackoff(180_000, 3, time.now);
    const pauses: number[] = [];
    while (!outage.spent) {
      expect(outage.failed(down, down.cause)).toBe(true);
      if (outage.spent) break;
      pauses.push(outage.pauseLeftMs);
      expect(outage.holding).toBe(true);
      time.advance(outage.pauseLeftMs);
      expect(outage.holding).toBe(false);
    }
    expect(pauses).toEqual([5000, 10_000, 20_000, 40_000, 60_000, 45_000]);
    expect(outage.holding).toBe(true);
    expect(outage.waitedSeconds).toBe(180);
    expect(outage.outage).toEqual(down);
  });

  it('lets copies failing during a pause wait with it instead of lengthening it', () => {
    const time = clock();
    const outage = new OutageBackoff(60_000, 3, time.now);
    outage.failed(down, down.cause);
    time.advance(1000);
    expect(outage.pausing).toBe(true);
    expect(outage.failed(down, down.cause)).toBe(true);
    expect(outage.pauseLeftMs).toBe(4000);
  });

  it('a copy that succeeds ends the outage: the next one starts from 5 s again', () => {
    const time = clock();
    const outage = new OutageBackoff(60_000, 3, time.now);
    outage.failed(down, down.cause);
    time.advance(5000);
    outage.failed(down, down.cause);
    time.advance(10_000);
    outage.succeeded();
    expect(outage.outage).toBeNull();
    outage.failed(down, down.cause);
    expect(outage.pauseLeftMs).toBe(5000);
  });

  it('both stores answering: an object failing alone fails, three in a row count as an outage', () => {
    const outage = new OutageBackoff(60_000, 3, clock().now);
    expect(outage.failed(null, '500 Internal Error')).toBe(false);
    expect(outage.failed(null, '500 Internal Error')).toBe(false);
    expect(outage.failed(null, '500 Internal Error')).toBe(true);
    expect(outage.outage).toEqual({ side: null, cause: '500 Internal Error' });
  });
});

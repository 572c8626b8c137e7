import { describe, expect, it } from 'vitest';
import { MemoryBudget } from './memory-budget.ts';

const MiB = 1024 * 1024;
const settled = async <T>(promise: Promise<T>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('MemoryBudget: the copy buffers of one worker process', () => {
  it('grants as many of the wanted buffers as fit, and never more than the budget', async () => {
    const budget = new MemoryBudget(64 * MiB);
    const first = await budget.lease(8 * MiB, 4);
    const second = await budget.lease(8 * MiB, 6);
    expect([first.units, second.units]).toEqual([4, 4]);
    expect(budget.held).toBe(64 * MiB);

    const third = budget.lease(8 * MiB, 4);
    expect(await settled(third)).toBe(false);
    first.release();
    expect((await third).units).toBe(4);
    expect(budget.held).toBe(64 * MiB);
  });

  it('serves leases in the order they were asked for: a large one is not starved by small ones', async () => {
    const budget = new MemoryBudget(16 * MiB);
    const small = await budget.lease(12 * MiB, 1);
    const large = budget.lease(8 * MiB, 2);
    const later = budget.lease(64 * 1024, 1);
    // 4 MiB are free: enough for the small one behind, but the large one asked first.
    expect(await settled(later)).toBe(false);
    small.release();
    expect((await large).units).toBe(2);
    expect(await settled(later)).toBe(false);
  });

  it('lets a buffer larger than the whole budget through alone', async () => {
    const budget = new MemoryBudget(32 * MiB);
    const huge = await budget.lease(100 * MiB, 4);
    expect(huge.units).toBe(1);
    const next = budget.lease(1024, 1);
    expect(await settled(next)).toBe(false);
    huge.release();
    expect((await next).units).toBe(1);
  });

  it('gives up a waiting lease when its copy is aborted, and lets the next one through', async () => {
    const budget = new MemoryBudget(8 * MiB);
    const held = await budget.lease(8 * MiB, 1);
    const controller = new AbortController();
    const aborted = budget.lease(8 * MiB, 1, controller.signal);
    const after = budget.lease(4 * MiB, 1);
    controller.abort(new Error('transfer canceled'));
    await expect(aborted).rejects.toThrow('transfer canceled');
    held.release();
    expect((await after).units).toBe(1);
    expect(budget.held).toBe(4 * MiB);
  });

  it('reuses a released buffer, views of it included, and releases once', async () => {
    const budget = new MemoryBudget(8 * MiB);
    const lease = await budget.lease(MiB, 2);
    const buffer = lease.buffer();
    expect(buffer.length).toBe(MiB);
    lease.recycle(buffer.subarray(0, 10));
    expect(lease.buffer().buffer).toBe(buffer.buffer);
    expect(lease.buffer().buffer).not.toBe(buffer.buffer);
    lease.release();
    lease.release();
    expect(budget.held).toBe(0);
  });
});

import { StorageError } from '@cumulo/storage';
import { describe, expect, it } from 'vitest';
import { ThrottleGates } from './throttle.ts';

const slowDown = () => new StorageError('Throttled', 'Please reduce your request rate.', 'aws', 503);

describe('ThrottleGate: backoff shared by every copy to one destination', () => {
  const gates = () => new ThrottleGates({ baseDelayMs: 1, maxDelayMs: 4, maxAttempts: 3, random: () => 0.5 });

  it('retries a throttled call after a pause and succeeds', async () => {
    const gate = gates().gateFor('s3rver-a', 'photos');
    let attempts = 0;

    const result = await gate.call(async () => {
      attempts += 1;
      if (attempts <= 2) throw slowDown();
      return 'stored';
    });

    expect(result).toBe('stored');
    expect(attempts).toBe(3);
    // Two throttling answers, one success: the destination stays one step slowed.
    expect(gate.backoffLevel).toBe(1);
  });

  it('gives the throttling answer up after the last attempt', async () => {
    const gate = gates().gateFor('s3rver-a', 'photos');
    let attempts = 0;

    const error = await gate
      .call(async () => {
        attempts += 1;
        throw slowDown();
      })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StorageError);
    expect(attempts).toBe(3);
  });

  it('does not retry other failures', async () => {
    const gate = gates().gateFor('s3rver-a', 'photos');
    let attempts = 0;
    const denied = new StorageError('AccessDenied', 'Access Denied', 'aws', 403);

    await expect(
      gate.call(async () => {
        attempts += 1;
        throw denied;
      }),
    ).rejects.toBe(denied);
    expect(attempts).toBe(1);
  });

  it('shares one gate per endpoint and bucket', () => {
    const registry = gates();
    const gate = registry.gateFor('s3rver-a', 'photos');
    gate.throttled();

    expect(registry.gateFor('s3rver-a', 'photos').backoffLevel).toBe(1);
    expect(registry.gateFor('s3rver-a', 'videos').backoffLevel).toBe(0);
    expect(registry.gateFor('s3rver-b', 'photos').backoffLevel).toBe(0);
  });

  it('stops waiting when the copy is aborted', async () => {
    const gate = new ThrottleGates({ baseDelayMs: 60_000, maxDelayMs: 60_000, maxAttempts: 3 }).gateFor(
      'a',
      'b',
    );
    gate.throttled();
    const controller = new AbortController();
    const waiting = gate.wait(controller.signal);

    controller.abort(new Error('canceled'));

    await expect(waiting).rejects.toThrow();
  });
});

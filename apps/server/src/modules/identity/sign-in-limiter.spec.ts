import { describe, expect, it } from 'vitest';
import { SIGN_IN_BACKOFF } from '@cumulo/contract';
import { backoffSeconds } from './sign-in-limiter.ts';

describe('backoffSeconds', () => {
  it('is free for the first failures, then doubles from the first delay up to the cap', () => {
    const free = SIGN_IN_BACKOFF.freePerUser;
    expect([0, 1, free - 1].map((n) => backoffSeconds(n, free))).toEqual([0, 0, 0]);
    expect([free, free + 1, free + 2, free + 3].map((n) => backoffSeconds(n, free))).toEqual([1, 2, 4, 8]);
    expect(backoffSeconds(free + 9, free)).toBe(512);
    expect(backoffSeconds(free + 10, free)).toBe(SIGN_IN_BACKOFF.maxDelaySeconds);
    expect(backoffSeconds(free + 10_000, free)).toBe(SIGN_IN_BACKOFF.maxDelaySeconds);
  });
});

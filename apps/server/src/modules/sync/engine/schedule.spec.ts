import { describe, expect, it } from 'vitest';
import { SYNC_FREQUENCY } from '@cumulo/contract';
import { cronOf, nextRunOf } from './schedule.ts';

const created = new Date('2026-03-31T10:30:15Z'); // a Tuesday

describe('sync schedule', () => {
  it('runs daily at the minute before the job was created, first one day later', () => {
    const job = { frequency: SYNC_FREQUENCY.daily, createdAt: created };
    expect(cronOf(job)).toBe('29 10 * * *');
    expect(nextRunOf(job, created).toISOString()).toBe('2026-04-01T10:29:00.000Z');
    expect(nextRunOf(job, new Date('2026-04-01T10:29:30Z')).toISOString()).toBe('2026-04-02T10:29:00.000Z');
  });

  it('runs weekly on the weekday it was created, first a week later', () => {
    const job = { frequency: SYNC_FREQUENCY.weekly, createdAt: created };
    expect(cronOf(job)).toBe('29 10 * * 2');
    expect(nextRunOf(job, created).toISOString()).toBe('2026-04-07T10:29:00.000Z');
  });

  it('runs monthly on the day it was created, capped at the 28th', () => {
    const job = { frequency: SYNC_FREQUENCY.monthly, createdAt: created };
    expect(cronOf(job)).toBe('29 10 28 * *');
    expect(nextRunOf(job, created).toISOString()).toBe('2026-04-28T10:29:00.000Z');
  });

  it('a job created at midnight runs at 23:59 on the day before, weekly on that weekday', () => {
    const job = { frequency: SYNC_FREQUENCY.weekly, createdAt: new Date('2026-04-01T00:00:05Z') };
    expect(cronOf(job)).toBe('59 23 * * 2');
    expect(nextRunOf(job, job.createdAt).toISOString()).toBe('2026-04-07T23:59:00.000Z');
  });
});

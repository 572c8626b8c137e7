import { describe, expect, it } from 'vitest';
import { currentPeriod, lastCompletePeriod, nextDigestAt, periodText } from './finance-digest.ts';

const iso = (period: { start: Date; end: Date }) => [period.start.toISOString(), period.end.toISOString()];

describe('digest periods (UTC)', () => {
  it('Daily is yesterday, whatever the hour', () => {
    expect(iso(lastCompletePeriod(new Date('2031-03-01T00:00:00Z'), 'Daily'))).toEqual([
      '2031-02-28T00:00:00.000Z',
      '2031-03-01T00:00:00.000Z',
    ]);
    expect(iso(lastCompletePeriod(new Date('2031-03-01T23:59:59Z'), 'Daily'))).toEqual([
      '2031-02-28T00:00:00.000Z',
      '2031-03-01T00:00:00.000Z',
    ]);
  });

  it('Weekly is the last Monday–Sunday week: on a Sunday, the week before; on a Monday, the week just ended', () => {
    // 2031-03-09 is a Sunday, 2031-03-10 a Monday.
    expect(iso(lastCompletePeriod(new Date('2031-03-09T23:00:00Z'), 'Weekly'))).toEqual([
      '2031-02-24T00:00:00.000Z',
      '2031-03-03T00:00:00.000Z',
    ]);
    expect(iso(lastCompletePeriod(new Date('2031-03-10T00:07:00Z'), 'Weekly'))).toEqual([
      '2031-03-03T00:00:00.000Z',
      '2031-03-10T00:00:00.000Z',
    ]);
    expect(periodText(lastCompletePeriod(new Date('2031-03-10T00:07:00Z'), 'Weekly'), 'Weekly')).toBe(
      '2031-03-03 to 2031-03-09',
    );
  });

  it('Monthly is last calendar month, across a year', () => {
    expect(iso(lastCompletePeriod(new Date('2031-01-15T00:00:00Z'), 'Monthly'))).toEqual([
      '2030-12-01T00:00:00.000Z',
      '2031-01-01T00:00:00.000Z',
    ]);
    expect(iso(currentPeriod(new Date('2031-12-31T23:00:00Z'), 'Monthly'))).toEqual([
      '2031-12-01T00:00:00.000Z',
      '2032-01-01T00:00:00.000Z',
    ]);
  });

  it('the next digest: the next hourly check while the last period is unsent, else the check after this period', () => {
    expect(nextDigestAt(new Date('2031-03-04T10:06:00Z'), 'Daily', false).toISOString()).toBe(
      '2031-03-04T10:07:00.000Z',
    );
    expect(nextDigestAt(new Date('2031-03-04T10:07:00Z'), 'Daily', false).toISOString()).toBe(
      '2031-03-04T11:07:00.000Z',
    );
    expect(nextDigestAt(new Date('2031-03-04T10:30:00Z'), 'Daily', true).toISOString()).toBe(
      '2031-03-05T00:07:00.000Z',
    );
    expect(nextDigestAt(new Date('2031-03-04T10:30:00Z'), 'Weekly', true).toISOString()).toBe(
      '2031-03-10T00:07:00.000Z',
    );
    expect(nextDigestAt(new Date('2031-03-04T10:30:00Z'), 'Monthly', true).toISOString()).toBe(
      '2031-04-01T00:07:00.000Z',
    );
  });
});

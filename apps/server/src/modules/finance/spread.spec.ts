import { describe, expect, it } from 'vitest';
import { monthsOfRange, spreadCents } from './spread.ts';

const year = (y: number) => monthsOfRange(`${y}-01`, `${y}-12`) ?? [];
const total = (spread: { cents: number }[]) => spread.reduce((sum, month) => sum + month.cents, 0);

describe('spreadCents', () => {
  it('spreads 1000.00 over a year as 83.33 a month and gives the 4 cents left to December', () => {
    const spread = spreadCents(100_000, year(2026));
    expect(spread.slice(0, 11).map((m) => m.cents)).toEqual(Array(11).fill(8333));
    expect(spread[11]).toEqual({ month: '2026-12', cents: 8337 });
    expect(total(spread)).toBe(100_000);
  });

  it('adds up exactly for any amount and any range, the last month never below the others', () => {
    for (const cents of [0, 1, 11, 99, 100_001, 123_456_789, 99_999_999_999_999]) {
      for (const [start, end] of [
        ['2026-01', '2026-12'],
        ['2026-03', '2026-07'],
        ['2026-11', '2026-11'],
      ] as const) {
        const spread = spreadCents(cents, monthsOfRange(start, end) ?? []);
        expect(total(spread), `${cents} over ${start}..${end}`).toBe(cents);
        const [first] = spread;
        const last = spread.at(-1);
        if (!first || !last) throw new Error('no months');
        expect(spread.every((m) => m.cents === first.cents || m === last)).toBe(true);
        expect(last.cents - first.cents).toBeLessThan(spread.length);
        expect(last.cents).toBeGreaterThanOrEqual(first.cents);
      }
    }
  });

  it('refuses cents that are not a whole, non-negative amount', () => {
    expect(() => spreadCents(-1, year(2026))).toThrow(RangeError);
    expect(() => spreadCents(1.5, year(2026))).toThrow(RangeError);
  });
});

describe('monthsOfRange', () => {
  it('lists the months of one year from start to end', () => {
    expect(monthsOfRange('2026-03', '2026-05')).toEqual(['2026-03', '2026-04', '2026-05']);
    expect(year(2027)).toHaveLength(12);
  });

  it('refuses a range across years or backwards', () => {
    expect(monthsOfRange('2026-11', '2027-02')).toBeNull();
    expect(monthsOfRange('2026-05', '2026-04')).toBeNull();
  });
});

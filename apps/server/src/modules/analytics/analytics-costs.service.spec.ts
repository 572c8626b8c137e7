import { describe, expect, it } from 'vitest';
import { UNATTRIBUTED } from '@cumulo/contract';
import { databaseNameOf, forecastNano } from './analytics-costs.service.ts';

describe('forecastNano (spec 000 §5: total ÷ day of month × days in month)', () => {
  it('projects usage from the last day of data and adds once-billed lines as they are', () => {
    // 30 days in November; usage 10 USD through the 10th, a 100 USD fee and a -5 USD credit.
    const projected = 10_000_000_000n;
    const actual = projected + 100_000_000_000n - 5_000_000_000n;
    expect(forecastNano(actual, projected, '2026-11-10', '2026-11', '2026-11')).toBe(
      30_000_000_000n + 95_000_000_000n,
    );
    // February of a leap year has 29 days.
    expect(forecastNano(projected, projected, '2028-02-01', '2028-02', '2028-02')).toBe(290_000_000_000n);
  });

  it('answers the actual for a month already over, and for a month without data', () => {
    expect(forecastNano(7n, 5n, '2026-10-31', '2026-10', '2026-11')).toBe(7n);
    expect(forecastNano(0n, 0n, null, '2026-11', '2026-11')).toBe(0n);
  });
});

describe('databaseNameOf', () => {
  it('takes the name after :db: in an RDS ARN, and gathers blank ids as unattributed', () => {
    expect(databaseNameOf('arn:aws:rds:eu-central-1:111122223333:db:orders-db')).toBe('orders-db');
    expect(databaseNameOf('')).toBe(UNATTRIBUTED);
    expect(databaseNameOf('db-ABCDEFGHIJ')).toBe('db-ABCDEFGHIJ');
  });
});

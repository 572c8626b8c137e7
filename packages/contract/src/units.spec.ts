import { describe, expect, it } from 'vitest';
import { alertSizeBytes, createAlertBody } from './alerts.ts';
import { createBucketBody } from './buckets.ts';
import { bucketNameMessages } from './bucket-name.ts';
import { formatBytes, formatMonthName, formatUsd } from './format.ts';

describe('alert limits (spec 000 §5: bytes = limit × 1024^(index+2))', () => {
  it('converts MB, GB and TB', () => {
    expect(alertSizeBytes(100, 'MB')).toBe(104857600);
    expect(alertSizeBytes(5, 'GB')).toBe(5368709120);
    expect(alertSizeBytes(1.5, 'TB')).toBe(1649267441664);
  });

  it('takes exactly one limit per alert', () => {
    const id = '0b6f3c1e-7d2a-4f5e-9a1b-2c3d4e5f6a7b';
    expect(createAlertBody.safeParse({ cloud_account_id: id, size_limit: 10 }).success).toBe(true);
    expect(
      createAlertBody.safeParse({ cloud_account_id: id, cost_limit: 1.5, size_limit: null }).success,
    ).toBe(true);
    expect(createAlertBody.safeParse({ cloud_account_id: id }).success).toBe(false);
    expect(createAlertBody.safeParse({ cloud_account_id: id, size_limit: 1, cost_limit: 1 }).success).toBe(
      false,
    );
  });
});

describe('create-bucket payload', () => {
  it('reports every broken name rule with its own message', () => {
    const result = createBucketBody.safeParse({ bucket_name: '192.168.1.1', region: 'us-east-1' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual([bucketNameMessages.ipAddress]);
  });

  it('needs at least one permission for each user', () => {
    const result = createBucketBody.safeParse({
      bucket_name: 'team-bucket',
      region: 'us-east-1',
      users: [{ user: 'a@example.com', permissions: { READ: false } }],
    });
    expect(result.error?.issues.map((i) => i.message)).toEqual(['Check at least one permission.']);
  });
});

describe('formatters (spec 000 §9)', () => {
  it('shows sizes in 1024-based units', () => {
    expect(formatBytes(0)).toBe('0 Bytes');
    expect(formatBytes(512)).toBe('512 Bytes');
    expect(formatBytes(1)).toBe('1 Byte');
    expect(formatBytes(1536)).toBe('1.5 kB');
    expect(formatBytes(5368709120)).toBe('5 GB');
    expect(formatBytes(1024 ** 4 * 2.25)).toBe('2.25 TB');
  });

  it('shows USD with 2 decimals, or 5 for alert costs', () => {
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0.00001, 5)).toBe('$0.00001');
    // A tiny negative difference rounds to nothing, without a minus; a real one keeps it.
    expect(formatUsd(-0.001)).toBe('$0.00');
    expect(formatUsd(-3.96)).toBe('-$3.96');
  });

  it("names a 'YYYY-MM' month in words, in UTC, and leaves anything else as given", () => {
    expect(formatMonthName('2026-10')).toBe('October 2026');
    expect(formatMonthName('2027-01')).toBe('January 2027');
    expect(formatMonthName('soon')).toBe('soon');
  });
});

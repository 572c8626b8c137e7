import { describe, expect, it } from 'vitest';
import { axisUsd, comparePrices, comparedGb } from './price-comparison.ts';

describe('price comparison (spec 000 §9 price table)', () => {
  it('rounds the size to a whole number, at least 1, before applying the unit', () => {
    expect(comparedGb(1, 'TB')).toBe(1024);
    expect(comparedGb(2.4, 'GB')).toBe(2);
    expect(comparedGb(2.5, 'TB')).toBe(3 * 1024);
    expect(comparedGb(0, 'PB')).toBe(1048576);
    expect(comparedGb(-3, 'GB')).toBe(1);
  });

  it('prices 1 TB per provider: storage per month plus one full download', () => {
    const rows = comparePrices(1024);
    expect(rows.map((row) => row.label)).toEqual(['Wasabi', 'Azure', 'S3', 'Google']);
    const byLabel = Object.fromEntries(rows.map((row) => [row.label, row]));
    expect(byLabel.Wasabi).toMatchObject({ perGb: 0.0049, egress: 0 });
    expect(byLabel.Wasabi?.storageMonthly).toBeCloseTo(5.0176, 6);
    expect(byLabel.S3?.storageMonthly).toBeCloseTo(23.552, 6);
    expect(byLabel.S3?.egress).toBeCloseTo(153.6, 6);
    expect(byLabel.S3?.total).toBeCloseTo(177.152, 6);
    expect(byLabel.Azure?.total).toBeCloseTo(1024 * (0.0184 + 0.087), 6);
    expect(byLabel.Google?.total).toBeCloseTo(1024 * (0.026 + 0.12), 6);
  });

  it('uses the cheaper tiers above 50 TB', () => {
    const s3 = comparePrices(100 * 1024).find((row) => row.table === 'aws');
    expect(s3?.storageMonthly).toBeCloseTo(50 * 1024 * 0.023 + 50 * 1024 * 0.022, 6);
  });

  it('labels the dollar axis in cents when its steps are cents, in whole dollars otherwise', () => {
    expect([0, 0.045, 0.09, 0.135].map(axisUsd)).toEqual(['$0', '$0.045', '$0.09', '$0.135']);
    expect([0.05, 0.1].map(axisUsd)).toEqual(['$0.05', '$0.10']);
    expect([0, 250, 1500].map(axisUsd)).toEqual(['$0', '$250', '$1,500']);
    expect(axisUsd(2.5)).toBe('$2.50');
  });
});

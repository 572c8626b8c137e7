import { describe, expect, it } from 'vitest';
import { bucketNameErrors, bucketNameMessages as m } from './bucket-name.ts';
import { calculatorSize, estimateMonthlyCost, monthlyStorageCostGb, SIZE_UNITS_GB } from './pricing.ts';
import { AWS_REGIONS, providersAllowedFor, WASABI_REGIONS } from './providers.ts';

describe('bucket name rules (spec 000 §5), each with its own message', () => {
  it.each([
    ['', [m.required]],
    ['my-Bucket', [m.uppercase]],
    ['My-bucket', [m.uppercase, m.start]],
    ['-bucket', [m.start]],
    ['my..bucket', [m.adjacentPeriods]],
    ['my-.bucket', [m.dashNextToPeriod]],
    ['my.-bucket', [m.dashNextToPeriod]],
    ['bucket-', [m.end]],
    ['bucket.', [m.end]],
    ['my_bucket', [m.invalidCharacters]],
    ['ab', [m.length]],
    ['a'.repeat(64), [m.length]],
    ['192.168.5.4', [m.ipAddress]],
  ])('%j breaks exactly its rule', (name, expected) => {
    expect(bucketNameErrors(name)).toEqual(expected);
  });
  it('accepts valid names', () => {
    for (const name of ['abc', 'my.bucket-01', '9lives', 'a'.repeat(63)])
      expect(bucketNameErrors(name)).toEqual([]);
  });
  it('quotes the spec for the required and taken messages', () => {
    expect(m.required).toBe('Name is required.');
    expect(m.taken).toBe('Bucket with same name exist');
  });
});

describe('price table (spec 000 §9)', () => {
  it('prices aws in tiers of 50 TB and 500 TB', () => {
    expect(monthlyStorageCostGb('aws', 1000)).toBeCloseTo(23, 6);
    expect(monthlyStorageCostGb('aws', 100 * 1024)).toBeCloseTo(50 * 1024 * 0.023 + 50 * 1024 * 0.022, 6);
    expect(monthlyStorageCostGb('aws', 600 * 1024)).toBeCloseTo(
      50 * 1024 * 0.023 + 450 * 1024 * 0.022 + 100 * 1024 * 0.021,
      6,
    );
  });
  it('prices wasabi, azure and google per GB', () => {
    expect(monthlyStorageCostGb('wasabi', 1000)).toBeCloseTo(4.9, 6);
    expect(monthlyStorageCostGb('azure', 1000)).toBeCloseTo(18.4, 6);
    expect(monthlyStorageCostGb('google', 1000)).toBeCloseTo(26, 6);
  });
  it('estimates a bucket from bytes, pricing S3-compatible stores like aws', () => {
    expect(estimateMonthlyCost('genericS3', 1024 ** 4)).toBeCloseTo(1024 * 0.023, 6);
    expect(estimateMonthlyCost('azure', 0)).toBe(0);
  });
  it('keeps the calculator units and the size rounding rule', () => {
    expect(SIZE_UNITS_GB).toEqual({ GB: 1, TB: 1024, PB: 1048576 });
    expect(calculatorSize(2.4)).toBe(2);
    expect(calculatorSize(0.2)).toBe(1);
    expect(calculatorSize(Number.NaN)).toBe(1);
  });
});

describe('providers and regions', () => {
  it('lists the 17 aws and 3 wasabi regions', () => {
    expect(AWS_REGIONS).toHaveLength(17);
    expect(WASABI_REGIONS).toEqual(['us-east-1', 'us-west-1', 'eu-central-1']);
  });
  it('lets userType 4 add every provider and others only wasabi', () => {
    expect(providersAllowedFor(4)).toEqual([
      'aws',
      'wasabi',
      'azure',
      'backblaze',
      'genericS3',
      'google',
      'filebase',
    ]);
    expect(providersAllowedFor(1)).toEqual(['wasabi']);
  });
});

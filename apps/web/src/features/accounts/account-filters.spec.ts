import { describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import {
  NO_FILTERS,
  bucketMatches,
  costSliderMax,
  filterAccounts,
  regionOptions,
  usageSliderMax,
  type AccountFilters,
} from './account-filters.ts';
import { GB, buildBucket, buildCloudAccount } from './account-factories.ts';

const filters = (overrides: Partial<AccountFilters>): AccountFilters => ({ ...NO_FILTERS, ...overrides });
/** A local time, as the list shows dates in the browser's time zone. */
const localIso = (text: string) => dayjs(text).toISOString();

describe('bucket filters (spec 000 §5)', () => {
  const bucket = buildBucket({ name: 'Media-Archive-2024', region: 'eu-central-1' });

  it('matches the name case-insensitively as a contains, and an empty search matches all', () => {
    expect(bucketMatches(bucket, filters({ search: 'archive' }))).toBe(true);
    expect(bucketMatches(bucket, filters({ search: 'MEDIA-ar' }))).toBe(true);
    expect(bucketMatches(bucket, filters({ search: '  archive ' }))).toBe(true);
    expect(bucketMatches(bucket, filters({ search: 'backup' }))).toBe(false);
    expect(bucketMatches(bucket, filters({ search: '' }))).toBe(true);
  });

  it("matches every region for 'all', else only the chosen one", () => {
    expect(bucketMatches(bucket, filters({ region: 'all' }))).toBe(true);
    expect(bucketMatches(bucket, filters({ region: 'eu-central-1' }))).toBe(true);
    expect(bucketMatches(bucket, filters({ region: 'us-east-1' }))).toBe(false);
  });

  it('includes both days of the creation date range', () => {
    const range = filters({ createdFrom: '2025-03-01', createdTo: '2025-03-10' });
    const createdAt = (text: string) => buildBucket({ name: 'b', creationDate: localIso(text) });
    expect(bucketMatches(createdAt('2025-03-01T00:00:00'), range)).toBe(true);
    expect(bucketMatches(createdAt('2025-03-10T23:59:59'), range)).toBe(true);
    expect(bucketMatches(createdAt('2025-02-28T23:59:59'), range)).toBe(false);
    expect(bucketMatches(createdAt('2025-03-11T00:00:00'), range)).toBe(false);
    // A single day: from and to are the same day.
    const oneDay = filters({ createdFrom: '2025-03-10', createdTo: '2025-03-10' });
    expect(bucketMatches(createdAt('2025-03-10T12:00:00'), oneDay)).toBe(true);
    expect(bucketMatches(buildBucket({ name: 'b', creationDate: null }), oneDay)).toBe(false);
  });
});

describe('slider maxima (spec 000 §5)', () => {
  it('usage maximum is the highest account usage in GB plus 2, 100 without accounts', () => {
    expect(usageSliderMax([])).toBe(100);
    expect(
      usageSliderMax([
        buildCloudAccount({ total_bytes_used: 10 * GB }),
        buildCloudAccount({ total_bytes_used: 40 * GB }),
      ]),
    ).toBe(42);
    // Part of a GB is rounded up so the largest account stays inside the slider.
    expect(usageSliderMax([buildCloudAccount({ total_bytes_used: 0.4 * GB })])).toBe(3);
    expect(usageSliderMax([buildCloudAccount({ total_bytes_used: 0 })])).toBe(2);
  });

  it('cost maximum is the highest account cost plus 1, 100 without accounts', () => {
    expect(costSliderMax([])).toBe(100);
    expect(costSliderMax([buildCloudAccount({ total_cost: 5 }), buildCloudAccount({ total_cost: 12 })])).toBe(
      13,
    );
    expect(costSliderMax([buildCloudAccount({ total_cost: 0.23 })])).toBe(2);
  });
});

describe('filterAccounts', () => {
  const aws = buildCloudAccount({
    id: 'aws-1',
    provider: 'aws',
    storages: [
      buildBucket({ name: 'logs', cloud_account_id: 'aws-1', region: 'us-east-1', size: 3 * GB, cost: 0.07 }),
      buildBucket({
        name: 'photos',
        cloud_account_id: 'aws-1',
        region: 'eu-west-1',
        size: 7 * GB,
        cost: 0.16,
      }),
    ],
  });
  const wasabi = buildCloudAccount({
    id: 'wasabi-1',
    provider: 'wasabi',
    storages: [
      buildBucket({ name: 'backup', cloud_account_id: 'wasabi-1', region: 'us-east-1', size: 50 * GB }),
    ],
    total_cost: 20,
  });
  const empty = buildCloudAccount({ id: 'azure-1', provider: 'azure', storages: [] });
  const all = [aws, wasabi, empty];
  const ids = (list: ReturnType<typeof filterAccounts>) => list.map((entry) => entry.account.id);

  it('shows everything without filters, accounts without buckets included', () => {
    expect(ids(filterAccounts(all, NO_FILTERS))).toEqual(['aws-1', 'wasabi-1', 'azure-1']);
  });

  it('hides buckets that do not match and accounts left without a match', () => {
    const result = filterAccounts(all, filters({ search: 'PHO' }));
    expect(ids(result)).toEqual(['aws-1']);
    expect(result[0]?.visibleBuckets.map((b) => b.name)).toEqual(['photos']);
    expect(result[0]?.hiddenBucketCount).toBe(1);
  });

  it('filters by provider type', () => {
    expect(ids(filterAccounts(all, filters({ type: 'wasabi' })))).toEqual(['wasabi-1']);
    expect(ids(filterAccounts(all, filters({ type: 'azure' })))).toEqual(['azure-1']);
  });

  it('keeps accounts whose usage and cost are inside the slider ranges, ends included', () => {
    expect(ids(filterAccounts(all, filters({ usageGb: [10, 10] })))).toEqual(['aws-1']);
    expect(ids(filterAccounts(all, filters({ usageGb: [0, 9.99] })))).toEqual(['azure-1']);
    expect(ids(filterAccounts(all, filters({ costUsd: [1, 20] })))).toEqual(['wasabi-1']);
  });

  it('shows all buckets of a revealed (collapsed) account despite the bucket filters', () => {
    const result = filterAccounts(all, filters({ region: 'eu-west-1' }), new Set(['aws-1']));
    expect(result[0]?.visibleBuckets.map((b) => b.name)).toEqual(['logs', 'photos']);
    expect(result[0]?.hiddenBucketCount).toBe(0);
  });

  it('lists the regions present among the buckets', () => {
    expect(regionOptions(all)).toEqual(['eu-west-1', 'us-east-1']);
  });
});

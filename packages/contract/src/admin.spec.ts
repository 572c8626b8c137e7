import { describe, expect, it } from 'vitest';
import {
  adminTransferCostsQuery,
  adminUsageHistoryQuery,
  createAccountBody,
  directionOf,
  formatAdminDate,
  formatAdminRate,
  inviteAdminUserBody,
  parseDirection,
} from './admin.ts';
import { csvLine } from './csv.ts';

describe('admin report formats', () => {
  it('shows dates as MM/DD/YYYY - hh:mm (24-hour) in the zone asked', () => {
    expect(formatAdminDate('2026-03-04T17:05:00.000Z')).toBe('03/04/2026 - 17:05');
    expect(formatAdminDate('2026-03-04T17:05:00.000Z', 'America/New_York')).toBe('03/04/2026 - 12:05');
    expect(formatAdminDate(null)).toBe('');
  });

  it('names directions as the spec does and refuses what is not a provider pair', () => {
    expect(directionOf('aws', 'wasabi').label).toBe('AWS to Wasabi');
    expect(directionOf('genericS3', 'wasabi')).toMatchObject({
      key: 'genericS3:wasabi',
      label: 'Generic S3 to Wasabi',
    });
    expect(parseDirection('azure:wasabi')).toEqual({ source: 'azure', destination: 'wasabi' });
    expect(parseDirection('azure:ftp')).toBeNull();
    expect(parseDirection('aws:wasabi:x')).toBeNull();
  });

  it('trims the price per GB to its significant decimals', () => {
    expect(formatAdminRate(0.15)).toBe('$0.15');
    expect(formatAdminRate(0.237)).toBe('$0.237');
  });

  it('cuts the transfer report search to 20 characters and checks the period and directions', () => {
    const query = adminTransferCostsQuery.parse({ search: 'AWS to Wasabi and then some more' });
    expect(query.search).toBe('AWS to Wasabi and th');
    expect(adminUsageHistoryQuery.safeParse({ start: '2026-05-02', end: '2026-05-01' }).success).toBe(false);
    expect(adminUsageHistoryQuery.safeParse({ directions: 'aws:wasabi,nope:wasabi' }).success).toBe(false);
    expect(adminUsageHistoryQuery.parse({ directions: 'aws:wasabi, azure:wasabi' }).directions).toEqual([
      'aws:wasabi',
      'azure:wasabi',
    ]);
    expect(adminUsageHistoryQuery.safeParse({ tz: 'Mars/Olympus' }).success).toBe(false);
    expect(adminUsageHistoryQuery.safeParse({ start: '2026-02-31' }).success).toBe(false);
  });

  it('validates the two forms with the words of the form', () => {
    expect(createAccountBody.safeParse({ account_name: '  ' }).error?.issues[0]?.message).toBe(
      'Please enter the account name.',
    );
    expect(createAccountBody.safeParse({ account_name: 'a\u0000b' }).success).toBe(false);
    const invite = inviteAdminUserBody.safeParse({ first_name: 'A', last_name: 'B', email: 'A@X.io' });
    expect(invite.error?.issues[0]?.message).toBe('Please select an account.');
    expect(
      inviteAdminUserBody.parse({
        first_name: 'A',
        last_name: 'B',
        email: 'A@X.io',
        organization_id: '7f0c8a4e-3b8e-4a52-9a3c-1f2d3e4f5a6b',
      }).email,
    ).toBe('a@x.io');
  });

  it('quotes CSV cells and defuses formulas', () => {
    expect(csvLine(['a,b', '=1+1', 'plain', null])).toBe(`"a,b",'=1+1,plain,\r\n`);
  });
});

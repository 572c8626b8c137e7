import { describe, expect, it } from 'vitest';
import { billingMessages } from '@cumulo/contract';
import { ApiError } from '../../api/client.ts';
import { buildProfile } from '../../test/factories.ts';
import { quotaRefusal, quotaShortfall, uploadQuotaKey } from './quota-refusal.ts';

describe('quota checks (spec 001 §5)', () => {
  it('gives what is left only when the work would pass it; unlimited and absent quotas never stop work', () => {
    const profile = buildProfile({
      quota: { c2c: { used: 900, total: 1000 }, encoding: { used: 5000, total: -1 } },
    });
    expect(quotaShortfall(profile, 'c2c', 100)).toBeNull();
    expect(quotaShortfall(profile, 'c2c', 101)).toBe(100);
    expect(quotaShortfall(profile, 'encoding', 10 ** 12)).toBeNull();
    expect(quotaShortfall(profile, 'wasabi', 10 ** 12)).toBeNull();
  });

  it("reads the server's over-quota 403 and nothing else", () => {
    const body = {
      message: billingMessages.quotaRemaining('1 kB'),
      title: billingMessages.transfersQuotaTitle,
      quota: 'c2c',
      remaining: 1024,
    };
    expect(quotaRefusal(new ApiError(403, body.message, body))).toEqual({
      title: billingMessages.transfersQuotaTitle,
      message: body.message,
    });
    expect(quotaRefusal(new ApiError(403, 'Forbidden', { message: 'Forbidden' }))).toBeNull();
    expect(quotaRefusal(new Error('network'))).toBeNull();
  });

  it('checks an upload against the quota the server counts it on', () => {
    expect(uploadQuotaKey('aws', true)).toBe('s3_acceleration');
    expect(uploadQuotaKey('wasabi', false)).toBe('wasabi');
    expect(uploadQuotaKey('genericS3', false)).toBe('s3_native');
    expect(uploadQuotaKey('azure', false)).toBeNull();
  });
});

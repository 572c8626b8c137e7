import { describe, expect, it } from 'vitest';
import { BadSignature, CardDeclined, type CardInput } from '../gateway.ts';
import { ManualGateway } from './manual.gateway.ts';

const now = new Date(Date.UTC(2026, 0, 31, 12));
const gateway = new ManualGateway(() => now);
const card = (extra: Partial<CardInput> = {}): CardInput => ({
  number: '5555 5555 5555 4444',
  cvc: '123',
  expMonth: 1,
  expYear: 2026,
  firstName: 'Ada',
  lastName: 'Test',
  address: { line1: '', line2: '', city: '', state: '', zip: '', country: '' },
  ...extra,
});
const price = { productHandle: 'analytics', title: 'Analytics', amountCents: 2000 };

describe('ManualGateway', () => {
  it('keeps brand, last 4 and expiry of a valid card (valid through its expiry month)', async () => {
    const stored = await gateway.addCard('manual_cus_x', card(), true);
    expect(stored).toEqual({
      ref: expect.stringMatching(/^manual_[0-9a-f-]{36}$/),
      brand: 'master',
      last4: '4444',
      expMonth: 1,
      expYear: 2026,
    });
  });

  it.each([
    ['a number failing Luhn', card({ number: '5555555555554445' })],
    ['an expired card', card({ expMonth: 12, expYear: 2025 })],
    ['a short CVC', card({ cvc: '12' })],
    ['a 3-digit CVC on American Express', card({ number: '378282246310005', cvc: '123' })],
  ])('declines %s', async (_, input) => {
    await expect(gateway.addCard('manual_cus_x', input, false)).rejects.toBeInstanceOf(CardDeclined);
  });

  it('runs subscriptions a month or a year from now, and cancels at period end', async () => {
    const monthly = await gateway.createSubscription('c', { ...price, period: 'monthly' }, {});
    expect(monthly.ref).toMatch(/^manual_sub_[0-9a-f-]{36}$/);
    expect([monthly.state, monthly.currentPeriodStart, monthly.currentPeriodEnd]).toEqual([
      'active',
      now,
      new Date(Date.UTC(2026, 1, 28, 12)),
    ]);
    const yearly = await gateway.createSubscription('c', { ...price, period: 'annually' }, {});
    expect(yearly.currentPeriodEnd).toEqual(new Date(Date.UTC(2027, 0, 31, 12)));
    expect((await gateway.cancelSubscription(monthly.ref ?? '')).state).toBe('pending_cancel');
    expect((await gateway.reactivateSubscription(monthly.ref ?? '')).state).toBe('active');
  });

  it('takes no webhooks', () => {
    expect(() => gateway.readWebhook(Buffer.from('{}'), 't=1,v1=abc')).toThrow(BadSignature);
  });
});

import { describe, expect, it } from 'vitest';
import { billingMessages } from '@cumulo/contract';
import { cardCvcError, cardExpiryError, cardNameError, cardNumberError, cardPayload } from './card-form.ts';

const NOW = new Date('2026-11-26T12:00:00Z');

describe('card form rules (spec 001 §5 "Billing form")', () => {
  it('removes the spaces from the number and the spaces and slashes from the expiry', () => {
    expect(
      cardPayload({
        number: ' 4242 4242 4242 4242 ',
        name: 'Ada King Lovelace',
        expiry: '12 / 40',
        cvc: '123',
      }),
    ).toEqual({
      full_number: '4242424242424242',
      cvv: '123',
      expiration_month: 12,
      expiration_year: 2040,
      first_name: 'Ada King',
      last_name: 'Lovelace',
      billing_address: '',
      billing_city: '',
      billing_state: '',
      billing_zip: '',
      billing_country: 'USA',
      payment_type: 'credit_card',
    });
  });

  it("says each field's message in the spec's words", () => {
    expect(cardNumberError('4242 4242 4242 4241')).toBe(billingMessages.cardNumber);
    expect(cardNumberError('')).toBe(billingMessages.cardNumber);
    expect(cardNumberError('4242 4242 4242 4242')).toBeNull();
    expect(cardNameError('  ')).toBe(billingMessages.cardName);
    expect(cardExpiryError('13/30', NOW)).toBe(billingMessages.cardExpiry);
    expect(cardExpiryError('10/26', NOW)).toBe(billingMessages.cardExpiry);
    expect(cardExpiryError('11/26', NOW)).toBeNull();
    expect(cardExpiryError('1 1 / 2 6', NOW)).toBeNull();
    expect(cardCvcError('12', '4242424242424242')).toBe(billingMessages.cardCvc);
    expect(cardCvcError('1234', '378282246310005')).toBeNull();
    expect(cardCvcError('123', '378282246310005')).toBe(billingMessages.cardCvc);
  });

  it('gives no payload while a rule fails', () => {
    expect(cardPayload({ number: '4242424242424242', name: 'Ada', expiry: '1240', cvc: '' })).toBeNull();
  });
});

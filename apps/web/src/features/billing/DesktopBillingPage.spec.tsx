import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { FREE_PLAN_HANDLE, billingMessages } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';

describe('/desktopbilling, signed out (the network is stubbed with vi.stubGlobal fetch)', () => {
  it('subscribes a new desktop customer to the free plan with the card, in the payload of spec 001 §7', async () => {
    const calls = stubApi({
      'POST /api/billing/desktop/subscriptions/new_customer': { status: 201, body: {} },
    });
    const { user, location } = renderAt('/desktopbilling');
    await user.type(await screen.findByLabelText('First Name'), 'Ada');
    await user.type(screen.getByLabelText('Last Name'), 'Lovelace');
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Coupon Code'), 'WELCOME');
    await user.type(screen.getByLabelText('Card Number'), '4242 4242 4242 4242');
    await user.type(screen.getByLabelText('Name on Card'), 'Ada Lovelace');
    await user.type(screen.getByLabelText('Expiry'), '12/40');
    await user.type(screen.getByLabelText('CVC'), '123');
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));

    expect(await screen.findByText(billingMessages.subscribed)).toBeInTheDocument();
    expect(location()).toBe('/desktopbilling');
    expect(calls.map((call) => call.path)).toEqual(['/api/billing/desktop/subscriptions/new_customer']);
    expect(calls[0]?.headers.get('Authorization')).toBeNull();
    expect(calls[0]?.body).toEqual({
      customer_subscription: {
        subscription: {
          product_handle: FREE_PLAN_HANDLE,
          coupon_code: 'WELCOME',
          customer_attributes: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
          credit_card_attributes: expect.objectContaining({
            full_number: '4242424242424242',
            expiration_month: 12,
            expiration_year: 2040,
            billing_country: 'USA',
            payment_type: 'credit_card',
          }),
        },
      },
    });
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AUTH_STORAGE_KEY, billingMessages } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

type User = ReturnType<typeof renderAt>['user'];

async function fillCard(user: User, card: { number: string; name: string; expiry: string; cvc: string }) {
  await user.type(await screen.findByLabelText('Card Number'), card.number);
  if (card.name) await user.type(screen.getByLabelText('Name on Card'), card.name);
  await user.type(screen.getByLabelText('Expiry'), card.expiry);
  await user.type(screen.getByLabelText('CVC'), card.cvc);
}

describe('the card form on /billing/addcreditcard (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it("refuses a wrong card with each field's message and 'Please fill required fields', and sends nothing", async () => {
    const calls = stubApi({ 'GET /api/users/_me': { status: 200, body: buildProfile() } });
    const { user } = renderAt('/billing/addcreditcard');
    await fillCard(user, { number: '4242 4242 4242 4241', name: '', expiry: '13/99', cvc: '12' });
    await user.click(screen.getByRole('button', { name: 'Add Card' }));

    expect(await screen.findByText(billingMessages.cardNumber)).toBeInTheDocument();
    expect(await screen.findByText(billingMessages.cardName)).toBeInTheDocument();
    expect(await screen.findByText(billingMessages.cardExpiry)).toBeInTheDocument();
    expect(await screen.findByText(billingMessages.cardCvc)).toBeInTheDocument();
    expect(await screen.findByText(billingMessages.fillRequired)).toBeInTheDocument();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
  });

  it('sends the number without spaces and the expiry as month and year, then goes back to /billing', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'POST /api/billing/payment_profiles': { status: 201, body: {} },
      'GET /api/billing/payment_profiles': { status: 200, body: { billing_payment_profiles: [] } },
    });
    const { user, location } = renderAt('/billing/addcreditcard');
    await fillCard(user, {
      number: '4242 4242 4242 4242',
      name: 'Ada Lovelace',
      expiry: '12 / 40',
      cvc: '123',
    });
    await user.type(screen.getByLabelText('City'), 'London');
    await user.click(screen.getByRole('button', { name: 'Add Card' }));

    expect(await screen.findByText(billingMessages.cardAdded)).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/billing'));
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      default: true,
      credit_card_attributes: {
        full_number: '4242424242424242',
        cvv: '123',
        expiration_month: 12,
        expiration_year: 2040,
        first_name: 'Ada',
        last_name: 'Lovelace',
        billing_address: '',
        billing_city: 'London',
        billing_state: '',
        billing_zip: '',
        billing_country: 'USA',
        payment_type: 'credit_card',
      },
    });
    expect(await screen.findByText(billingMessages.noCards)).toBeInTheDocument();
  });

  it("shows the server's words when the gateway declines the card", async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'POST /api/billing/payment_profiles': {
        status: 400,
        body: { message: 'Your card was declined.', code: 'BAD_REQUEST' },
      },
    });
    const { user, location } = renderAt('/billing/addcreditcard');
    await fillCard(user, { number: '4000000000000002', name: 'Ada Lovelace', expiry: '1240', cvc: '123' });
    await user.click(screen.getByRole('button', { name: 'Add Card' }));

    expect(await screen.findByText('Your card was declined.')).toBeInTheDocument();
    expect(location()).toBe('/billing/addcreditcard');
  });

  it('shows a User no card form: only the Owner changes cards', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 3, title: 'User' } }) },
    });
    renderAt('/billing/addcreditcard');
    expect(await screen.findByText(billingMessages.ownerOnly)).toBeInTheDocument();
    expect(screen.queryByLabelText('Card Number')).toBeNull();
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, billingMessages, type UserProfile } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const member = (overrides: Partial<UserProfile> = {}) =>
  buildProfile({ role: { id: 3, title: 'User' }, ...overrides });

async function findModal(): Promise<HTMLElement> {
  return waitFor(() => {
    const dialog = screen
      .getAllByRole('dialog')
      .find((candidate) => within(candidate).queryByText('Subscribe to Analytics'));
    if (!dialog) throw new Error('no subscription modal');
    return dialog;
  });
}

describe('the subscription modal gating /analytics (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('opens the screen at once for an organisation holding the package', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ packages: [{ title: 'Analytics' }] }) },
    });
    renderAt('/analytics');
    expect(await screen.findByRole('heading', { name: 'Analytics' })).toBeInTheDocument();
    expect(screen.queryByText('Subscribe to Analytics')).toBeNull();
  });

  it('Owner with a card: the ticked confirmation enables Confirm, a new period unticks it, Confirm subscribes', async () => {
    let bought = false;
    const calls = stubApi({
      'GET /api/users/_me': () => ({
        status: 200,
        body: buildProfile({ has_billing_info: true, packages: bought ? [{ title: 'Analytics' }] : [] }),
      }),
      'POST /api/billing/subscriptions/': () => {
        bought = true;
        return { status: 201, body: {} };
      },
    });
    const { user } = renderAt('/analytics');
    const modal = await findModal();
    const confirm = within(modal).getByRole('button', { name: 'Confirm' });
    expect(confirm).toBeDisabled();
    expect(within(modal).queryByRole('button', { name: 'Send Request' })).toBeNull();

    await user.click(within(modal).getByRole('checkbox'));
    expect(confirm).toBeEnabled();
    await user.click(within(modal).getByRole('radio', { name: /Annually/ }));
    expect(within(modal).getByRole('checkbox')).not.toBeChecked();
    expect(confirm).toBeDisabled();
    await user.click(within(modal).getByRole('checkbox'));
    await user.click(confirm);

    expect(await screen.findByText(billingMessages.subscribed)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      product_handle: 'analytics',
      period: 'annually',
    });
    expect(await screen.findByRole('heading', { name: 'Analytics' })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Subscribe to Analytics')).toBeNull());
  });

  it('Owner without a card: ticking shows the card form, unticking hides it, the card goes with the order', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ has_billing_info: false }) },
      'POST /api/billing/subscriptions/': { status: 201, body: {} },
    });
    const { user } = renderAt('/analytics');
    const modal = await findModal();
    expect(within(modal).queryByLabelText('Card Number')).toBeNull();
    await user.click(within(modal).getByRole('checkbox'));
    expect(within(modal).getByLabelText('Card Number')).toBeInTheDocument();
    await user.click(within(modal).getByRole('checkbox'));
    expect(within(modal).queryByLabelText('Card Number')).toBeNull();

    await user.click(within(modal).getByRole('checkbox'));
    await user.type(within(modal).getByLabelText('Card Number'), '4242 4242 4242 4242');
    await user.type(within(modal).getByLabelText('Name on Card'), 'Ada Lovelace');
    await user.type(within(modal).getByLabelText('Expiry'), '12/40');
    await user.type(within(modal).getByLabelText('CVC'), '123');
    await user.click(within(modal).getByRole('button', { name: 'Confirm' }));

    expect(await screen.findByText(billingMessages.subscribed)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toMatchObject({
      product_handle: 'analytics',
      period: 'monthly',
      credit_card_attributes: {
        full_number: '4242424242424242',
        expiration_month: 12,
        expiration_year: 2040,
      },
    });
  });

  it('a User sends a request to the Owner and goes to /', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: member() },
      'POST /api/packages/request_service': { status: 201, body: { message: billingMessages.requestSent } },
    });
    const { user, location } = renderAt('/analytics');
    const modal = await findModal();
    expect(within(modal).queryByRole('button', { name: 'Confirm' })).toBeNull();
    const send = within(modal).getByRole('button', { name: 'Send Request' });
    expect(send).toBeDisabled();
    await user.click(within(modal).getByRole('checkbox'));
    await user.click(send);

    expect(await screen.findByText(billingMessages.requestSent)).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/'));
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      service_name: 'analytics',
      plan: 'monthly',
    });
  });

  it('Cancel returns to /', async () => {
    stubApi({ 'GET /api/users/_me': { status: 200, body: member() } });
    const { user, location } = renderAt('/finance');
    const dialog = await waitFor(() => {
      const found = screen.getAllByRole('dialog').find((d) => within(d).queryByText('Subscribe to Finance'));
      if (!found) throw new Error('no modal');
      return found;
    });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(location()).toBe('/'));
  });
});

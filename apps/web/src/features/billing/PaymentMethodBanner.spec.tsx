import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, QUOTA_KEYS, billingMessages } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const GiB = 1024 ** 3;
const billingInfo = {
  plan: null,
  subscription_id: null,
  has_billing_info: false,
  in_trial: true,
  gateway: 'manual',
  subscriptions: [],
  quota: Object.fromEntries(QUOTA_KEYS.map((key) => [key, { used: 0, total: -1 }])),
};

describe("the 'Set payment method' banner (the network is stubbed with vi.stubGlobal fetch)", () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('takes an Owner without a card whose quota is a fifth or less from its end to the card form', async () => {
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ quota: { c2c: { used: 8 * GiB, total: 10 * GiB } } }),
      },
      'GET /api/billing/billing_info': { status: 200, body: billingInfo },
    });
    const { user, location } = renderAt('/profile');
    const banner = await screen.findByRole('alert');
    await user.click(within(banner).getByRole('button', { name: billingMessages.setPaymentMethod }));
    await waitFor(() => expect(location()).toBe('/billing/addcreditcard'));
  });

  it('stays away with more than a fifth left, or with a card on file', async () => {
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({
          quota: { c2c: { used: 7 * GiB, total: 10 * GiB }, encoding: { used: 5 * GiB, total: -1 } },
        }),
      },
      'GET /api/billing/billing_info': { status: 200, body: billingInfo },
    });
    renderAt('/profile');
    expect(await screen.findByText('Plan usage')).toBeInTheDocument();
    expect(screen.queryByText(billingMessages.setPaymentMethod)).toBeNull();
  });

  it('asks a User to contact the Owner, with no button', async () => {
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({
          role: { id: 3, title: 'User' },
          quota: { c2c: { used: 10 * GiB, total: 10 * GiB } },
        }),
      },
      'GET /api/billing/billing_info': { status: 200, body: billingInfo },
    });
    renderAt('/profile');
    const banner = await screen.findByRole('alert');
    expect(banner).toHaveTextContent(
      'Please contact the Owner of your organisation to add a payment method.',
    );
    expect(within(banner).queryByRole('button')).toBeNull();
  });
});

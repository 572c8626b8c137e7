import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  QUOTA_KEYS,
  billingMessages,
  type PaymentProfileView,
  type SubscriptionView,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const card: PaymentProfileView = {
  id: 'card-1',
  first_name: 'Ada',
  last_name: 'Lovelace',
  masked_card_number: 'XXXX-XXXX-XXXX-4242',
  expiration_month: 4,
  expiration_year: 2031,
  card_type: 'visa',
  default: true,
  created_at: '2026-11-01T10:00:00.000Z',
};

const analytics: SubscriptionView = {
  id: 'sub-1',
  kind: 'package',
  product_handle: 'analytics',
  title: 'Analytics',
  period: 'monthly',
  state: 'active',
  price: 20,
  coupon_code: null,
  current_period_started_at: '2026-11-01T10:00:00.000Z',
  current_period_ends_at: '2026-12-01T10:00:00.000Z',
  canceled_at: null,
  created_at: '2026-11-01T10:00:00.000Z',
};

const info = (subscriptions: SubscriptionView[], seats = 0) => ({
  plan: null,
  subscription_id: null,
  has_billing_info: true,
  in_trial: false,
  gateway: 'manual',
  subscriptions,
  quota: Object.fromEntries(QUOTA_KEYS.map((key) => [key, { used: 0, total: -1 }])),
  seats,
});

describe('/billing (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it("lists the cards masked with brand and expiry; with none, 'No Credit Cards Added'", async () => {
    let cards = [card];
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ has_billing_info: true }) },
      'GET /api/billing/payment_profiles': () => ({ status: 200, body: { billing_payment_profiles: cards } }),
      'GET /api/billing/billing_info': { status: 200, body: info([]) },
      'DELETE /api/billing/payment_profiles/card-1': () => {
        cards = [];
        return { status: 200, body: { message: 'ok' } };
      },
    });
    const { user } = renderAt('/billing');
    expect(await screen.findByText('XXXX-XXXX-XXXX-4242')).toBeInTheDocument();
    expect(screen.getByText('Default')).toBeInTheDocument();
    expect(screen.getByText(/Visa · Ada Lovelace · Expires 04\/2031/)).toBeInTheDocument();
    expect(screen.getByText('Free')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Remove' }));
    const popover = (await screen.findByText('Remove this card?')).closest<HTMLElement>('.ant-popover');
    if (!popover) throw new Error('no confirmation');
    await user.click(within(popover).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText(billingMessages.noCards)).toBeInTheDocument();
    expect(await screen.findByText(billingMessages.cardRemoved)).toBeInTheDocument();
    expect(calls.some((call) => call.method === 'DELETE')).toBe(true);
  });

  it('makes another card the default; offers no Cancel on the Free plan, and nothing on an ended subscription', async () => {
    const second: PaymentProfileView = {
      ...card,
      id: 'card-2',
      masked_card_number: 'XXXX-XXXX-XXXX-5556',
      default: false,
    };
    let cards = [card, second];
    const free: SubscriptionView = {
      ...analytics,
      id: 'sub-free',
      kind: 'plan',
      product_handle: 'free',
      title: 'Free',
      price: 0,
    };
    const ended: SubscriptionView = { ...analytics, id: 'sub-old', title: 'Finance', state: 'canceled' };
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ has_billing_info: true }) },
      'GET /api/billing/payment_profiles': () => ({ status: 200, body: { billing_payment_profiles: cards } }),
      'GET /api/billing/billing_info': { status: 200, body: info([free, ended]) },
      'PUT /api/billing/payment_profiles/card-2/default': () => {
        cards = [
          { ...second, default: true },
          { ...card, default: false },
        ];
        return {
          status: 200,
          body: {
            message: billingMessages.cardMadeDefault(second.masked_card_number),
            payment_profile: cards[0],
          },
        };
      },
    });
    const { user } = renderAt('/billing');
    expect(await screen.findByText('XXXX-XXXX-XXXX-5556')).toBeInTheDocument();
    // The default card has no "Make default".
    expect(screen.queryByRole('button', { name: 'Make XXXX-XXXX-XXXX-4242 the default card' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Make XXXX-XXXX-XXXX-5556 the default card' }));
    expect(
      await screen.findByText(billingMessages.cardMadeDefault('XXXX-XXXX-XXXX-5556')),
    ).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'PUT').map((call) => call.path)).toEqual([
      '/api/billing/payment_profiles/card-2/default',
    ]);
    expect(
      await screen.findByRole('button', { name: 'Make XXXX-XXXX-XXXX-4242 the default card' }),
    ).toBeInTheDocument();

    const table = await screen.findByRole('region', { name: 'Subscriptions' });
    expect(await within(table).findByText('Finance')).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(within(table).queryByRole('button', { name: 'Reactivate' })).toBeNull();
  });

  it('cancels a subscription, offers to reactivate it and shows its history', async () => {
    let subscriptions = [analytics];
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ has_billing_info: true }) },
      'GET /api/billing/payment_profiles': { status: 200, body: { billing_payment_profiles: [card] } },
      'GET /api/billing/billing_info': () => ({ status: 200, body: info(subscriptions, 2) }),
      'DELETE /api/billing/subscriptions/sub-1': () => {
        subscriptions = [{ ...analytics, state: 'pending_cancel' }];
        return { status: 200, body: {} };
      },
      'GET /api/billing/events/subscription/sub-1': {
        status: 200,
        body: {
          events: [
            {
              id: 'e1',
              type: 'created',
              created_at: '2026-11-01T10:00:00.000Z',
              author: 'ada@example.com',
              data: {},
            },
          ],
        },
      },
    });
    const { user } = renderAt('/billing');
    expect(await screen.findByText('2 beyond the first × $8.00/month = $16.00/month')).toBeInTheDocument();
    const table = await screen.findByRole('region', { name: 'Subscriptions' });
    expect(await within(table).findByText('Analytics')).toBeInTheDocument();
    await user.click(within(table).getByRole('button', { name: 'Cancel' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel subscription' }));
    expect(await within(table).findByRole('button', { name: 'Reactivate' })).toBeInTheDocument();
    expect(calls.some((call) => call.method === 'DELETE')).toBe(true);
    // Scheduled to end: said in words, and the date is when it ends, not a renewal.
    expect(within(table).getByText('Ends at period end')).toBeInTheDocument();
    expect(within(table).getByText(/^Ends /)).toBeInTheDocument();
    expect(within(table).queryByText('pending_cancel')).toBeNull();

    await user.click(within(table).getByRole('button', { name: /expand row/i }));
    expect(await screen.findByText('created')).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
  });

  it('shows a User the cards and subscriptions without change controls', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 3, title: 'User' } }) },
      'GET /api/billing/payment_profiles': { status: 200, body: { billing_payment_profiles: [card] } },
      'GET /api/billing/billing_info': { status: 200, body: info([analytics]) },
    });
    renderAt('/billing');
    expect(await screen.findByText('XXXX-XXXX-XXXX-4242')).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByRole('region', { name: 'Subscriptions' })).toHaveTextContent('Analytics'),
    );
    expect(screen.queryByRole('button', { name: 'Remove' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Replace' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add Credit Card' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();
  });
});

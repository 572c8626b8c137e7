import { beforeEach, describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
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

describe('the plan usage card on /profile (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('shows each quota as used of total with the usage bar rules of spec 002 §9', async () => {
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({
          quota: {
            c2c: { used: 0.005 * GiB, total: 10 * GiB },
            encoding: { used: 4.5 * GiB, total: 5 * GiB },
            s3_acceleration: { used: 2 * GiB, total: 10 * GiB },
            wasabi: { used: 3 * GiB, total: -1 },
          },
        }),
      },
      'GET /api/billing/billing_info': { status: 200, body: billingInfo },
    });
    renderAt('/profile');

    expect(await screen.findByText('Trial')).toBeInTheDocument();
    expect(screen.getByText('5.12 MB of 10 GB')).toBeInTheDocument();
    expect(screen.getByText('3 GB of Unlimited')).toBeInTheDocument();
    const c2c = screen.getByRole('progressbar', { name: 'Cloud to cloud transfers' });
    expect(c2c).toHaveAttribute('aria-valuenow', '2');
    expect(c2c).toHaveAttribute('data-colour', 'green');
    const encoding = screen.getByRole('progressbar', { name: 'Encoding' });
    expect(encoding).toHaveAttribute('aria-valuenow', '90');
    expect(encoding).toHaveAttribute('data-colour', 'red');
    expect(screen.getByRole('progressbar', { name: 'Accelerated uploads' })).toHaveAttribute(
      'data-colour',
      'blue',
    );
    expect(screen.queryByRole('progressbar', { name: 'Wasabi uploads' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Request limit extension' })).toBeNull();
  });

  it('lets a User ask the Owner for a limit extension', async () => {
    const calls = stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ role: { id: 3, title: 'User' }, quota: { c2c: { used: 0, total: 10 * GiB } } }),
      },
      'GET /api/billing/billing_info': { status: 200, body: billingInfo },
      'POST /api/quota/request_extension': { status: 201, body: {} },
    });
    const { user } = renderAt('/profile');
    await user.click(await screen.findByRole('button', { name: 'Request limit extension' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Message'), 'We need 50 GB more this month.');
    await user.click(within(dialog).getByRole('button', { name: 'Send Request' }));

    expect(await screen.findByText(billingMessages.requestSent)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      message: 'We need 50 GB more this month.',
    });
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, PACKAGES, billingMessages, type PackageView } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const packages: PackageView[] = PACKAGES.map((pkg, index) => ({
  ...pkg,
  id: `pkg-${index}`,
  active: pkg.handle === 'finance',
  subscription_id: pkg.handle === 'finance' ? 'sub-1' : null,
  period: pkg.handle === 'finance' ? 'monthly' : null,
}));

describe('/pricings (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('shows 20 a month or 199 a year; an Owner activates through the subscription modal; held ones are active', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ has_billing_info: true }) },
      'GET /api/packages': { status: 200, body: { packages } },
    });
    const { user } = renderAt('/pricings');
    const analytics = await screen.findByRole('region', { name: 'Analytics' });
    expect(analytics).toHaveTextContent('$20 / month');
    expect(
      within(screen.getByRole('region', { name: 'Finance' })).getAllByText('Active').length,
    ).toBeGreaterThan(0);
    await user.click(screen.getByText('Annual'));
    expect(analytics).toHaveTextContent('$199 / year');

    await user.click(within(analytics).getByRole('button', { name: 'Activate Now' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Subscribe to Analytics');
    expect(within(dialog).getByRole('radio', { name: /Annually/ })).toBeChecked();
  });

  it("others send a request to the Owner: 'Request has been sent to the owner'", async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 2, title: 'Admin' } }) },
      'GET /api/packages': { status: 200, body: { packages } },
      'POST /api/packages/request_service': { status: 201, body: {} },
    });
    const { user } = renderAt('/pricings');
    const ftx = await screen.findByRole('region', { name: 'ftX' });
    expect(within(ftx).queryByRole('button', { name: 'Activate Now' })).toBeNull();
    await user.click(within(ftx).getByRole('button', { name: 'Send Request' }));
    expect(await screen.findByText(billingMessages.requestSent)).toBeInTheDocument();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      service_name: 'ftx',
      plan: 'monthly',
    });
  });

  it('hides purchase for an organisation flagged is_cbs', async () => {
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ organization: { ...buildProfile().organization, is_cbs: true } }),
      },
      'GET /api/packages': { status: 200, body: { packages } },
    });
    renderAt('/pricings');
    expect(await screen.findByText(billingMessages.cbsNoPurchase)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Activate Now' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Send Request' })).toBeNull();
  });
});

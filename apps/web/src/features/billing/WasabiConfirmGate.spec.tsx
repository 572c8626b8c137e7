import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, billingMessages, transferMessages, type UserProfile } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { wasabiConfirmTexts } from './WasabiConfirmGate.tsx';

const wasabiProfile = (confirmed: boolean, overrides: Partial<UserProfile> = {}) =>
  buildProfile({
    acl: { has_wasabi: true },
    organization: { ...buildProfile().organization, confirmed_wasabi: confirmed },
    ...overrides,
  });

async function findGate(): Promise<HTMLElement> {
  return waitFor(() => {
    const dialog = screen
      .getAllByRole('dialog')
      .find((candidate) => within(candidate).queryByText(wasabiConfirmTexts.title));
    if (!dialog) throw new Error('no Wasabi confirmation');
    return dialog;
  });
}

describe('the Wasabi storage confirmation on /wasabi (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('the ticked acknowledgement enables Confirm; without a card the card form comes first, then the flag', async () => {
    let confirmed = false;
    const calls = stubApi({
      'GET /api/users/_me': () => ({ status: 200, body: wasabiProfile(confirmed) }),
      'GET /api/cloud_accounts/': { status: 200, body: [] },
      'POST /api/billing/payment_profiles': { status: 201, body: {} },
      'PUT /api/organizations/_me': () => {
        confirmed = true;
        return {
          status: 200,
          body: { is_cbs: false, confirmed_c2c: false, confirmed_ftx: false, confirmed_wasabi: true },
        };
      },
    });
    const { user } = renderAt('/wasabi');
    const gate = await findGate();
    const confirm = within(gate).getByRole('button', { name: 'Confirm' });
    expect(confirm).toBeDisabled();
    await user.click(within(gate).getByRole('checkbox', { name: wasabiConfirmTexts.acknowledge }));
    await user.click(confirm);
    await user.type(within(gate).getByLabelText('Card Number'), '4242 4242 4242 4242');
    await user.type(within(gate).getByLabelText('Name on Card'), 'Ada Lovelace');
    await user.type(within(gate).getByLabelText('Expiry'), '12/40');
    await user.type(within(gate).getByLabelText('CVC'), '123');
    await user.click(within(gate).getByRole('button', { name: 'Add Card and Confirm' }));

    expect(await screen.findByText(billingMessages.cardAdded)).toBeInTheDocument();
    expect(await screen.findByText('Wasabi Files System')).toBeInTheDocument();
    expect(calls.filter((call) => call.method !== 'GET').map((call) => [call.path, call.body])).toEqual([
      ['/api/billing/payment_profiles', expect.objectContaining({ default: true })],
      ['/api/organizations/_me', { confirmed_wasabi: true }],
    ]);
  });

  it('a User is told the Owner confirms; Cancel returns to /', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: wasabiProfile(false, { role: { id: 3, title: 'User' } }) },
    });
    const { user, location } = renderAt('/wasabi');
    const gate = await findGate();
    expect(gate).toHaveTextContent(transferMessages.ownerConfirms);
    expect(within(gate).queryByRole('button', { name: 'Confirm' })).toBeNull();
    await user.click(within(gate).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(location()).toBe('/'));
  });
});

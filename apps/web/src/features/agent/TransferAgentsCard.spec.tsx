import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, agentMessages, type AgentDevice } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { PAIR_CODE } from './agent-test-kit.ts';

const MINE = '1a2b3c4d-0000-4000-8000-000000000001';
const THEIRS = '1a2b3c4d-0000-4000-8000-000000000002';

const device = (overrides: Partial<AgentDevice>): AgentDevice => ({
  id: MINE,
  name: 'ada-laptop',
  platform: 'macos',
  version: '0.1.0',
  user_id: 'user-1',
  user_email: 'ada@example.com',
  created_at: '2026-11-20T10:00:00.000Z',
  last_seen_at: '2026-11-27T09:15:00.000Z',
  ...overrides,
});

const devices = [
  device({}),
  device({
    id: THEIRS,
    name: 'file-server-2',
    platform: 'linux',
    user_id: 'user-9',
    user_email: 'grace@example.com',
    created_at: '2026-11-22T10:00:00.000Z',
    last_seen_at: null,
  }),
];

function stubProfile(role: 'Owner' | 'User') {
  let listed = devices;
  const calls = stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 1, title: role } }) },
    'GET /api/agent/devices': () => ({ status: 200, body: { devices: listed } }),
    [`DELETE /api/agent/devices/${MINE}`]: () => {
      listed = listed.filter((candidate) => candidate.id !== MINE);
      return { status: 204 };
    },
    'POST /api/agent/pairing-codes': {
      status: 201,
      body: { code: PAIR_CODE, expires_at: '2026-11-27T10:10:00.000Z' },
    },
  });
  return calls;
}

const card = () => screen.getByRole('table', { name: 'Paired transfer agents' });

describe('/profile transfer agents card (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1'));

  it("lists an Owner the organisation's devices with their users, and revokes one after the confirmation", async () => {
    const calls = stubProfile('Owner');
    const { user } = renderAt('/profile');

    expect(await screen.findByText('Transfer agents')).toBeInTheDocument();
    expect(await within(card()).findByText('ada-laptop')).toBeInTheDocument();
    expect(within(card()).getByText('macOS')).toBeInTheDocument();
    expect(within(card()).getByText('grace@example.com')).toBeInTheDocument();
    expect(within(card()).getByText('11/20/2026')).toBeInTheDocument();
    expect(within(card()).getByText('Never')).toBeInTheDocument();
    expect(within(card()).getByRole('button', { name: 'Revoke file-server-2' })).toBeInTheDocument();

    await user.click(within(card()).getByRole('button', { name: 'Revoke ada-laptop' }));
    expect(await screen.findByText('Revoke ada-laptop?')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Revoke' }));

    expect(await screen.findByText(agentMessages.deviceRevoked)).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([
      `/api/agent/devices/${MINE}`,
    ]);
    await waitFor(() => expect(within(card()).queryByText('ada-laptop')).toBeNull());
  });

  it("shows a User no other user's email and no Revoke on another's device", async () => {
    stubProfile('User');
    renderAt('/profile');
    expect(
      await within(await screen.findByRole('table', { name: 'Paired transfer agents' })).findByText(
        'ada-laptop',
      ),
    ).toBeInTheDocument();
    expect(within(card()).queryByText('grace@example.com')).toBeNull();
    expect(within(card()).getByRole('button', { name: 'Revoke ada-laptop' })).toBeInTheDocument();
    expect(within(card()).queryByRole('button', { name: 'Revoke file-server-2' })).toBeNull();
  });

  it('creates a code for a headless machine and shows the command to run there', async () => {
    const calls = stubProfile('User');
    const { user } = renderAt('/profile');
    await user.click(await screen.findByRole('button', { name: 'Pair a device' }));

    const command = `cumulo-agent pair ${PAIR_CODE} --server ${window.location.origin}`;
    expect(await screen.findByText(`Pairing code ${PAIR_CODE}`)).toBeInTheDocument();
    const shown = screen.getByText(command);
    expect(within(shown.parentElement ?? shown).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(screen.getByText(/expires at/)).toHaveTextContent('11/27/2026');
    expect(calls.filter((call) => call.path === '/api/agent/pairing-codes')).toHaveLength(1);
  });

  it("says 'Files transfers are not activated for this user' and reads the profile again (spec 001 §8)", async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 1, title: 'User' } }) },
      'GET /api/agent/devices': { status: 200, body: { devices: [] } },
      'POST /api/agent/pairing-codes': {
        status: 403,
        body: { message: agentMessages.notActivated, code: 'SERVICE_OFF' },
      },
    });
    const { user } = renderAt('/profile');
    const pairButton = await screen.findByRole('button', { name: 'Pair a device' });
    await within(card()).findByText('No transfer agent is paired yet.');
    const profileReads = () => calls.filter((call) => call.path === '/api/users/_me').length;
    const before = profileReads();
    await user.click(pairButton);
    expect(await screen.findByText(agentMessages.notActivated)).toBeInTheDocument();
    await waitFor(() => expect(profileReads()).toBeGreaterThan(before));
  });
});

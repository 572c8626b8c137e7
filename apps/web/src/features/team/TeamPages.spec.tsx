import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import {
  AUTH_STORAGE_KEY,
  ROLE_ID,
  billingMessages,
  memberMessages,
  type MemberCard,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const card = (id: string, first: string, title: 'Owner' | 'Admin' | 'User'): MemberCard => ({
  id,
  first_name: first,
  last_name: 'Test',
  email: `${first.toLowerCase()}@example.com`,
  pictureUrl: null,
  created_at: '2026-11-01T10:00:00.000Z',
  activation_date: '2026-11-02T10:00:00.000Z',
  active: true,
  role: { id: ROLE_ID[title], title },
});

const members = [
  card('owner-1', 'Olga', 'Owner'),
  card('admin-1', 'Adam', 'Admin'),
  card('admin-2', 'Alma', 'Admin'),
  card('user-1', 'Ursula', 'User'),
];

const viewerAs = (id: string, title: 'Owner' | 'Admin', hasCard = true) =>
  buildProfile({ id, role: { id: ROLE_ID[title], title }, has_billing_info: hasCard });

/** Fills the first invite row with Ivy Tee, a User, and sends the form. */
async function inviteIvy(user: ReturnType<typeof renderAt>['user']) {
  await user.type(screen.getByLabelText('First Name', { selector: '#invite-0-first_name' }), 'Ivy');
  await user.type(screen.getByLabelText('Last Name', { selector: '#invite-0-last_name' }), 'Tee');
  await user.type(screen.getByLabelText('Email', { selector: '#invite-0-email' }), 'ivy@example.com');
  await user.click(screen.getByRole('combobox', { name: 'Role of row 1' }));
  await user.click(await screen.findByTitle('User'));
  await user.click(screen.getByRole('button', { name: 'Send Invites' }));
}

const switchOf = (first: string) => screen.getByRole('switch', { name: `Active: ${first} Test` });

describe('team screens (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('/users: user cards whose Active switch follows spec 002 §6 for an Admin and for an Owner', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: viewerAs('admin-1', 'Admin') },
      'GET /api/users': { status: 200, body: members },
    });
    const view = renderAt('/users');
    await screen.findByText('ursula@example.com');
    expect(screen.getByText('Invite Users').closest('a')).toHaveAttribute('href', '/users/invite');
    expect(within(screen.getByLabelText('Ursula Test')).getByText('11/02/2026')).toBeInTheDocument();
    // An Admin: only Users, never oneself.
    expect(switchOf('Ursula')).toBeEnabled();
    for (const first of ['Olga', 'Adam', 'Alma']) expect(switchOf(first)).toBeDisabled();
    view.unmount();

    stubApi({
      'GET /api/users/_me': { status: 200, body: viewerAs('owner-1', 'Owner') },
      'GET /api/users': { status: 200, body: members },
    });
    renderAt('/users');
    await screen.findByText('ursula@example.com');
    // The Owner: anyone but themselves.
    for (const first of ['Adam', 'Alma', 'Ursula']) expect(switchOf(first)).toBeEnabled();
    expect(switchOf('Olga')).toBeDisabled();
  });

  it('turning a switch off deactivates that member and says so', async () => {
    let list = members;
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: viewerAs('owner-1', 'Owner') },
      'GET /api/users': () => ({ status: 200, body: list }),
      'PUT /api/users/user-1/deactivate': () => {
        list = members.map((m) => (m.id === 'user-1' ? { ...m, active: false } : m));
        return { status: 200, body: { message: memberMessages.deactivated } };
      },
    });
    const { user } = renderAt('/users');
    await screen.findByText('ursula@example.com');
    await user.click(switchOf('Ursula'));
    expect(await screen.findByText(memberMessages.deactivated)).toBeInTheDocument();
    await waitFor(() => expect(switchOf('Ursula')).not.toBeChecked());
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.path)).toEqual([
      '/api/users/user-1/deactivate',
    ]);
  });

  it('/users/invite: 3 rows to start, add row, no Owner role, only complete rows count', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: viewerAs('owner-1', 'Owner') },
      'GET /api/users': { status: 200, body: members },
      'POST /api/users/invite': { status: 200, body: { message: memberMessages.invitesSent(1) } },
    });
    const { user, location } = renderAt('/users/invite');
    await screen.findByRole('heading', { name: 'Invite Users' });
    expect(screen.getAllByTestId('invite-row')).toHaveLength(3);
    await user.click(screen.getByRole('button', { name: /Add row/ }));
    expect(screen.getAllByTestId('invite-row')).toHaveLength(4);

    await user.click(screen.getByRole('combobox', { name: 'Role of row 1' }));
    expect(await screen.findByTitle('User')).toBeInTheDocument();
    expect(screen.getByTitle('Admin')).toBeInTheDocument();
    expect(screen.queryByTitle('Owner')).not.toBeInTheDocument();

    // Nothing complete yet: the form says so and sends nothing.
    await user.click(screen.getByRole('button', { name: 'Send Invites' }));
    expect(await screen.findByText(memberMessages.noCompleteRow)).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    await user.click(await screen.findByTitle('User'));
    await user.type(screen.getByLabelText('First Name', { selector: '#invite-0-first_name' }), 'Ivy');
    await user.type(screen.getByLabelText('Last Name', { selector: '#invite-0-last_name' }), 'Tee');
    await user.type(screen.getByLabelText('Email', { selector: '#invite-0-email' }), 'Ivy@Example.com');
    await user.type(screen.getByLabelText('First Name', { selector: '#invite-1-first_name' }), 'Half');
    await user.click(screen.getByRole('button', { name: 'Send Invites' }));

    expect(await screen.findByText(memberMessages.invitesSent(1))).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/users'));
    const sent = calls.find((c) => c.method === 'POST')?.body as { first_name: string }[];
    expect(sent).toHaveLength(4);
    expect(sent[0]).toEqual({
      first_name: 'Ivy',
      last_name: 'Tee',
      email: 'Ivy@Example.com',
      role_id: ROLE_ID.User,
    });
  });

  it('/users lists a new invitation under Pending invitations as soon as it is sent', async () => {
    const invitation = {
      id: 'inv-9',
      email: 'ivy@example.com',
      first_name: 'Ivy',
      last_name: 'Tee',
      role: { id: ROLE_ID.User, title: 'User' },
      invited_by: 'Olga Test',
      created_at: '2026-11-29T10:00:00.000Z',
      expires_at: '2026-12-06T10:00:00.000Z',
      expired: false,
    };
    let pending: (typeof invitation)[] = [];
    stubApi({
      'GET /api/users/_me': { status: 200, body: viewerAs('owner-1', 'Owner') },
      'GET /api/users': { status: 200, body: members },
      'GET /api/users/invitations': () => ({ status: 200, body: pending }),
      'POST /api/users/invite': () => {
        pending = [invitation];
        return { status: 200, body: { message: memberMessages.invitesSent(1) } };
      },
    });
    const { user, location } = renderAt('/users');
    expect(await screen.findByText(memberMessages.noPendingInvites)).toBeInTheDocument();
    await user.click(screen.getByText('Invite Users'));
    await screen.findByRole('heading', { name: 'Invite Users' });
    await inviteIvy(user);
    await waitFor(() => expect(location()).toBe('/users'));
    const table = await screen.findByRole('table', { name: 'Pending invitations' });
    expect(await within(table).findByText('ivy@example.com')).toBeInTheDocument();
  });

  it.each([
    ['Owner', 'owner-1'],
    ['Admin', 'admin-1'],
  ] as const)(
    'without billing info: the seat price notice first, then the no-card refusal (%s)',
    async (role, id) => {
      const calls = stubApi({
        'GET /api/users/_me': { status: 200, body: viewerAs(id, role, false) },
        'POST /api/users/invite': {
          status: 403,
          body: { message: billingMessages.userAddNeedsCard, code: 'CARD_REQUIRED' },
        },
      });
      const { user, location } = renderAt('/users/invite');
      await screen.findByRole('heading', { name: 'Invite Users' });
      await inviteIvy(user);

      expect(await screen.findByText('Each new user will be $8/month.')).toBeInTheDocument();
      expect(calls.some((c) => c.method === 'POST')).toBe(false);
      await user.click(screen.getByRole('button', { name: 'Continue' }));
      if (role === 'Owner') {
        // The Owner adds the card on /billing.
        expect(await screen.findByText(billingMessages.userAddNeedsCard)).toBeInTheDocument();
        await waitFor(() => expect(location()).toBe('/billing'));
      } else {
        // An Admin cannot add one there: the page says who can, and keeps the rows.
        expect(
          await screen.findByText(`${billingMessages.userAddNeedsCard} ${billingMessages.ownerOnly}`),
        ).toBeInTheDocument();
        expect(location()).toBe('/users/invite');
        expect(screen.getByLabelText('First Name', { selector: '#invite-0-first_name' })).toHaveValue('Ivy');
      }
    },
  );

  it('/users/{id}: no role selector for an Owner, nor for an Admin viewing an Admin; a role change asks first, says so and reads the reset permissions', async () => {
    const owner = buildProfile({ id: 'owner-1', first_name: 'Olga', role: { id: 1, title: 'Owner' } });
    const otherAdmin = buildProfile({ id: 'admin-2', first_name: 'Alma', role: { id: 2, title: 'Admin' } });
    const member = buildProfile({ id: 'user-1', first_name: 'Ursula', role: { id: 3, title: 'User' } });
    // Before the change Ursula has a limit of her own; the role change hands it back to the role.
    let limit = { value: 5 * 1024 * 1024, follows_role: false };
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: viewerAs('admin-1', 'Admin') },
      'GET /api/users/owner-1': { status: 200, body: owner },
      'GET /api/users/admin-2': { status: 200, body: otherAdmin },
      'GET /api/users/user-1': { status: 200, body: member },
      'GET /api/user_access_levels/user_acls/user-1': {
        status: 200,
        body: [
          {
            id: 'u-transfers',
            service: 'transfers',
            title: 'Transfers',
            enabled: true,
            has_permissions: true,
            follows_role: true,
          },
        ],
      },
      'GET /api/user_access_levels/u-transfers/user_permissions/': () => ({
        status: 200,
        body: [{ id: 'p-1', attribute: 'max_transfer_size', title: 'Maximum transfer size', ...limit }],
      }),
      'PUT /api/users/user-1': () => {
        limit = { value: -1, follows_role: true };
        return { status: 200, body: { message: memberMessages.roleUpdated } };
      },
    });
    const first = renderAt('/users/owner-1');
    await screen.findByRole('heading', { name: 'Olga Lovelace' });
    expect(screen.queryByRole('combobox', { name: 'Role' })).not.toBeInTheDocument();
    first.unmount();
    // Spec 002 §6's rule of the Active toggle holds for roles too: an Admin changes only a User's.
    const second = renderAt('/users/admin-2');
    await screen.findByRole('heading', { name: 'Alma Lovelace' });
    expect(screen.queryByRole('combobox', { name: 'Role' })).not.toBeInTheDocument();
    second.unmount();

    const { user } = renderAt('/users/user-1');
    await screen.findByRole('heading', { name: 'Ursula Lovelace' });
    await user.click(screen.getByRole('combobox', { name: 'Role' }));
    // An Admin makes no Owners.
    expect(screen.queryByTitle('Owner')).not.toBeInTheDocument();
    await user.click(await screen.findByTitle('Admin'));
    const dialogs = await screen.findAllByRole('dialog');
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]).toHaveTextContent("Change Ursula Lovelace's role to Admin?");
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Change role' }));
    expect(await screen.findByText(memberMessages.roleUpdated)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ role_id: ROLE_ID.Admin });
    // The permission values are read again, so the page shows the reset value, not the old 5 MB.
    await waitFor(() =>
      expect(
        calls.filter((c) => c.path === '/api/user_access_levels/u-transfers/user_permissions/'),
      ).toHaveLength(2),
    );
  });

  it('/users: pending invitations with who invited them, Resend and Cancel (after a confirmation)', async () => {
    let pending = [
      {
        id: 'inv-1',
        email: 'pen@example.com',
        first_name: 'Pen',
        last_name: 'Ding',
        role: { id: ROLE_ID.User, title: 'User' },
        invited_by: 'Olga Test',
        created_at: '2026-11-20T10:00:00.000Z',
        expires_at: '2026-11-27T10:00:00.000Z',
        expired: false,
      },
    ];
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: viewerAs('owner-1', 'Owner') },
      'GET /api/users': { status: 200, body: members },
      'GET /api/users/invitations': () => ({ status: 200, body: pending }),
      'POST /api/users/invitations/inv-1/resend': {
        status: 200,
        body: { message: memberMessages.inviteResent },
      },
      'DELETE /api/users/invitations/inv-1': () => {
        pending = [];
        return { status: 200, body: { message: memberMessages.inviteCancelled } };
      },
    });
    const { user } = renderAt('/users');
    const table = await screen.findByRole('table', { name: 'Pending invitations' });
    expect(await within(table).findByText('pen@example.com')).toBeInTheDocument();
    expect(within(table).getByText('Olga Test')).toBeInTheDocument();

    await user.click(within(table).getByRole('button', { name: 'Resend the invitation of pen@example.com' }));
    expect(await screen.findByText(memberMessages.inviteResent)).toBeInTheDocument();

    await user.click(within(table).getByRole('button', { name: 'Cancel the invitation of pen@example.com' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(await screen.findByRole('button', { name: 'Cancel invitation' }));
    expect(await screen.findByText(memberMessages.inviteCancelled)).toBeInTheDocument();
    expect(await screen.findByText(memberMessages.noPendingInvites)).toBeInTheDocument();
  });
});

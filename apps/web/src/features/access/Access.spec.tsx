import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App as AntApp } from 'antd';
import {
  ACCESS_SERVICES,
  AUTH_STORAGE_KEY,
  ROLE_ID,
  accessMessages,
  fromPermissionValue,
  toPermissionValue,
  type RoleAcl,
  type UserAcl,
} from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { PermissionValueInput } from './PermissionValueInput.tsx';

const services = Object.entries(ACCESS_SERVICES) as [keyof typeof ACCESS_SERVICES, string][];
const roleAcls: RoleAcl[] = [ROLE_ID.Owner, ROLE_ID.Admin, ROLE_ID.User].flatMap((roleId) =>
  services.map(([service, title]) => ({
    id: `${roleId}-${service}`,
    role_id: roleId,
    service,
    title,
    enabled: true,
    has_permissions: service === 'transfers' || service === 'uploads',
  })),
);
const userAcls: UserAcl[] = services.map(([service, title]) => ({
  id: `u-${service}`,
  service,
  title,
  enabled: true,
  has_permissions: false,
  follows_role: true,
}));

describe('permission values (spec 002 §5): units and Unlimited', () => {
  it('multiplies by 1024-based units, sends Unlimited as -1, and shows a value in its largest whole unit', () => {
    expect(toPermissionValue(5, 'GB')).toBe(5 * 1073741824);
    expect(toPermissionValue(3, 'KB')).toBe(3072);
    expect(toPermissionValue(2, 'TB')).toBe(2 * 1099511627776);
    expect(toPermissionValue(7, 'Unlimited')).toBe(-1);
    expect(fromPermissionValue(-1)).toEqual({ amount: null, unit: 'Unlimited' });
    expect(fromPermissionValue(5 * 1048576)).toEqual({ amount: 5, unit: 'MB' });
    expect(fromPermissionValue(1536)).toEqual({ amount: 1536, unit: 'Bytes' });
    expect(fromPermissionValue(0)).toEqual({ amount: 0, unit: 'Bytes' });
  });

  it('sends the amount times the chosen unit, and asks for a value unless Unlimited', async () => {
    const onSave = vi.fn(async () => undefined);
    const user = userEvent.setup();
    render(
      <AntApp>
        <PermissionValueInput title="Maximum transfer size" value={-1} disabled={false} onSave={onSave} />
      </AntApp>,
    );
    const amount = screen.getByRole('spinbutton', { name: 'Maximum transfer size' });
    expect(amount).toBeDisabled();
    await user.click(screen.getByRole('combobox', { name: 'Maximum transfer size unit' }));
    await user.click(await screen.findByTitle('GB'));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(accessMessages.required('Maximum transfer size'))).toBeInTheDocument();
    expect(onSave).not.toHaveBeenCalled();

    await user.type(amount, '5');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledWith(5 * 1073741824));

    await user.click(screen.getByRole('combobox', { name: 'Maximum transfer size unit' }));
    await user.click(await screen.findByTitle('Unlimited'));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onSave).toHaveBeenLastCalledWith(-1));
  });
});

describe('/roles and the permissions of /users/{id} (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it("/roles: an Admin's toggles are off where the server refuses (Owner and Admin roles), on for Users", async () => {
    const calls = stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ id: 'admin-1', role: { id: 2, title: 'Admin' } }),
      },
      'GET /api/role_access_levels/role_acls': { status: 200, body: roleAcls },
      'PUT /api/role_access_levels/3-sharing': { status: 200, body: { message: accessMessages.saved } },
    });
    const { user } = renderAt('/roles');
    const ownerRole = await screen.findByLabelText('Owner role');
    expect(within(ownerRole).getByRole('switch', { name: 'Transfers' })).toBeDisabled();
    expect(within(ownerRole).getByText(accessMessages.ownerRoleFixed)).toBeInTheDocument();
    const adminRole = screen.getByLabelText('Admin role');
    expect(within(adminRole).getByRole('switch', { name: 'Sharing' })).toBeDisabled();
    expect(within(adminRole).getByText(accessMessages.adminRoleOwnerOnly)).toBeInTheDocument();
    const userRole = screen.getByLabelText('User role');
    await user.click(within(userRole).getByRole('switch', { name: 'Sharing' }));
    expect(await screen.findByText(accessMessages.saved)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ role_access_level: { enabled: false } });
  });

  it("/users/{id}: the Owner turns a User's Transfers off; a refusal of the server is said in its words", async () => {
    const member = buildProfile({ id: 'user-1', first_name: 'Ursula', role: { id: 3, title: 'User' } });
    const calls = stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ id: 'owner-1', role: { id: 1, title: 'Owner' } }),
      },
      'GET /api/users/user-1': { status: 200, body: member },
      'GET /api/user_access_levels/user_acls/user-1': { status: 200, body: userAcls },
      'PUT /api/user_access_levels/u-transfers': { status: 200, body: { message: accessMessages.saved } },
      'PUT /api/user_access_levels/u-sharing': {
        status: 403,
        body: { code: 'FORBIDDEN', message: accessMessages.adminChangesUsers },
      },
    });
    const { user } = renderAt('/users/user-1');
    const section = await screen.findByLabelText('Service permissions');
    expect(await within(section).findAllByText('Follows role')).toHaveLength(services.length);
    await user.click(within(section).getByRole('switch', { name: 'Transfers' }));
    expect(await screen.findByText(accessMessages.saved)).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/user_access_levels/u-transfers')?.body).toEqual({
      user_access_level: { enabled: false },
    });
    await user.click(within(section).getByRole('switch', { name: 'Sharing' }));
    expect(await screen.findByText(accessMessages.adminChangesUsers)).toBeInTheDocument();
  });

  it('hides the menu entries of the services turned off for the member (GET /users/_me acl.services)', async () => {
    const off = { transfers: false, sync: false };
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ acl: { services: { ...buildProfile().acl.services, ...off } } }),
      },
    });
    renderAt('/dashboard');
    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    const menu = screen.getByRole('navigation', { name: 'Main' });
    for (const hidden of ['Transfers', 'Transfer Status', 'Migration', 'Sync', 'Replication']) {
      expect(within(menu).queryByRole('link', { name: hidden })).not.toBeInTheDocument();
    }
    expect(within(menu).getByRole('link', { name: 'Shared Files' })).toBeInTheDocument();
  });

  it('/users/{id}: no toggle for the member themselves nor, for an Admin, for another Admin', async () => {
    const admin = buildProfile({ id: 'admin-2', first_name: 'Alma', role: { id: 2, title: 'Admin' } });
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ id: 'admin-1', role: { id: 2, title: 'Admin' } }),
      },
      'GET /api/users/admin-2': { status: 200, body: admin },
      'GET /api/user_access_levels/user_acls/admin-2': { status: 200, body: userAcls },
    });
    renderAt('/users/admin-2');
    const section = await screen.findByLabelText('Service permissions');
    expect(await within(section).findByRole('switch', { name: 'Transfers' })).toBeDisabled();
    expect(within(section).getByText(accessMessages.adminChangesUsers)).toBeInTheDocument();
  });
});

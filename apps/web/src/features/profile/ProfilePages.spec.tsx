import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AUTH_STORAGE_KEY } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

describe('profile screens (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('shows the account card with role and active-since date', async () => {
    stubApi({ 'GET /api/users/_me': { status: 200, body: buildProfile() } });
    renderAt('/profile');

    expect(await screen.findByRole('heading', { name: 'Ada Lovelace' })).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    expect(screen.getByText('Owner')).toBeInTheDocument();
    expect(screen.getByText('03/05/2025')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Edit profile' })).toHaveAttribute('href', '/profile/edit');
    expect(screen.getByRole('link', { name: 'Change password' })).toHaveAttribute(
      'href',
      '/profile/changepassword',
    );
    const tabs = screen.getByRole('navigation', { name: 'Settings' });
    for (const tab of ['Profile', 'Billing', 'Users', 'Permissions', 'Access Keys', 'MFA']) {
      expect(tabs).toHaveTextContent(tab);
    }
  });

  it('saves the names; email and company stay read-only', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'PUT /api/users/_me': { status: 200, body: { message: 'ok' } },
    });
    const { user, location } = renderAt('/profile/edit');

    const firstName = await screen.findByLabelText('First Name');
    expect(screen.getByLabelText('Email')).toBeDisabled();
    expect(screen.getByLabelText('Company')).toBeDisabled();
    await user.clear(firstName);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('First name is required.')).toBeInTheDocument();

    await user.type(firstName, 'Augusta');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Profile updated successfully.')).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/profile'));
    expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({
      first_name: 'Augusta',
      last_name: 'Lovelace',
    });
  });

  it('changes the password and keeps the new token the server answers', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'PUT /api/users/_me/change_password': {
        status: 200,
        body: { message: 'Password changed successfully.', jwtToken: 'jwt-2' },
      },
    });
    const { user } = renderAt('/profile/changepassword');

    await user.type(await screen.findByLabelText('Current Password'), 'OldSecret1');
    await user.type(screen.getByLabelText('New Password'), 'NewSecret2');
    await user.type(screen.getByLabelText('Confirm Password'), 'NewSecret3');
    expect(
      await screen.findByText("Confirmation don't match password, please try again."),
    ).toBeInTheDocument();
    const submit = screen.getByRole('button', { name: 'Change password' });
    expect(submit).toBeDisabled();

    await user.clear(screen.getByLabelText('Confirm Password'));
    await user.type(screen.getByLabelText('Confirm Password'), 'NewSecret2');
    await user.click(submit);

    expect(await screen.findByText('Password changed successfully.')).toBeInTheDocument();
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBe('jwt-2');
    expect(calls.find((call) => call.path === '/api/users/_me/change_password')?.body).toEqual({
      old_password: 'OldSecret1',
      new_password: 'NewSecret2',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AUTH_STORAGE_KEY } from '@cumulo/contract';
import { renderAt } from '../test/render.tsx';
import { stubApi } from '../test/fake-api.ts';
import { buildProfile } from '../test/factories.ts';

describe('route guard and route table (the network is stubbed with vi.stubGlobal fetch)', () => {
  it('sends a visitor without a stored token to /login with the page as returnUrl', async () => {
    stubApi({});
    const { location } = renderAt('/profile/edit?from=menu');

    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(location()).toBe('/login?returnUrl=%2Fprofile%2Fedit%3Ffrom%3Dmenu');
  });

  it('after signing in goes to the returnUrl', async () => {
    const calls = stubApi({
      'POST /api/authentication/request_token': { status: 200, body: { token: 'form-token' } },
      'POST /api/authentication/Login': { status: 200, body: { challenge: 0, jwtToken: 'jwt-1' } },
      'GET /api/users/_me': { status: 200, body: buildProfile() },
    });
    const { user, location } = renderAt('/mfa');

    await user.type(await screen.findByLabelText('Email'), 'Ada@Example.com');
    await user.type(screen.getByLabelText('Password'), 'Secret123');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    expect(location()).toBe('/mfa');
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBe('jwt-1');
    const login = calls.find((call) => call.path === '/api/authentication/Login');
    expect(login?.body).toEqual({
      requestToken: 'form-token',
      username: 'Ada@Example.com',
      password: 'Secret123',
    });
  });

  it('after signing in without a returnUrl goes to the dashboard', async () => {
    stubApi({
      'POST /api/authentication/request_token': { status: 200, body: { token: 'form-token' } },
      'POST /api/authentication/Login': { status: 200, body: { challenge: 0, jwtToken: 'jwt-1' } },
      'GET /api/users/_me': { status: 200, body: buildProfile() },
    });
    const { user, location } = renderAt('/login');

    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'Secret123');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(location()).toBe('/');
  });

  it('ignores a returnUrl that points to another site', async () => {
    stubApi({
      'POST /api/authentication/request_token': { status: 200, body: { token: 'form-token' } },
      'POST /api/authentication/Login': { status: 200, body: { challenge: 0, jwtToken: 'jwt-1' } },
      'GET /api/users/_me': { status: 200, body: buildProfile() },
    });
    const { user, location } = renderAt('/login?returnUrl=%2F%2Fevil.example');

    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'Secret123');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    await waitFor(() => expect(location()).toBe('/'));
  });

  it.each([
    ['/verifyemail', 'Welcome to Cumulo'],
    ['/resetpassword', 'Reset your password'],
    ['/oktalogin/7', 'Enterprise single sign-on'],
  ])('lets a visitor without a token open %s', async (path, heading) => {
    stubApi({});
    const { location } = renderAt(path);

    expect(await screen.findByRole('heading', { name: heading })).toBeInTheDocument();
    expect(location()).toBe(path);
  });

  it.each([
    ['/Sync', 'Sync'],
    ['/sync', 'Sync'],
    ['/replication', 'Create Replication Job'],
  ])('opens %s inside the signed-in layout', async (path, heading) => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/sync/get_jobs': { status: 200, body: { data: [] } },
    });
    renderAt(path);

    expect(await screen.findByRole('heading', { name: heading })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Confirm Sync' })).toBeInTheDocument();
    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
  });

  it('answers an unknown path with the not-found page', async () => {
    stubApi({});
    renderAt('/no/such/page');

    expect(await screen.findByText('Page not found')).toBeInTheDocument();
  });

  it('shows the Migration entry only to userType 4 and hides Users from role User', async () => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    stubApi({
      'GET /api/users/_me': {
        status: 200,
        body: buildProfile({ userType: 1, role: { id: 3, title: 'User' } }),
      },
    });
    renderAt('/dashboard');

    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    const menu = screen.getByRole('navigation', { name: 'Main' });
    expect(menu).toHaveTextContent('Transfer Status');
    expect(menu).not.toHaveTextContent('Migration');
    expect(menu).not.toHaveTextContent('Users');
  });

  it('sends a user without acl.has_wasabi from /wasabi to the dashboard (spec 001 §6)', async () => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    stubApi({ 'GET /api/users/_me': { status: 200, body: buildProfile({ acl: { has_wasabi: false } }) } });
    const { location } = renderAt('/wasabi');

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(location()).toBe('/');
    expect(screen.queryByText('Wasabi Files System')).not.toBeInTheDocument();
  });

  it('shows nothing of an Owner/Admin screen to role User', async () => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 3, title: 'User' } }) },
    });
    renderAt('/users/invite');

    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Invite Users' })).not.toBeInTheDocument();
  });
});

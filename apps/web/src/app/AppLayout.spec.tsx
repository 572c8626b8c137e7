import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AUTH_STORAGE_KEY } from '@cumulo/contract';
import { renderAt } from '../test/render.tsx';
import { stubApi } from '../test/fake-api.ts';
import { buildProfile } from '../test/factories.ts';

describe('signed-in layout (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('shows an empty notification list in the bell popover', async () => {
    stubApi({ 'GET /api/users/_me': { status: 200, body: buildProfile() } });
    const { user } = renderAt('/dashboard');

    await user.click(await screen.findByRole('button', { name: 'Notifications' }));

    expect(await screen.findByText('No notification found')).toBeInTheDocument();
  });

  it('signs out: tells the server, clears local storage and goes to /login with the return path', async () => {
    localStorage.setItem('cumulo.other', 'left from this session');
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'POST /api/authentication/logout': { status: 204 },
    });
    const { user, location } = renderAt('/dashboard');

    await user.click(await screen.findByRole('menuitem', { name: /Sign out/ }));

    await waitFor(() => expect(location()).toBe('/login?returnUrl=%2Fdashboard'));
    expect(localStorage.length).toBe(0);
    const logout = calls.find((call) => call.path === '/api/authentication/logout');
    expect(logout?.method).toBe('POST');
    expect(logout?.headers.get('Authorization')).toBe('Bearer jwt-1');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });
});

import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';

describe('/oktalogin (the network is stubbed with vi.stubGlobal fetch)', () => {
  it('offers the configured provider by its name and starts its sign-in at the server', async () => {
    const calls = stubApi({
      'GET /api/authentication/providers': {
        status: 200,
        body: { google: false, oidc: { name: 'Acme SSO' } },
      },
      // A same-page URL: the test browser cannot leave for a provider, so the start is checked by its call.
      'POST /api/oauth/start': { status: 200, body: { authorization_url: 'http://localhost/#provider' } },
    });
    const { user } = renderAt('/oktalogin/7');

    await user.click(await screen.findByRole('button', { name: 'Sign in with Acme SSO' }));
    await waitFor(() =>
      expect(calls.find((call) => call.path === '/api/oauth/start')?.body).toEqual({ service: 'OIDC' }),
    );
  });

  it('says single sign-on is not configured when the server has no provider', async () => {
    stubApi({ 'GET /api/authentication/providers': { status: 200, body: { google: true, oidc: null } } });
    renderAt('/oktalogin');

    expect(await screen.findByText(/Single sign-on is not configured on this server/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to login' })).toHaveAttribute('href', '/login');
    expect(screen.queryByRole('button', { name: /Sign in with/ })).not.toBeInTheDocument();
  });
});

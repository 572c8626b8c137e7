import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen } from '@testing-library/react';
import { VERIFIED_REDIRECT_MS } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';

describe('account verification page (the network is stubbed with vi.stubGlobal fetch)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies the token once, even in StrictMode, and goes to /login after 5 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const calls = stubApi({ 'PUT /api/verify_user': { status: 200, body: { message: 'ok' } } });
    const { location } = renderAt('/verify/token-1');

    expect(await screen.findByText('Your email has been verified. You can now sign in.')).toBeInTheDocument();
    expect(screen.getByText('Redirecting to login in 5 seconds.')).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/verify_user')).toEqual([
      expect.objectContaining({ method: 'PUT', body: { verification_token: 'token-1' } }),
    ]);
    expect(location()).toBe('/verify/token-1');

    await act(() => vi.advanceTimersByTimeAsync(VERIFIED_REDIRECT_MS));
    expect(location()).toBe('/login');
  });

  it('takes the token from the query as well', async () => {
    const calls = stubApi({ 'PUT /api/verify_user': { status: 200, body: { message: 'ok' } } });
    renderAt('/verify?token=token-2');

    expect(await screen.findByText('Your email has been verified. You can now sign in.')).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/verify_user')?.body).toEqual({
      verification_token: 'token-2',
    });
  });

  it('shows the server message in an error popup when verification fails', async () => {
    stubApi({
      'PUT /api/verify_user': {
        status: 400,
        body: { message: 'This verification link is invalid or has expired. Please request a new one.' },
      },
    });
    renderAt('/verify/expired-token');

    const popup = await screen.findByRole('dialog', { name: 'Account verification failed' });
    expect(popup).toHaveTextContent(
      'This verification link is invalid or has expired. Please request a new one.',
    );
    expect(screen.getByText('We could not verify your email address.')).toBeInTheDocument();
  });
});

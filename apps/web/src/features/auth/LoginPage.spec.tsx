import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, messages } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

type Renderer = ReturnType<typeof renderAt>;

const requestToken = { status: 200, body: { token: 'form-token' } };

async function signIn(user: Renderer['user'], email = 'ada@example.com', password = 'Secret123') {
  await user.type(await screen.findByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('sign-in screen (the network is stubbed with vi.stubGlobal fetch)', () => {
  it('asks for the MFA code when the login answers challenge 1, then signs in', async () => {
    const calls = stubApi({
      'POST /api/authentication/request_token': requestToken,
      'POST /api/authentication/Login': { status: 200, body: { challenge: 1, session: 'mfa-session' } },
      'POST /api/authentication/mfa_respond': { status: 200, body: { jwtToken: 'jwt-mfa' } },
      'GET /api/users/_me': { status: 200, body: buildProfile() },
    });
    const { user, location } = renderAt('/login?returnUrl=%2Fprofile');

    await signIn(user);
    const code = await screen.findByLabelText('Code');
    const verify = screen.getByRole('button', { name: 'Verify' });
    expect(verify).toBeDisabled();
    await user.type(code, '12a3456');
    expect(code).toHaveValue('123456');
    await user.click(verify);

    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    expect(location()).toBe('/profile');
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBe('jwt-mfa');
    expect(calls.find((call) => call.path === '/api/authentication/mfa_respond')?.body).toEqual({
      requestToken: 'form-token',
      userCode: '123456',
      session: 'mfa-session',
    });
  });

  it('signs in with a recovery code after "Use a recovery code"', async () => {
    const calls = stubApi({
      'POST /api/authentication/request_token': requestToken,
      'POST /api/authentication/Login': { status: 200, body: { challenge: 1, session: 'mfa-session' } },
      'POST /api/authentication/mfa_respond': { status: 200, body: { jwtToken: 'jwt-recovery' } },
      'GET /api/users/_me': { status: 200, body: buildProfile() },
    });
    const { user, location } = renderAt('/login?returnUrl=%2Fprofile');

    await signIn(user);
    await user.click(await screen.findByRole('button', { name: 'Use a recovery code' }));
    expect(screen.queryByLabelText('Code')).not.toBeInTheDocument();
    expect(screen.getByText('Enter one of your recovery codes. Each code works once.')).toBeInTheDocument();
    const field = screen.getByLabelText('Recovery code');
    const verify = screen.getByRole('button', { name: 'Verify' });
    await user.type(field, 'abcde-fgh');
    expect(verify).toBeDisabled();
    await user.type(field, 'jk');
    await user.click(verify);

    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    expect(location()).toBe('/profile');
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBe('jwt-recovery');
    expect(calls.find((call) => call.path === '/api/authentication/mfa_respond')?.body).toEqual({
      requestToken: 'form-token',
      userCode: 'abcde-fghjk',
      session: 'mfa-session',
    });
  });

  it('says in the MFA panel that a code was already used and to wait for the next one', async () => {
    stubApi({
      'POST /api/authentication/request_token': requestToken,
      'POST /api/authentication/Login': { status: 200, body: { challenge: 1, session: 'mfa-session' } },
      'POST /api/authentication/mfa_respond': {
        status: 401,
        body: { code: 'MFA_CODE_USED', message: messages.mfaCodeAlreadyUsed },
      },
    });
    const { user, location } = renderAt('/login');

    await signIn(user);
    await user.type(await screen.findByLabelText('Code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This code was already used. Wait for the next code from your authenticator app, then enter it.',
    );
    // Still the MFA panel, with the field emptied for the next code.
    expect(screen.getByLabelText('Code')).toHaveValue('');
    expect(location()).toBe('/login');
  });

  it('shows the server message of a refused sign-in', async () => {
    stubApi({
      'POST /api/authentication/request_token': requestToken,
      'POST /api/authentication/Login': { status: 401, body: { message: 'Incorrect username or password.' } },
    });
    const { user, location } = renderAt('/login');

    await signIn(user);

    expect(await screen.findByText('Incorrect username or password.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(location()).toBe('/login');
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('shows the rate-limit message of a 429', async () => {
    stubApi({
      'POST /api/authentication/request_token': requestToken,
      'POST /api/authentication/Login': {
        status: 429,
        body: { message: 'Too many sign-in attempts. Please wait a few minutes and try again.' },
      },
    });
    const { user } = renderAt('/login');

    await signIn(user);

    expect(
      await screen.findByText('Too many sign-in attempts. Please wait a few minutes and try again.'),
    ).toBeInTheDocument();
  });

  it('offers to resend the verification e-mail when the address is not verified', async () => {
    const calls = stubApi({
      'POST /api/authentication/request_token': requestToken,
      'POST /api/authentication/Login': {
        status: 403,
        body: { code: 'EMAIL_NOT_VERIFIED', message: 'Your email has not yet been verified.' },
      },
      'PUT /api/resend_verification_email': { status: 200, body: { message: 'sent' } },
    });
    const { user } = renderAt('/login');

    await signIn(user, 'Ada@example.com');
    const popup = await screen.findByRole('dialog', { name: 'Email verification failed' });
    expect(popup).toHaveTextContent('Your email has not yet been verified.');
    await user.click(within(popup).getByRole('button', { name: 'Resend verification email' }));

    expect(await screen.findByText('Email sent successfully, please check your email.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls.find((call) => call.path === '/api/resend_verification_email')?.body).toEqual({
      email: 'Ada@example.com',
    });
  });

  it("goes through forgot password to the sent panel and back with its 'Login' link", async () => {
    const calls = stubApi({
      'POST /api/authentication/request_token': requestToken,
      'POST /api/authentication/forgot_password': { status: 200, body: { message: 'sent' } },
    });
    const { user, location } = renderAt('/login?returnUrl=%2Fsharing');

    await user.click(await screen.findByRole('button', { name: 'Forgot password?' }));
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Please enter an email.')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Send' }));

    expect(await screen.findByText('Email sent successfully, please check your email.')).toBeInTheDocument();
    expect(screen.getByText('We sent you a reset email to:')).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/authentication/forgot_password')?.body).toEqual({
      username: 'ada@example.com',
      requestToken: 'form-token',
    });

    // Spec 000 §2: the sent panel's links are 'resend email' and 'Login', as on the reset screen.
    expect(screen.getByRole('button', { name: 'resend email' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Back to login' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Login' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(location()).toBe('/login?returnUrl=%2Fsharing');
  });

  it('offers no Google button when the server has no Google client configured', async () => {
    stubApi({ 'GET /api/authentication/providers': { status: 200, body: { google: false, oidc: null } } });
    renderAt('/login');

    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('button', { name: /Google/ })).not.toBeInTheDocument());
  });

  it('starts a Google sign-in at the server when Google is configured', async () => {
    const calls = stubApi({
      'GET /api/authentication/providers': { status: 200, body: { google: true, oidc: null } },
      // A same-page URL: the test browser cannot leave for a provider, so the start is checked by its call.
      'POST /api/oauth/start': { status: 200, body: { authorization_url: 'http://localhost/#provider' } },
    });
    const { user } = renderAt('/login');

    await user.click(await screen.findByRole('button', { name: /Sign in with Google/ }));
    await waitFor(() =>
      expect(calls.find((call) => call.path === '/api/oauth/start')?.body).toEqual({ service: 'Google' }),
    );
  });

  it('finishes a single sign-on that came back to /login and stores the session as a password sign-in does', async () => {
    const calls = stubApi({
      'POST /api/oauth': { status: 200, body: { challenge: 0, jwtToken: 'jwt-sso' } },
      'GET /api/users/_me': { status: 200, body: buildProfile() },
    });
    const { location } = renderAt('/login?returnUrl=%2Fprofile#sso=one-time-code&service=Google');

    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    expect(location()).toBe('/profile');
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBe('jwt-sso');
    expect(calls.filter((call) => call.path === '/api/oauth').map((call) => call.body)).toEqual([
      { service: 'Google', token: 'one-time-code' },
    ]);
  });

  it('goes on to the page the single sign-on started for', async () => {
    stubApi({
      'GET /api/authentication/providers': { status: 200, body: { google: true, oidc: null } },
      'POST /api/oauth/start': { status: 200, body: { authorization_url: 'http://localhost/#provider' } },
    });
    const first = renderAt('/login?returnUrl=%2Fprofile');
    await first.user.click(await screen.findByRole('button', { name: /Sign in with Google/ }));
    await waitFor(() => expect(sessionStorage.length).toBe(1));
    first.unmount();

    stubApi({
      'POST /api/oauth': { status: 200, body: { challenge: 0, jwtToken: 'jwt-sso' } },
      'GET /api/users/_me': { status: 200, body: buildProfile() },
    });
    const { location } = renderAt('/login#sso=third-code&service=Google');
    expect(await screen.findByText('Hello, Ada')).toBeInTheDocument();
    expect(location()).toBe('/profile');
  });

  it('asks for the MFA code after a single sign-on of a member with MFA', async () => {
    stubApi({ 'POST /api/oauth': { status: 200, body: { challenge: 1, session: 'mfa-session' } } });
    renderAt('/login#sso=another-code&service=OIDC');

    expect(await screen.findByLabelText('Code')).toBeInTheDocument();
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it("shows a refused single sign-on in the product's words, never text from the address", async () => {
    stubApi({});
    renderAt('/login#sso_error=SSO_EMAIL_NOT_VERIFIED');
    expect(await screen.findByText(messages.ssoEmailNotVerified)).toBeInTheDocument();
  });
});

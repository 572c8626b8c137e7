import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { messages } from '@cumulo/contract';

type Renderer = ReturnType<typeof renderAt>;

async function fillSignup(
  user: Renderer['user'],
  values: { email?: string; password?: string; confirm?: string; first?: string; last?: string },
) {
  if (values.email) await user.type(await screen.findByLabelText('Email'), values.email);
  if (values.password) await user.type(screen.getByLabelText('Password'), values.password);
  if (values.confirm) await user.type(screen.getByLabelText('Confirm Password'), values.confirm);
  if (values.first) await user.type(screen.getByLabelText('First Name'), values.first);
  if (values.last) await user.type(screen.getByLabelText('Last Name'), values.last);
}

async function agreeAndSubmit(user: Renderer['user']) {
  await user.click(
    screen.getByRole('checkbox', { name: 'I agree to the Terms of Service and Privacy Policy' }),
  );
  await user.click(screen.getByRole('button', { name: 'Sign Up' }));
}

describe('sign-up (the network is stubbed with vi.stubGlobal fetch)', () => {
  it('enables Sign Up only once the terms box is ticked', async () => {
    stubApi({});
    const { user } = renderAt('/signup');

    const signUp = await screen.findByRole('button', { name: 'Sign Up' });
    expect(signUp).toBeDisabled();
    await user.click(
      screen.getByRole('checkbox', { name: 'I agree to the Terms of Service and Privacy Policy' }),
    );
    expect(signUp).toBeEnabled();
  });

  it('asks for e-mail, password and confirmation', async () => {
    stubApi({});
    const { user } = renderAt('/signup');

    await fillSignup(user, {
      email: 'ada@example.com',
      password: 'Stronger1',
      first: 'Ada',
      last: 'Lovelace',
    });
    await agreeAndSubmit(user);

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Incorrect user or password or confirm password',
    );
  });

  it('refuses a confirmation that differs', async () => {
    stubApi({});
    const { user } = renderAt('/register');

    await fillSignup(user, { email: 'ada@example.com', password: 'Stronger1', confirm: 'Stronger2' });
    await agreeAndSubmit(user);

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'please input correct password and confirm password',
    );
  });

  it('explains the password rule, in a tooltip and on submit', async () => {
    stubApi({});
    const { user } = renderAt('/signup');
    const rules =
      'Password requirements were not met. Password requirements: at least 8 characters, a lowercase letter, an uppercase letter, a number.';

    await fillSignup(user, { email: 'ada@example.com', password: 'weakpass', confirm: 'weakpass' });
    expect(screen.getByRole('tooltip')).toHaveTextContent(rules);
    await agreeAndSubmit(user);

    expect(await screen.findByRole('alert')).toHaveTextContent(rules);
  });

  it('signs up with the e-mail lower-cased and the referrer, then shows the check-your-inbox page', async () => {
    const calls = stubApi({
      'POST /api/users': {
        status: 201,
        body: { email: 'ada@example.com', message: 'Signup done successfully!' },
      },
    });
    const { user, location } = renderAt('/signup/42?promo_code=SPRING');

    await fillSignup(user, {
      email: 'Ada@Example.COM',
      password: 'Stronger1',
      confirm: 'Stronger1',
      first: 'Ada',
      last: 'Lovelace',
    });
    await user.type(screen.getByLabelText('Company'), 'Analytical Engines');
    await agreeAndSubmit(user);

    expect(await screen.findByText('Signup done successfully!')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Check your inbox' })).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    expect(location()).toBe('/postSignup');
    expect(calls.find((call) => call.path === '/api/users')?.body).toEqual({
      email: 'ada@example.com',
      password: 'Stronger1',
      first_name: 'Ada',
      last_name: 'Lovelace',
      company: 'Analytical Engines',
      referrer_id: '42',
      promo_code: 'SPRING',
      invite_token: null,
    });
  });

  it('shows why the server refused the sign-up', async () => {
    stubApi({ 'POST /api/users': { status: 409, body: { message: 'This email is already registered.' } } });
    const { user } = renderAt('/signup');

    await fillSignup(user, {
      email: 'ada@example.com',
      password: 'Stronger1',
      confirm: 'Stronger1',
      first: 'Ada',
      last: 'Lovelace',
    });
    await agreeAndSubmit(user);

    expect(await screen.findByRole('alert')).toHaveTextContent('This email is already registered.');
  });

  it('pre-fills an invitation, locks its e-mail and goes to /login afterwards', async () => {
    const inviteToken = btoa('grace@example.com//Grace//Hopper//org-1//secret');
    const calls = stubApi({
      'GET /api/user/signupinfo': {
        status: 200,
        body: { email: 'grace@example.com', firstname: 'Grace', lastname: 'Hopper' },
      },
      'POST /api/users': {
        status: 201,
        body: { email: 'grace@example.com', message: 'Signup done successfully!' },
      },
    });
    const { user, location } = renderAt(`/signup?invite_token=${encodeURIComponent(inviteToken)}`);

    const email = await screen.findByLabelText('Email');
    expect(email).toHaveValue('grace@example.com');
    expect(email).toBeDisabled();
    expect(screen.getByLabelText('First Name')).toHaveValue('Grace');
    expect(screen.getByLabelText('Last Name')).toHaveValue('Hopper');

    await fillSignup(user, { password: 'Stronger1', confirm: 'Stronger1' });
    await agreeAndSubmit(user);

    await waitFor(() => expect(location()).toBe('/login'));
    expect(calls.find((call) => call.path === '/api/users')?.body).toMatchObject({
      email: 'grace@example.com',
      invite_token: inviteToken,
    });
  });

  it('says at once that a canceled or expired invitation is no longer valid, with no form to fill', async () => {
    const inviteToken = btoa('grace@example.com//Grace//Hopper//org-1//secret');
    const calls = stubApi({
      'GET /api/user/signupinfo': { status: 400, body: { message: messages.inviteInvalid } },
      'GET /api/authentication/providers': {
        status: 200,
        body: { google: true, oidc: { name: 'Acme SSO' } },
      },
    });
    renderAt(`/signup?invite_token=${encodeURIComponent(inviteToken)}`);
    expect(await screen.findByText(messages.inviteInvalid)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to login' })).toHaveAttribute('href', '/login');
    // Neither a password form nor a sign-up that would start an organisation of the invitee's own.
    expect(screen.queryByLabelText('Email')).toBeNull();
    expect(screen.queryByRole('button', { name: /Sign up with/ })).toBeNull();
    expect(calls.find((call) => call.path === '/api/user/signupinfo')?.search).toBe(
      `?token=${encodeURIComponent(inviteToken)}`,
    );
  });

  it("offers an invitee the organisation's OpenID provider, and nobody else", async () => {
    const inviteToken = btoa('grace@example.com//Grace//Hopper//org-1//secret');
    stubApi({
      'GET /api/user/signupinfo': {
        status: 200,
        body: { email: 'grace@example.com', firstname: 'Grace', lastname: 'Hopper' },
      },
      'GET /api/authentication/providers': {
        status: 200,
        body: { google: true, oidc: { name: 'Acme SSO' } },
      },
    });
    const invited = renderAt(`/signup?invite_token=${encodeURIComponent(inviteToken)}`);
    expect(await screen.findByRole('button', { name: 'Sign up with Acme SSO' })).toBeInTheDocument();
    invited.unmount();

    renderAt('/signup');
    expect(await screen.findByRole('button', { name: /Sign up with Google/ })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign up with Acme SSO' })).toBeNull();
  });

  it('sends /postSignup without a known address back to /signup', async () => {
    stubApi({});
    const { location } = renderAt('/postSignup');

    expect(await screen.findByRole('button', { name: 'Sign Up' })).toBeInTheDocument();
    expect(location()).toBe('/signup');
  });
});

describe('invited account completion (the network is stubbed with vi.stubGlobal fetch)', () => {
  const signupInfo = {
    status: 200,
    body: { email: 'grace@example.com', firstname: 'Grace', lastname: 'Hopper' },
  };

  it('pre-fills from the signup info and checks the passwords', async () => {
    stubApi({ 'GET /api/user/signupinfo': signupInfo });
    const { user } = renderAt('/signup?token=invite-1');

    const email = await screen.findByLabelText('Email');
    expect(email).toHaveValue('grace@example.com');
    expect(email).toBeDisabled();
    expect(screen.getByLabelText('First Name')).toHaveValue('Grace');

    await user.click(screen.getByRole('button', { name: 'Sign Up' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Incorrect user or password!');

    await user.type(screen.getByLabelText('Password'), 'Stronger1');
    await user.type(screen.getByLabelText('Confirm Password'), 'Stronger9');
    await user.click(screen.getByRole('button', { name: 'Sign Up' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Password and confirm password does not match!',
    );
  });

  it('completes the account and goes to /login', async () => {
    const calls = stubApi({
      'GET /api/user/signupinfo': signupInfo,
      'POST /api/user/signup': { status: 200, body: { message: 'ok' } },
    });
    const { user, location } = renderAt('/register?token=invite-1');

    await user.type(await screen.findByLabelText('Password'), 'Stronger1');
    await user.type(screen.getByLabelText('Confirm Password'), 'Stronger1');
    await user.click(screen.getByRole('button', { name: 'Sign Up' }));

    expect(await screen.findByText('Signup done successfully!')).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/login'));
    expect(calls.find((call) => call.path === '/api/user/signupinfo')?.search).toBe('?token=invite-1');
    expect(calls.find((call) => call.path === '/api/user/signup')?.body).toEqual({
      password: 'Stronger1',
      firstname: 'Grace',
      lastname: 'Hopper',
      token: 'invite-1',
    });
  });
});

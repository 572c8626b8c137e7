import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';

const RULES =
  'Password requirements were not met. Password requirements: at least 8 characters, a lowercase letter, an uppercase letter, a number.';
const MISMATCH = 'Passwords do not match. Please make sure they are correct.';

describe('password reset screen (the network is stubbed with vi.stubGlobal fetch)', () => {
  it('without a token and before a request asks for the e-mail address', async () => {
    stubApi({});
    const { user } = renderAt('/resetpassword');

    expect(await screen.findByText('Enter your email address to reset your password.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Please enter an email.')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Email'), 'not-an-address');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Please enter a valid email.')).toBeInTheDocument();
  });

  it('after the request shows where the reset e-mail went, with resend and login links', async () => {
    const calls = stubApi({
      'POST /api/authentication/request_token': { status: 200, body: { token: 'form-token' } },
      'POST /api/authentication/forgot_password': { status: 200, body: { message: 'sent' } },
    });
    const { user } = renderAt('/resetpassword');

    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Send' }));

    expect(await screen.findByText('We sent you a reset email to:')).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    expect(
      screen.getByText('Please check your email and use the reset link to reset your password.'),
    ).toBeInTheDocument();
    expect(screen.getByText('Email sent successfully, please check your email.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login');
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/authentication/forgot_password')?.body).toEqual({
      username: 'ada@example.com',
      requestToken: 'form-token',
    });

    await user.click(screen.getByRole('button', { name: 'resend email' }));
    await waitFor(() =>
      expect(calls.filter((call) => call.path === '/api/authentication/forgot_password')).toHaveLength(2),
    );
  });

  it('with a token asks for the new password; Reset waits for both fields, a strong password and a match', async () => {
    stubApi({});
    const { user } = renderAt('/resetpassword/reset-token');

    expect(await screen.findByText('Create your new password.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Remember your password? go to login page' })).toHaveAttribute(
      'href',
      '/login',
    );
    const reset = screen.getByRole('button', { name: 'Reset' });
    expect(reset).toBeDisabled();
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();

    await user.click(screen.getByLabelText('New Password'));
    expect(await screen.findByRole('tooltip')).toHaveTextContent(RULES);
    expect(screen.queryByText(MISMATCH)).not.toBeInTheDocument();

    await user.type(screen.getByLabelText('New Password'), 'Stronger1');
    await waitFor(() => expect(screen.queryByText(RULES)).not.toBeInTheDocument());
    expect(reset).toBeDisabled();

    await user.type(screen.getByLabelText('Confirm Password'), 'Stronger2');
    expect(await screen.findByText(MISMATCH)).toBeInTheDocument();
    expect(reset).toBeDisabled();

    await user.clear(screen.getByLabelText('Confirm Password'));
    await user.type(screen.getByLabelText('Confirm Password'), 'Stronger1');
    await waitFor(() => expect(screen.queryByText(MISMATCH)).not.toBeInTheDocument());
    expect(reset).toBeEnabled();
  });

  it('keeps Reset disabled for a matching but weak password', async () => {
    stubApi({});
    const { user } = renderAt('/reset_password/reset-token');

    await user.type(await screen.findByLabelText('New Password'), 'weakpass');
    await user.type(screen.getByLabelText('Confirm Password'), 'weakpass');

    expect(screen.getByText(RULES)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reset' })).toBeDisabled();
  });

  it('resets with the token from the query and returns to login', async () => {
    const calls = stubApi({
      'POST /api/authentication/request_token': { status: 200, body: { token: 'form-token' } },
      'POST /api/authentication/reset_password': {
        status: 200,
        body: { message: 'Password has been reset.' },
      },
    });
    const { user, location } = renderAt('/reset_password?token=query-token');

    await user.type(await screen.findByLabelText('New Password'), 'Stronger1');
    await user.type(screen.getByLabelText('Confirm Password'), 'Stronger1');
    await user.click(screen.getByRole('button', { name: 'Reset' }));

    expect(await screen.findByText('Password has been reset.')).toBeInTheDocument();
    await waitFor(() => expect(location()).toBe('/login'));
    expect(calls.find((call) => call.path === '/api/authentication/reset_password')?.body).toEqual({
      password: 'Stronger1',
      resetToken: 'query-token',
      requestToken: 'form-token',
    });
  });

  it('shows why a reset link is refused', async () => {
    stubApi({
      'POST /api/authentication/request_token': { status: 200, body: { token: 'form-token' } },
      'POST /api/authentication/reset_password': {
        status: 400,
        body: { message: 'This reset link is invalid or has expired. Please request a new one.' },
      },
    });
    const { user } = renderAt('/resetpassword/old-token');

    await user.type(await screen.findByLabelText('New Password'), 'Stronger1');
    await user.type(screen.getByLabelText('Confirm Password'), 'Stronger1');
    await user.click(screen.getByRole('button', { name: 'Reset' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This reset link is invalid or has expired. Please request a new one.',
    );
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

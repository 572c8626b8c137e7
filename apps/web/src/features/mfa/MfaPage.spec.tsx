import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AUTH_STORAGE_KEY } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const QR = 'data:image/png;base64,iVBORw0KGgo=';

describe('MFA settings (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('enables MFA with the QR code, the secret and a code', async () => {
    let mfaEnabled = false;
    const calls = stubApi({
      'GET /api/users/_me': () => ({ status: 200, body: buildProfile({ mfa_enabled: mfaEnabled }) }),
      'POST /api/user/generate_mfa_token': {
        status: 200,
        body: { secret: 'JBSWY3DPEHPK3PXP', otpauth_url: 'otpauth://totp/Cumulo', qr_code: QR },
      },
      'POST /api/user/set_mfa': () => {
        mfaEnabled = true;
        return { status: 200, body: { message: 'ok' } };
      },
    });
    const { user } = renderAt('/mfa');

    await user.click(await screen.findByRole('button', { name: 'Enable MFA' }));
    expect(await screen.findByRole('img', { name: 'QR code for your authenticator app' })).toHaveAttribute(
      'src',
      QR,
    );
    expect(screen.getByText('JBSWY3DPEHPK3PXP')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Code'), '654321');
    await user.click(screen.getByRole('button', { name: 'Enable' }));

    expect(await screen.findByText('MFA enabled successfully!')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Disable MFA' })).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/user/set_mfa')?.body).toEqual({
      enabled: true,
      userCode: '654321',
    });
  });

  it('disables MFA with a code', async () => {
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ mfa_enabled: true }) },
      'POST /api/user/set_mfa': { status: 200, body: { message: 'ok' } },
    });
    const { user } = renderAt('/mfa');

    await user.type(await screen.findByLabelText('Code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Disable MFA' }));

    expect(await screen.findByText('MFA disabled successfully!')).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/user/set_mfa')?.body).toEqual({
      enabled: false,
      userCode: '123456',
    });
  });

  it('signs out and returns to /login with a returnUrl when generating the secret answers 401', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'POST /api/user/generate_mfa_token': { status: 401, body: { message: 'Token revoked' } },
    });
    const { user, location } = renderAt('/mfa');

    await user.click(await screen.findByRole('button', { name: 'Enable MFA' }));

    await waitFor(() => expect(location()).toBe('/login?returnUrl=%2Fmfa'));
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(screen.queryByRole('dialog', { name: 'Please sign in again' })).not.toBeInTheDocument();
  });
});

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const QR = 'data:image/png;base64,iVBORw0KGgo=';
const CODES = Array.from({ length: 10 }, (_, i) => `abcd${i + 2}-fghj${i + 2}`);

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
        return { status: 200, body: { message: 'ok', recovery_codes: CODES } };
      },
      'GET /api/user/mfa_recovery_codes': { status: 200, body: { remaining: 10 } },
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
    expect(calls.find((call) => call.path === '/api/user/set_mfa')?.body).toEqual({
      enabled: true,
      userCode: '654321',
    });
    // The recovery codes come next, before anything else, with how to keep them.
    const list = await screen.findByRole('list', { name: 'Recovery code list' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(CODES);
    expect(
      screen.getByText('Store these codes safely, for example in a password manager. Each code works once.'),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'I have saved these codes' }));

    // Once confirmed they are gone for good; the page tells how many are left.
    expect(await screen.findByRole('button', { name: 'Disable MFA' })).toBeInTheDocument();
    expect(screen.queryByText(CODES[0] ?? '')).not.toBeInTheDocument();
    expect(await screen.findByText(/^10 of 10 recovery codes left\./)).toBeInTheDocument();
  });

  it('copies and downloads the new recovery codes as a text file', async () => {
    // jsdom has no object URLs: the test provides them and catches the link click the browser would turn into a save.
    const saved: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      saved.push(blob);
      return 'blob:recovery-codes';
    });
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'POST /api/user/generate_mfa_token': {
        status: 200,
        body: { secret: 'JBSWY3DPEHPK3PXP', otpauth_url: 'otpauth://totp/Cumulo', qr_code: QR },
      },
      'POST /api/user/set_mfa': { status: 200, body: { message: 'ok', recovery_codes: CODES } },
    });
    const { user } = renderAt('/mfa');

    await user.click(await screen.findByRole('button', { name: 'Enable MFA' }));
    await user.type(await screen.findByLabelText('Code'), '654321');
    await user.click(screen.getByRole('button', { name: 'Enable' }));

    await user.click(await screen.findByRole('button', { name: /Copy codes/ }));
    // user-event puts its own clipboard on navigator; it holds what the page copied.
    const copied = await navigator.clipboard.readText();
    for (const code of CODES) expect(copied).toContain(code);

    await user.click(screen.getByRole('button', { name: /Download \.txt/ }));
    expect(clicked[0]?.download).toBe('cumulo-recovery-codes.txt');
    const text = await saved[0]?.text();
    expect(text?.split('\n').filter((line) => CODES.includes(line))).toEqual(CODES);
  });

  it('generates new recovery codes with the current password and shows them once', async () => {
    const fresh = CODES.map((code) => code.replace('abcd', 'wxyz'));
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ mfa_enabled: true }) },
      'GET /api/user/mfa_recovery_codes': { status: 200, body: { remaining: 3 } },
      'POST /api/user/mfa_recovery_codes': {
        status: 200,
        body: { message: 'New recovery codes generated.', recovery_codes: fresh },
      },
    });
    const { user } = renderAt('/mfa');

    expect(await screen.findByText(/^3 of 10 recovery codes left\./)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Generate new codes' }));
    const generate = screen.getByRole('button', { name: 'Generate codes' });
    expect(generate).toBeDisabled();
    await user.type(screen.getByLabelText('Current password'), 'Secret123');
    await user.click(generate);

    const list = await screen.findByRole('list', { name: 'Recovery code list' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(fresh);
    expect(
      calls.find((call) => call.path === '/api/user/mfa_recovery_codes' && call.method === 'POST')?.body,
    ).toEqual({ password: 'Secret123' });
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

import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, sharingMessages, type ShareListItem } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const SHARE_ID = '3a7c9e10-1b2d-4e5f-8a9b-0c1d2e3f4a5b';

function buildShare(overrides: Partial<ShareListItem> = {}): ShareListItem {
  return {
    id: SHARE_ID,
    files: [
      { name: 'q1/report.csv', size: 11_000, bucket_name: 'reports', cloud_account_id: 'acc-1' },
      { name: 'clips/intro.bin', size: 70_000, bucket_name: 'reports', cloud_account_id: 'acc-1' },
    ],
    channel: 'email',
    recipients: ['carol@example.com'],
    created_by: 'Ada Lovelace',
    created_by_id: 'user-1',
    created_at: '2031-06-01T12:00:00.000Z',
    expires_at: '2031-06-08T12:00:00.000Z',
    revoked: false,
    revoked_at: null,
    status: 'active',
    has_password: true,
    download_count: 3,
    ...overrides,
  };
}

const unconfigured = { configured: false, channel_name: null, url_masked: null, updated_at: null };

describe("the organisation's shares at /sharing (fetch stubbed)", () => {
  beforeAll(async () => {
    await Promise.all([import('./SharesPage.tsx'), import('./SharingIntroPage.tsx')]);
  }, 60_000);

  beforeEach(() => localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1'));

  it('signed out explains what a shared link is without calling the API, and signs in back to the list', async () => {
    localStorage.clear();
    const calls = stubApi({
      'POST /api/authentication/request_token': { status: 200, body: { token: 'form-token' } },
      'POST /api/authentication/Login': { status: 200, body: { challenge: 0, jwtToken: 'jwt-1' } },
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/organizations/_me/chat_webhook': { status: 200, body: unconfigured },
      'GET /api/shares': { status: 200, body: { items: [buildShare()], total: 1, page: 1, page_size: 50 } },
    });
    const { user, location } = renderAt('/sharing');

    expect(await screen.findByRole('heading', { name: 'Shared Files' })).toBeInTheDocument();
    expect(screen.getByText(/A shared link is how someone using Cumulo sends you files/)).toBeInTheDocument();
    expect(screen.getByText(/shows that share page with the files/)).toBeInTheDocument();
    expect(screen.getByText(/A link may be password protected/)).toBeInTheDocument();
    expect(location()).toBe('/sharing');
    // Nothing signed-in is asked for, so no 401 and no 'Please sign in again' modal.
    expect(calls).toEqual([]);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(location()).toBe('/login?returnUrl=%2Fsharing');
    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'Secret123');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByText('q1/report.csv')).toBeInTheDocument();
    expect(location()).toBe('/sharing');
    expect(screen.queryByText(/A shared link is how someone/)).not.toBeInTheDocument();
  });

  it('lists the links and revokes one after confirmation', async () => {
    let revoked = false;
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/organizations/_me/chat_webhook': { status: 200, body: unconfigured },
      'GET /api/shares': () => ({
        status: 200,
        body: {
          items: [buildShare(revoked ? { revoked: true, status: 'revoked' } : {})],
          total: 1,
          page: 1,
          page_size: 50,
        },
      }),
      [`DELETE /api/shares/${SHARE_ID}`]: () => {
        revoked = true;
        return { status: 200, body: { message: sharingMessages.revokeDone } };
      },
    });
    const { user } = renderAt('/sharing');

    const row = (await screen.findByText('q1/report.csv')).closest('tr') as HTMLElement;
    expect(row).toHaveTextContent('carol@example.com');
    expect(row).toHaveTextContent('Ada Lovelace');
    expect(row).toHaveTextContent('06/08/2031');
    expect(row).toHaveTextContent('active');
    expect(within(row).getByText('3')).toBeInTheDocument();

    await user.click(within(row).getByRole('button', { name: /Revoke link/ }));
    expect(await screen.findByText(sharingMessages.revokeConfirm)).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Revoke' }));

    expect(await screen.findByText(sharingMessages.revokeDone)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('revoked')).toBeInTheDocument());
    expect(screen.queryByRole('button', { name: /Revoke link/ })).toBeNull();
  });

  it('an Owner sets the chat channel; the URL is shown masked', async () => {
    let saved = unconfigured as Record<string, unknown>;
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/shares': { status: 200, body: { items: [], total: 0, page: 1, page_size: 50 } },
      'GET /api/organizations/_me/chat_webhook': () => ({ status: 200, body: saved }),
      'PUT /api/organizations/_me/chat_webhook': () => {
        saved = {
          configured: true,
          channel_name: 'media-team',
          url_masked: 'https://hooks.slack.com/••••1234',
          updated_at: '2031-06-01T12:00:00.000Z',
        };
        return { status: 200, body: saved };
      },
    });
    const { user } = renderAt('/sharing');

    await user.type(await screen.findByLabelText('Channel'), 'media-team');
    await user.type(screen.getByLabelText('Webhook URL'), 'https://hooks.slack.com/services/T0/B0/xyz1234');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText(sharingMessages.chatWebhookSaved)).toBeInTheDocument();
    expect(await screen.findByText('https://hooks.slack.com/••••1234')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      channel_name: 'media-team',
      url: 'https://hooks.slack.com/services/T0/B0/xyz1234',
    });
  });

  it('a User sees the list but not the chat setting', async () => {
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile({ role: { id: 3, title: 'User' } }) },
      'GET /api/shares': { status: 200, body: { items: [buildShare()], total: 1, page: 1, page_size: 50 } },
    });
    renderAt('/sharing');
    expect(await screen.findByText('q1/report.csv')).toBeInTheDocument();
    expect(screen.queryByText('Chat channel')).toBeNull();
  });
});

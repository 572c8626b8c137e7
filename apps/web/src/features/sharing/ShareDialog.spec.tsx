import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, sharingMessages } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi, type FakeReply } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { ShareDialog, type ShareDialogFile } from './ShareDialog.tsx';

const ACCOUNT = '6f1c2a80-2d59-4c1e-9b7a-0d3a1c8e5b01';
const FILES: ShareDialogFile[] = [
  { accountId: ACCOUNT, bucket: 'reports', path: 'q1/report.csv', name: 'report.csv', size: 11_000 },
  { accountId: ACCOUNT, bucket: 'reports', path: 'clips/intro.bin', name: 'intro.bin', size: 70_000 },
];
const unconfigured = { configured: false, channel_name: null, url_masked: null, updated_at: null };

function openDialog(handlers: Record<string, FakeReply>, onClose = vi.fn()) {
  const calls = stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile() },
    'GET /api/organizations/_me/chat_webhook': { status: 200, body: unconfigured },
    ...handlers,
  });
  const view = renderAt('/', [{ path: '/', element: <ShareDialog open files={FILES} onClose={onClose} /> }]);
  return { ...view, calls, onClose, dialog: () => screen.getByRole('dialog', { name: 'Share files' }) };
}

describe('ShareDialog (fetch stubbed)', () => {
  beforeEach(() => localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1'));

  it('shares the selected files by e-mail with a password and the default 7 days, then toasts', async () => {
    const { user, calls, onClose, dialog } = openDialog({
      'POST /api/transfers/share_files_by_email': { status: 200, body: { message: sharingMessages.shared } },
    });
    expect(within(dialog()).getByText('Files (2 of 2 selected)')).toBeInTheDocument();
    expect(within(dialog()).getByText('(68.36 kB)')).toBeInTheDocument();

    // §5: files in the share dialog are selectable.
    await user.click(within(dialog()).getByRole('checkbox', { name: /intro\.bin/ }));
    expect(within(dialog()).getByText('Files (1 of 2 selected)')).toBeInTheDocument();

    await user.click(within(dialog()).getByRole('button', { name: 'Share' }));
    expect(await within(dialog()).findByText(sharingMessages.recipientsRequired)).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    await user.type(within(dialog()).getByLabelText('Recipients'), 'Carol@Example.com{enter}');
    await user.type(within(dialog()).getByLabelText('Password (optional)'), 'open sesame');
    await user.click(within(dialog()).getByRole('button', { name: 'Share' }));

    expect(await screen.findByText(sharingMessages.shared)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      files: [
        {
          name: 'q1/report.csv',
          size: 11_000,
          acl: 'private',
          bucket_name: 'reports',
          cloud_account_id: ACCOUNT,
        },
      ],
      recipients: ['carol@example.com'],
      password: 'open sesame',
      expiration: 604_800,
    });
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it("shows the server's refusal in the dialog", async () => {
    const refusal = 'q1/report.csv was not found in reports.';
    const { user, dialog } = openDialog({
      'POST /api/transfers/share_files_by_email': { status: 400, body: { message: refusal } },
    });
    await user.type(within(dialog()).getByLabelText('Recipients'), 'carol@example.com{enter}');
    await user.click(within(dialog()).getByRole('button', { name: 'Share' }));
    expect(await within(dialog()).findByText(refusal)).toBeInTheDocument();
    expect(screen.queryByText(sharingMessages.shared)).toBeNull();
  });

  it('Chat without a configured channel tells an Owner where to set one up', async () => {
    const { user, dialog } = openDialog({});
    await user.click(within(dialog()).getByText('Chat'));
    expect(await within(dialog()).findByText('No chat channel is set up yet.')).toBeInTheDocument();
    expect(within(dialog()).getByRole('link', { name: 'Shared Files' })).toHaveAttribute('href', '/sharing');
  });

  it('Chat posts to the configured channel with a custom expiry in days', async () => {
    const { user, calls } = openDialog({
      'GET /api/organizations/_me/chat_webhook': {
        status: 200,
        body: {
          configured: true,
          channel_name: 'media-team',
          url_masked: 'https://x/••••1234',
          updated_at: null,
        },
      },
      'POST /api/transfers/share_files_by_chat': { status: 200, body: { message: sharingMessages.shared } },
    });
    const dialog = screen.getByRole('dialog', { name: 'Share files' });
    await user.click(within(dialog).getByText('Chat'));
    expect(await within(dialog).findByText('#media-team')).toBeInTheDocument();
    await user.click(within(dialog).getByLabelText('Link expires after'));
    await user.click(await screen.findByTitle('Custom'));
    const days = within(dialog).getByLabelText('Days');
    await user.clear(days);
    await user.type(days, '3');
    await user.click(within(dialog).getByRole('button', { name: 'Share' }));

    expect(await screen.findByText(sharingMessages.shared)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      channel: 'media-team',
      password: null,
      expiration: 3 * 86_400,
    });
  });
});

import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { sharingMessages, type PublicShareView } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { startDownload } from './start-download.ts';

// jsdom cannot navigate: the hand-over of the signed URL to the browser is the one thing replaced here.
vi.mock('./start-download.ts', () => ({ startDownload: vi.fn() }));

const TOKEN = 'tok_abcdefghijklmnopqrstuvwxyz0123456789ABCDE';
const viewPath = `/api/sharing/${TOKEN}`;
const downloadPath = `${viewPath}/download`;
const SIGNED_URL = 'http://store.example/reports/q1/report.csv?X-Amz-Signature=abc';

function buildView(overrides: Partial<PublicShareView> = {}): PublicShareView {
  return {
    files: [
      { index: 0, path: 'q1/report.csv', name: 'report.csv', size: 11_000 },
      { index: 1, path: 'clips/intro.bin', name: 'intro.bin', size: 70_000 },
    ],
    expires_at: '2031-06-08T12:00:00.000Z',
    password_required: true,
    shared_by: 'Ada Lovelace',
    ...overrides,
  };
}

describe('public share page /sharing/{token} (signed out; fetch stubbed)', () => {
  beforeAll(async () => {
    await import('./SharedLinkPage.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.clear();
    vi.mocked(startDownload).mockClear();
  });

  it('lists the files, asks the password, refuses a wrong one and downloads with the right one', async () => {
    const calls = stubApi({
      [`GET ${viewPath}`]: { status: 200, body: buildView() },
      [`POST ${downloadPath}`]: (call) =>
        (call.body as { password?: string }).password === 'open sesame'
          ? { status: 200, body: { url: SIGNED_URL, expires_in: 300 } }
          : { status: 403, body: { message: sharingMessages.wrongPassword, code: 'WRONG_PASSWORD' } },
    });
    const { user, location } = renderAt(`/sharing/${TOKEN}`);

    expect(await screen.findByText('report.csv')).toBeInTheDocument();
    expect(screen.getByText('intro.bin')).toBeInTheDocument();
    expect(screen.getByText('10.74 kB')).toBeInTheDocument();
    expect(screen.getByText(/Ada Lovelace shared 2 files with you/)).toBeInTheDocument();
    expect(screen.getByText('06/08/2031')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Password'), 'guess');
    await user.click(screen.getByRole('button', { name: 'Download report.csv' }));
    expect(await screen.findByText(sharingMessages.wrongPassword)).toBeInTheDocument();
    expect(startDownload).not.toHaveBeenCalled();
    // The link's 403 is about the link: the visitor stays here, with no sign-in prompt.
    expect(location()).toBe(`/sharing/${TOKEN}`);
    expect(screen.queryByText('Please sign in again')).toBeNull();

    await user.clear(screen.getByLabelText('Password'));
    await user.type(screen.getByLabelText('Password'), 'open sesame');
    await user.click(screen.getByRole('button', { name: 'Download report.csv' }));
    await vi.waitFor(() => expect(startDownload).toHaveBeenCalledWith(SIGNED_URL));
    expect(screen.queryByText(sharingMessages.wrongPassword)).toBeNull();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { path: 'q1/report.csv', index: 0, password: 'guess' },
      { path: 'q1/report.csv', index: 0, password: 'open sesame' },
    ]);
    expect(calls.every((c) => !c.headers.has('Authorization'))).toBe(true);
  });

  it('a link without a password downloads straight away', async () => {
    stubApi({
      [`GET ${viewPath}`]: { status: 200, body: buildView({ password_required: false, shared_by: null }) },
      [`POST ${downloadPath}`]: { status: 200, body: { url: SIGNED_URL, expires_in: 300 } },
    });
    const { user } = renderAt(`/sharing/${TOKEN}`);
    await user.click(await screen.findByRole('button', { name: 'Download intro.bin' }));
    await vi.waitFor(() => expect(startDownload).toHaveBeenCalledWith(SIGNED_URL));
    expect(screen.queryByLabelText('Password')).toBeNull();
  });

  it('downloads each of two files of one path (from two buckets) by its own place in the share', async () => {
    const calls = stubApi({
      [`GET ${viewPath}`]: {
        status: 200,
        body: buildView({
          password_required: false,
          files: [
            { index: 0, path: 'q1/report.csv', name: 'report.csv', size: 15 },
            { index: 1, path: 'q1/report.csv', name: 'report.csv', size: 23 },
          ],
        }),
      },
      [`POST ${downloadPath}`]: { status: 200, body: { url: SIGNED_URL, expires_in: 300 } },
    });
    const { user } = renderAt(`/sharing/${TOKEN}`);
    const buttons = await screen.findAllByRole('button', { name: 'Download report.csv' });
    expect(buttons).toHaveLength(2);
    await user.click(buttons[1] as HTMLElement);
    await vi.waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ path: 'q1/report.csv', index: 1 });
  });

  it.each([
    ['revoked', sharingMessages.revoked, 'SHARE_REVOKED'],
    ['expired', sharingMessages.expired, 'SHARE_EXPIRED'],
  ])('a %s link says so', async (_, text, code) => {
    stubApi({ [`GET ${viewPath}`]: { status: 410, body: { message: text, code } } });
    renderAt(`/sharing/${TOKEN}`);
    expect(await screen.findByText(text)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Download/ })).toBeNull();
  });

  it('a link revoked while the page is open shows the revoked text on the next download', async () => {
    stubApi({
      [`GET ${viewPath}`]: { status: 200, body: buildView({ password_required: false }) },
      [`POST ${downloadPath}`]: {
        status: 410,
        body: { message: sharingMessages.revoked, code: 'SHARE_REVOKED' },
      },
    });
    const { user } = renderAt(`/sharing/${TOKEN}`);
    await user.click(await screen.findByRole('button', { name: 'Download report.csv' }));
    expect(await screen.findByText(sharingMessages.revoked)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Download/ })).toBeNull();
  });
});

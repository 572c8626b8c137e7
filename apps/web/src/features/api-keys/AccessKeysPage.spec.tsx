import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { AUTH_STORAGE_KEY, apiKeyMessages, type ApiKeyView } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const SECRET = 's3cr3t-once-0123456789abcdefghijklmnopqrstu';
const existing: ApiKeyView = {
  id: '7c1e1d0e-0000-4000-8000-000000000001',
  access_key: 'CKAAAAAAAAAAAAAAAAAA',
  created_date: '2026-11-01T10:00:00.000Z',
  last_used: null,
  active: true,
};
const created: ApiKeyView = {
  id: '7c1e1d0e-0000-4000-8000-000000000002',
  access_key: 'CKBBBBBBBBBBBBBBBBBB',
  created_date: '2026-11-26T10:00:00.000Z',
  last_used: null,
  active: true,
};

describe('Access keys page (the network is stubbed with vi.stubGlobal fetch)', () => {
  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('shows a new secret once, with copy buttons and the warning, and never again', async () => {
    let keys = [existing];
    stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/apikey/ListApiKey': () => ({ status: 200, body: keys }),
      'POST /api/apikey/CreateKey': () => {
        keys = [created, existing];
        return { status: 201, body: { ...created, secret_key: SECRET, message: apiKeyMessages.created } };
      },
    });
    const { user } = renderAt('/security-credentials');

    expect(await screen.findByText(existing.access_key)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create Key' }));

    const modal = await screen.findByRole('dialog');
    expect(within(modal).getByText(apiKeyMessages.shownOnce)).toBeInTheDocument();
    expect(within(modal).getByText(SECRET)).toBeInTheDocument();
    expect(within(modal).getByText(/curl -u/)).toHaveTextContent(`${created.access_key}:${SECRET}`);
    await user.click(within(modal).getByRole('button', { name: 'Copy secret key' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);

    await user.click(within(modal).getByRole('button', { name: 'I have saved the secret key' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    // The table lists the new key, and the secret is nowhere on the page any more.
    expect(await screen.findByText(created.access_key)).toBeInTheDocument();
    expect(screen.queryByText(SECRET, { exact: false })).toBeNull();
  });

  it('deletes a key only after confirmation, with the spec message', async () => {
    let keys = [existing];
    const calls = stubApi({
      'GET /api/users/_me': { status: 200, body: buildProfile() },
      'GET /api/apikey/ListApiKey': () => ({ status: 200, body: keys }),
      'DELETE /api/apikey/DeleteApiKey': () => {
        keys = [];
        return { status: 200, body: { message: apiKeyMessages.deleted } };
      },
    });
    const { user } = renderAt('/security-credentials');

    await user.click(await screen.findByRole('button', { name: `Delete ${existing.access_key}` }));
    const popover = (await screen.findByText('Delete this key?')).closest<HTMLElement>('.ant-popover');
    if (!popover) throw new Error('no confirmation');
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    await user.click(within(popover).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('Key deleted successfully!')).toBeInTheDocument();
    const deletion = calls.find((call) => call.method === 'DELETE');
    expect(deletion?.search).toBe(`?id=${existing.id}`);
    await waitFor(() => expect(screen.queryByText(existing.access_key)).toBeNull());
  });
});

import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AUTH_STORAGE_KEY, BATCH_STATUS, type MigrationProgress } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { stubApi } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';
import { buildBatch, buildMigration } from './transfer-factories.ts';
import { showsInIndicator } from './TransferIndicator.tsx';

const BATCH_ID = '11111111-1111-4111-8111-111111111111';

/** A fake hub socket the test feeds /rm messages through (the browser's WebSocket does not exist in jsdom). */
function stubHub() {
  const sockets: Array<{ onmessage: ((event: MessageEvent) => void) | null }> = [];
  vi.stubGlobal(
    'WebSocket',
    class {
      onopen = null;
      onmessage: ((event: MessageEvent) => void) | null = null;
      onclose = null;
      onerror = null;
      constructor() {
        sockets.push(this);
      }
      close(): void {}
    },
  );
  return (type: string, data: unknown) => {
    const hub = sockets.filter((socket) => socket.onmessage).at(-1);
    hub?.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ type, data }) }));
  };
}

function stubSignedIn(ongoing: MigrationProgress[]) {
  return stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile() },
    'GET /api/transfer/ongoing': { status: 200, body: { items: ongoing } },
  });
}

const indicator = () => screen.queryByRole('link', { name: /^Transfers in progress/ });

describe('transfer indicator (GET /transfer/ongoing stubbed, /rm fed through a fake socket)', () => {
  beforeAll(async () => {
    await Promise.all([import('../../app/AppLayout.tsx'), import('../compare/CloudComparePage.tsx')]);
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
  });

  it('counts a migration only while it is neither Succeeded nor Canceled and not at 100%', () => {
    expect(showsInIndicator(buildMigration({ status: 'Processing', percent: 40 }))).toBe(true);
    expect(showsInIndicator(buildMigration({ status: 'Enqueued', percent: 0 }))).toBe(true);
    expect(showsInIndicator(buildMigration({ status: 'Failed', percent: 70 }))).toBe(true);
    expect(showsInIndicator(buildMigration({ status: 'Processing', percent: 100 }))).toBe(false);
    expect(showsInIndicator(buildMigration({ status: 'Succeeded', percent: 100 }))).toBe(false);
    expect(showsInIndicator(buildMigration({ status: 'Canceled', percent: 30 }))).toBe(false);
  });

  it('shows an active ring on other pages while a transfer runs, and opens /mboard', async () => {
    stubSignedIn([buildMigration({ id: BATCH_ID, percent: 40, transferred: 40, size: 100 })]);
    const { user, location } = renderAt('/cloud-compare/0');

    const link = await screen.findByRole('link', { name: 'Transfers in progress: 40%' });
    const ring = screen.getByRole('progressbar', { name: 'Transfer progress' });
    expect(ring).toHaveAttribute('aria-valuenow', '40');
    expect(ring).toHaveClass('ant-progress-status-active');

    await user.click(link);
    await waitFor(() => expect(location()).toBe('/mboard'));
    // The status page is where the indicator leads: it is not shown there.
    await waitFor(() => expect(indicator()).toBeNull());
  });

  it('turns the ring to exception when a transfer failed', async () => {
    stubSignedIn([
      buildMigration({
        status: 'Failed',
        transferStatus: BATCH_STATUS.failed,
        percent: 70,
        transferred: 70,
        size: 100,
      }),
    ]);
    renderAt('/cloud-compare/0');

    await screen.findByRole('link', { name: 'Transfers in progress: 70%' });
    expect(screen.getByRole('progressbar', { name: 'Transfer progress' })).toHaveClass(
      'ant-progress-status-exception',
    );
  });

  it('is hidden with nothing live, appears with live progress, and goes away when the batch is canceled', async () => {
    const send = stubHub();
    const calls = stubSignedIn([buildMigration({ status: 'Succeeded', percent: 100 })]);
    renderAt('/cloud-compare/0');

    await waitFor(() => expect(calls.some((call) => call.path === '/api/transfer/ongoing')).toBe(true));
    await screen.findByRole('heading', { level: 2 });
    expect(indicator()).toBeNull();

    send('transfer.progress', buildMigration({ id: BATCH_ID, percent: 25, transferred: 25, size: 100 }));
    expect(await screen.findByRole('link', { name: 'Transfers in progress: 25%' })).toBeInTheDocument();

    send('transfer.progress', buildMigration({ id: BATCH_ID, percent: 100, transferred: 100, size: 100 }));
    await waitFor(() => expect(indicator()).toBeNull());

    send('transfer.progress', buildMigration({ id: BATCH_ID, percent: 60, transferred: 60, size: 100 }));
    expect(await screen.findByRole('link', { name: 'Transfers in progress: 60%' })).toBeInTheDocument();
    send(
      'transfer.batch',
      buildBatch({
        id: BATCH_ID,
        transferStatus: BATCH_STATUS.canceled,
        finishedAt: new Date().toISOString(),
      }),
    );
    await waitFor(() => expect(indicator()).toBeNull());
  });
});

import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AUTH_STORAGE_KEY, type NotificationItem } from '@cumulo/contract';
import { renderAt } from '../../test/render.tsx';
import { HubSocket, hubSends } from '../../test/fake-hub.ts';
import { stubApi, type RecordedCall } from '../../test/fake-api.ts';
import { buildProfile } from '../../test/factories.ts';

const OVER_LIMIT: NotificationItem = {
  id: '11111111-1111-4111-8111-111111111111',
  read: false,
  title: 'photos is over its size limit',
  description: 'The bucket photos holds 12 GB; its alert is set at 10 GB.',
  status: 'alerts',
  last_notified: new Date(Date.now() - 5 * 60_000).toISOString(),
  avatar: null,
};
const TRANSFER_FAILED: NotificationItem = {
  id: '22222222-2222-4222-8222-222222222222',
  read: false,
  title: 'Transfer failed',
  description: 'The transfer from photos to archive stopped: access denied.',
  status: 'error',
  last_notified: new Date(Date.now() - 2 * 3600_000).toISOString(),
  avatar: null,
};
const SYNC_DONE: NotificationItem = {
  id: '33333333-3333-4333-8333-333333333333',
  read: true,
  title: 'Sync completed',
  description: 'photos → archive is up to date.',
  status: 'normal',
  // No zone: local time, as the bell shows it.
  last_notified: '2025-01-02T10:30:00',
  avatar: null,
};

/**
 * The server's list: whatever PUT /notifications/read or read_all marked stays read. `olderUnread` are unread
 * notifications past the latest 50 the list answers: only the count and read_all reach them.
 */
function stubBellApi(initial: NotificationItem[], olderUnread = 0) {
  let list = initial;
  let older = olderUnread;
  const calls = stubApi({
    'GET /api/users/_me': { status: 200, body: buildProfile() },
    'GET /api/notifications': () => ({ status: 200, body: list }),
    'GET /api/notifications/unread_count': () => ({
      status: 200,
      body: { count: list.filter((item) => !item.read).length + older },
    }),
    'PUT /api/notifications/read': (call) => {
      const ids = new URLSearchParams(call.search).getAll('ids');
      list = list.map((item) => (ids.includes(item.id) ? { ...item, read: true } : item));
      return { status: 200, body: { message: 'Notifications marked as read' } };
    },
    'PUT /api/notifications/read_all': () => {
      list = list.map((item) => ({ ...item, read: true }));
      older = 0;
      return { status: 200, body: { message: 'Notifications marked as read' } };
    },
  });
  const push = (item: NotificationItem) => {
    list = [item, ...list];
  };
  return { calls, push };
}

/** Any page shows the bell; not the dashboard, whose Alerts widget lists the same notifications. */
const HOST_PAGE = '/profile';

const listCalls = (calls: RecordedCall[]) =>
  calls.filter((call) => call.method === 'GET' && call.path === '/api/notifications').length;

describe('notification bell in the header (fetch stubbed with vi.stubGlobal, hub played by a fake WebSocket)', () => {
  beforeAll(async () => {
    await import('../../app/AppLayout.tsx');
  }, 60_000);

  beforeEach(() => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    HubSocket.opened = [];
    vi.stubGlobal('WebSocket', HubSocket);
  });

  it('badges the unread count, emphasises unread items and marks all read', async () => {
    const { calls } = stubBellApi([OVER_LIMIT, TRANSFER_FAILED, SYNC_DONE]);
    const { user } = renderAt(HOST_PAGE);

    await user.click(await screen.findByLabelText('Notifications (2 unread)'));

    expect(await screen.findByText(OVER_LIMIT.title)).toBeInTheDocument();
    expect(screen.getByText(OVER_LIMIT.title).closest('strong')).not.toBeNull();
    expect(screen.getByText(SYNC_DONE.title).closest('strong')).toBeNull();
    expect(screen.getByText(TRANSFER_FAILED.description)).toBeInTheDocument();
    expect(screen.getByText('5 minutes ago')).toBeInTheDocument();
    expect(screen.getByText('01/02/2025 - 10:30')).toBeInTheDocument();
    expect(screen.getByLabelText('Status: alerts')).toBeInTheDocument();
    expect(screen.getByLabelText('Status: error')).toBeInTheDocument();
    expect(screen.getByLabelText('Status: normal')).toBeInTheDocument();

    await user.click(screen.getByText('Mark all as read'));

    await waitFor(() => expect(screen.getByLabelText('Notifications')).toBeInTheDocument());
    const puts = calls.filter((call) => call.method === 'PUT');
    expect(puts.map((call) => call.path)).toEqual(['/api/notifications/read_all']);
    expect(screen.getByText(OVER_LIMIT.title).closest('strong')).toBeNull();
  });

  it('counts and marks read the unread notifications older than the latest 50 the list shows', async () => {
    const { calls } = stubBellApi([OVER_LIMIT, SYNC_DONE], 8);
    const { user } = renderAt(HOST_PAGE);

    await user.click(await screen.findByLabelText('Notifications (9 unread)'));
    await user.click(await screen.findByText('Mark all as read'));

    await waitFor(() => expect(screen.getByLabelText('Notifications')).toBeInTheDocument());
    expect(calls.filter((call) => call.method === 'PUT').map((call) => call.path)).toEqual([
      '/api/notifications/read_all',
    ]);
    // Read again after the call: the server's count stays at none.
    await waitFor(() => {
      const put = calls.findIndex((call) => call.method === 'PUT');
      expect(
        calls
          .slice(put + 1)
          .filter((call) => call.method === 'GET' && call.path === '/api/notifications/unread_count'),
      ).not.toHaveLength(0);
    });
    expect(screen.getByLabelText('Notifications')).toBeInTheDocument();
  });

  it('reads the list again when the bell opens, so a notice that came without a hub message is shown', async () => {
    const { calls, push } = stubBellApi([]);
    const { user } = renderAt(HOST_PAGE);
    await waitFor(() => expect(listCalls(calls)).toBe(1));
    push(OVER_LIMIT);

    await user.click(await screen.findByLabelText('Notifications'));
    expect(await screen.findByText(OVER_LIMIT.title)).toBeInTheDocument();
    expect(screen.queryByText('No notification found')).toBeNull();
    expect(await screen.findByLabelText('Notifications (1 unread)')).toBeInTheDocument();
  });

  it('opening an unread item marks that one read', async () => {
    const { calls } = stubBellApi([OVER_LIMIT, TRANSFER_FAILED, SYNC_DONE]);
    const { user } = renderAt(HOST_PAGE);

    await user.click(await screen.findByLabelText('Notifications (2 unread)'));
    await user.click(await screen.findByText(TRANSFER_FAILED.title));

    await waitFor(() => expect(screen.getByLabelText('Notifications (1 unread)')).toBeInTheDocument());
    expect(calls.filter((call) => call.method === 'PUT').map((call) => call.search)).toEqual([
      `?ids=${TRANSFER_FAILED.id}`,
    ]);

    // A read item opens without another call.
    await user.click(screen.getByText(SYNC_DONE.title));
    expect(calls.filter((call) => call.method === 'PUT')).toHaveLength(1);
  });

  it("a realtime 'notification' message refetches the list and raises the badge", async () => {
    const { calls, push } = stubBellApi([SYNC_DONE]);
    const { user } = renderAt(HOST_PAGE);
    await screen.findByLabelText('Notifications');
    await waitFor(() => expect(listCalls(calls)).toBe(1));

    const arrived: NotificationItem = {
      ...OVER_LIMIT,
      id: '44444444-4444-4444-8444-444444444444',
      title: 'backups is over its cost limit',
      last_notified: new Date().toISOString(),
    };
    push(arrived);
    hubSends({ type: 'notification', data: arrived });

    expect(await screen.findByLabelText('Notifications (1 unread)')).toBeInTheDocument();
    await waitFor(() => expect(listCalls(calls)).toBe(2));
    await user.click(screen.getByLabelText('Notifications (1 unread)'));
    expect(await screen.findByText('backups is over its cost limit')).toBeInTheDocument();
  });

  it("keeps 'No notification found' when there are none", async () => {
    stubBellApi([]);
    const { user } = renderAt(HOST_PAGE);

    await user.click(await screen.findByLabelText('Notifications'));

    expect(await screen.findByText('No notification found')).toBeInTheDocument();
    expect(screen.getByText('Mark all as read').closest('button')).toBeDisabled();
  });
});

import { useQuery } from '@tanstack/react-query';
import {
  notificationItem,
  unreadCountAnswer,
  type NotificationItem,
  type UnreadCountAnswer,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { queryKeys } from '../../api/query-keys.ts';

const notificationList = notificationItem.array();

async function fetchNotifications(): Promise<NotificationItem[]> {
  return notificationList.parse(await api.get('/notifications'));
}

/** The latest notifications of the bell (GET /api/notifications); idle while no token is stored. */
export function useNotifications() {
  return useQuery({
    queryKey: queryKeys.notifications,
    queryFn: fetchNotifications,
    enabled: getStoredToken() !== null,
  });
}

/** PUT /notifications/read?ids=a&ids=b — the ids repeat, as the spec's call does (000 §7). */
export async function markNotificationsRead(ids: readonly string[]): Promise<void> {
  const query = new URLSearchParams();
  for (const id of ids) query.append('ids', id);
  await api.put(`/notifications/read?${query.toString()}`);
}

/** Every unread notification of the member (GET /api/notifications/unread_count), older ones than the list's too. */
export function useUnreadNotificationCount() {
  return useQuery({
    queryKey: queryKeys.unreadNotifications,
    queryFn: async (): Promise<UnreadCountAnswer> =>
      unreadCountAnswer.parse(await api.get('/notifications/unread_count')),
    enabled: getStoredToken() !== null,
  });
}

/** PUT /notifications/read_all: "Mark all as read" reaches the notifications older than the bell's list too. */
export async function markAllNotificationsRead(): Promise<void> {
  await api.put('/notifications/read_all');
}

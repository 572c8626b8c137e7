import { useQuery } from '@tanstack/react-query';
import { notificationItem, type NotificationItem } from '@cumulo/contract';
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

import { useState, type KeyboardEvent, type ReactNode } from 'react';
import { App, Avatar, Badge, Button, Empty, Flex, Popover, Typography } from 'antd';
import {
  AlertOutlined,
  BellOutlined,
  CloseCircleOutlined,
  ExclamationCircleOutlined,
  InfoCircleOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import relativeTime from 'dayjs/plugin/relativeTime';
import { messages, notificationItem, type NotificationItem, type UnreadCountAnswer } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { readAgain } from '../../api/query-client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useRealtimeMessage } from '../../api/realtime.ts';
import {
  markAllNotificationsRead,
  markNotificationsRead,
  useNotifications,
  useUnreadNotificationCount,
} from './notifications-api.ts';

dayjs.extend(relativeTime);

/** Spec 000 §9: timestamps read MM/DD/YYYY - HH:mm in local time. */
const TIMESTAMP_FORMAT = 'MM/DD/YYYY - HH:mm';
/** Newer notifications read "5 minutes ago"; older ones show their timestamp. */
const RELATIVE_FOR_DAYS = 7;

type NotificationStatus = NotificationItem['status'];

const STATUS_ICONS: Record<NotificationStatus, (label: string) => ReactNode> = {
  normal: (label) => <InfoCircleOutlined aria-label={label} style={{ color: '#1668dc' }} />,
  processing: (label) => <SyncOutlined spin aria-label={label} style={{ color: '#1668dc' }} />,
  error: (label) => <CloseCircleOutlined aria-label={label} style={{ color: '#ff4d4f' }} />,
  warning: (label) => <ExclamationCircleOutlined aria-label={label} style={{ color: '#faad14' }} />,
  alerts: (label) => <AlertOutlined aria-label={label} style={{ color: '#fa541c' }} />,
};

export function notificationTime(value: string, now = dayjs()): string {
  const date = dayjs(value);
  if (!date.isValid()) return '';
  return now.diff(date, 'day', true) < RELATIVE_FOR_DAYS ? date.from(now) : date.format(TIMESTAMP_FORMAT);
}

function StatusMark({ item }: { item: NotificationItem }) {
  const icon = STATUS_ICONS[item.status](`Status: ${item.status}`);
  if (!item.avatar) return <span style={{ fontSize: 20, lineHeight: '32px' }}>{icon}</span>;
  return (
    <Badge count={icon} offset={[-4, 28]}>
      <Avatar src={item.avatar} />
    </Badge>
  );
}

interface NotificationRowProps {
  item: NotificationItem;
  expanded: boolean;
  onOpen: (item: NotificationItem) => void;
}

function NotificationRow({ item, expanded, onOpen }: NotificationRowProps) {
  const timestamp = dayjs(item.last_notified);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onOpen(item);
    }
  };
  return (
    <li style={{ borderBottom: '1px solid #f0f0f0' }}>
      <div
        role="button"
        tabIndex={0}
        aria-expanded={expanded}
        onClick={() => onOpen(item)}
        onKeyDown={onKeyDown}
        style={{
          display: 'flex',
          gap: 12,
          padding: '10px 8px',
          cursor: 'pointer',
          background: item.read ? undefined : '#e6f4ff',
        }}
      >
        <StatusMark item={item} />
        <div style={{ flex: 1, minWidth: 0 }}>
          <Flex justify="space-between" gap={8}>
            <Typography.Text strong={!item.read}>{item.title}</Typography.Text>
            {!item.read && <Badge status="processing" aria-label="Unread" />}
          </Flex>
          <Typography.Text type="secondary" style={{ display: 'block' }}>
            <span
              style={
                expanded
                  ? undefined
                  : {
                      display: '-webkit-box',
                      WebkitLineClamp: 2,
                      WebkitBoxOrient: 'vertical',
                      overflow: 'hidden',
                    }
              }
            >
              {item.description}
            </span>
          </Typography.Text>
          {timestamp.isValid() && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              <time dateTime={timestamp.toISOString()} title={timestamp.format(TIMESTAMP_FORMAT)}>
                {notificationTime(item.last_notified)}
              </time>
            </Typography.Text>
          )}
        </div>
      </div>
    </li>
  );
}

/** Header bell: latest notifications, live over the realtime hub, with the unread count as badge. */
export function NotificationBell() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const notifications = useNotifications();
  const unreadTotal = useUnreadNotificationCount();
  const [expandedId, setExpandedId] = useState<string | null>(null);
  const list = notifications.data ?? [];
  const unreadIds = list.filter((item) => !item.read).map((item) => item.id);
  // The list holds the latest 50; the count all of them (never fewer than the list shows).
  const unread = Math.max(unreadTotal.data?.count ?? 0, unreadIds.length);
  const addToCount = (delta: number) =>
    queryClient.setQueryData<UnreadCountAnswer>(queryKeys.unreadNotifications, (current) =>
      current ? { count: Math.max(0, current.count + delta) } : current,
    );

  useRealtimeMessage('notification', (data) => {
    const parsed = notificationItem.safeParse(data);
    if (parsed.success) {
      const arrived = parsed.data;
      const known = queryClient
        .getQueryData<NotificationItem[]>(queryKeys.notifications)
        ?.some((item) => item.id === arrived.id);
      if (!known && !arrived.read) addToCount(1);
      queryClient.setQueryData<NotificationItem[]>(queryKeys.notifications, (current = []) =>
        current.some((item) => item.id === arrived.id) ? current : [arrived, ...current],
      );
    }
    void readAgain(queryClient, queryKeys.notifications);
  });

  /** Marks the given ids read, or every notification when `ids` is 'all' (also those past the list). */
  const markRead = useMutation({
    mutationFn: (ids: readonly string[] | 'all') =>
      ids === 'all' ? markAllNotificationsRead() : markNotificationsRead(ids),
    onMutate: async (ids) => {
      await queryClient.cancelQueries({ queryKey: queryKeys.notifications });
      const newlyRead = (item: NotificationItem) => !item.read && (ids === 'all' || ids.includes(item.id));
      const current = queryClient.getQueryData<NotificationItem[]>(queryKeys.notifications) ?? [];
      if (ids === 'all')
        queryClient.setQueryData<UnreadCountAnswer>(queryKeys.unreadNotifications, { count: 0 });
      else addToCount(-current.filter(newlyRead).length);
      queryClient.setQueryData<NotificationItem[]>(queryKeys.notifications, (items) =>
        items?.map((item) => (newlyRead(item) ? { ...item, read: true } : item)),
      );
    },
    onError: (error) => void message.error(describeError(error)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.notifications }),
  });

  const openItem = (item: NotificationItem) => {
    setExpandedId((current) => (current === item.id ? null : item.id));
    if (!item.read) markRead.mutate([item.id]);
  };

  const content =
    list.length === 0 ? (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={messages.noNotifications}>
        {notifications.isError && (
          <Flex vertical align="center" gap={8}>
            <Typography.Text type="danger">{describeError(notifications.error)}</Typography.Text>
            <Button size="small" onClick={() => void notifications.refetch()}>
              Try again
            </Button>
          </Flex>
        )}
      </Empty>
    ) : (
      <ul
        aria-label="Latest notifications"
        style={{ maxHeight: 400, overflowY: 'auto', margin: 0, padding: 0, listStyle: 'none' }}
      >
        {list.map((item) => (
          <NotificationRow key={item.id} item={item} expanded={expandedId === item.id} onOpen={openItem} />
        ))}
      </ul>
    );

  return (
    <Popover
      trigger="click"
      placement="bottomRight"
      // Opening the bell reads the list and the count again: the badge's count (GET unread_count) and the list are
      // two answers, and a notice the hub's message did not bring (a page opened meanwhile, a lost message) would
      // otherwise show as a badge over "No notification found".
      onOpenChange={(open) => {
        if (!open) return;
        void readAgain(queryClient, queryKeys.notifications);
        void queryClient.invalidateQueries({ queryKey: queryKeys.unreadNotifications });
      }}
      title={
        <Flex justify="space-between" align="center" gap={16}>
          <Typography.Text strong>Notifications</Typography.Text>
          <Button
            type="link"
            size="small"
            disabled={unread === 0}
            loading={markRead.isPending}
            onClick={() => markRead.mutate('all')}
          >
            Mark all as read
          </Button>
        </Flex>
      }
      content={<div style={{ width: 340 }}>{content}</div>}
    >
      <Badge count={unread} size="small">
        <Button
          type="text"
          shape="circle"
          aria-label={unread === 0 ? 'Notifications' : `Notifications (${unread} unread)`}
          icon={<BellOutlined />}
        />
      </Badge>
    </Popover>
  );
}

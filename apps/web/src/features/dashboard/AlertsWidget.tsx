import { Card, Empty, Flex, Typography } from 'antd';
import { DASHBOARD_WIDGETS } from '@cumulo/contract';
import { notificationTime } from '../notifications/NotificationBell.tsx';
import { useNotifications } from '../notifications/notifications-api.ts';

/** How many of the newest notifications the widget lists; the bell holds the rest. */
const ALERTS_SHOWN = 5;

/**
 * The dashboard's Alerts widget: the organisation's newest notifications (size and cost alerts crossing their
 * limits, failed transfers, syncs waiting for approval), from the bell's own list.
 */
export function AlertsWidget() {
  const notifications = useNotifications();
  const newest = (notifications.data ?? []).slice(0, ALERTS_SHOWN);
  return (
    <Card
      title={DASHBOARD_WIDGETS.alerts}
      loading={notifications.isPending && notifications.fetchStatus !== 'idle'}
    >
      {newest.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No alerts" />
      ) : (
        <Flex
          vertical
          gap={12}
          component="ul"
          aria-label="Newest alerts"
          style={{ listStyle: 'none', margin: 0, padding: 0 }}
        >
          {newest.map((item) => (
            <li key={item.id}>
              <Flex justify="space-between" gap={16}>
                <Typography.Text strong={!item.read}>{item.title}</Typography.Text>
                <Typography.Text type="secondary">{notificationTime(item.last_notified)}</Typography.Text>
              </Flex>
              <Typography.Text type="secondary">{item.description}</Typography.Text>
            </li>
          ))}
        </Flex>
      )}
    </Card>
  );
}

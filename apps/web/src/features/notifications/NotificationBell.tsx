import { Badge, Button, Empty, List, Popover, Typography } from 'antd';
import { BellOutlined } from '@ant-design/icons';
import { messages } from '@cumulo/contract';

/** A bell notification (spec 000 §3). */
export interface BellNotification {
  id: string;
  read: boolean;
  title: string;
  description: string;
}

interface NotificationBellProps {
  notifications?: readonly BellNotification[];
}

/** Header bell with its popover; there is no notifications feed yet, so it receives an empty list. */
export function NotificationBell({ notifications = [] }: NotificationBellProps) {
  const unread = notifications.filter((item) => !item.read).length;
  const content =
    notifications.length === 0 ? (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={messages.noNotifications} />
    ) : (
      <List
        dataSource={[...notifications]}
        renderItem={(item) => (
          <List.Item key={item.id}>
            <List.Item.Meta title={item.title} description={item.description} />
          </List.Item>
        )}
      />
    );
  return (
    <Popover
      trigger="click"
      placement="bottomRight"
      title={<Typography.Text strong>Notifications</Typography.Text>}
      content={<div style={{ width: 300 }}>{content}</div>}
    >
      <Badge count={unread} size="small">
        <Button type="text" shape="circle" aria-label="Notifications" icon={<BellOutlined />} />
      </Badge>
    </Popover>
  );
}

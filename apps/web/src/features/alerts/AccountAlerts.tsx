import { useState } from 'react';
import { Alert, Button, Card, Flex, Space, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { alertMessages, type CloudAccountView } from '@cumulo/contract';
import { useProfile } from '../profile/useProfile.ts';
import { AlertTable } from './AlertTable.tsx';
import { GoBackLink } from './GoBackLink.tsx';
import { NewAlertModal } from './NewAlertModal.tsx';
import { WatchedUsageCard } from './WatchedUsageCard.tsx';
import { useAccountAlerts } from './alerts-api.ts';

const MANAGER_ROLES: readonly string[] = ['Owner', 'Admin'];

/** The heading of the Alerts screen (spec 000 §2). */
function alertsHeading(accountName: string, bucketName: string | null): string {
  return bucketName === null
    ? `Set up notifications for ${accountName}`
    : `Set up notifications for ${bucketName} (${accountName})`;
}

interface AccountAlertsProps {
  account: CloudAccountView;
  bucketName: string | null;
}

/** Alerts of one account, or of one of its buckets when the route names it. */
export function AccountAlerts({ account, bucketName }: AccountAlertsProps) {
  const { data: profile } = useProfile();
  const canManage = profile !== undefined && MANAGER_ROLES.includes(profile.role.title);
  const [modalOpen, setModalOpen] = useState(false);
  const alerts = useAccountAlerts(account.id);
  const shown =
    bucketName === null
      ? (alerts.data ?? [])
      : (alerts.data ?? []).filter((alert) => alert.bucket_name === bucketName);

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <GoBackLink />
      <Flex justify="space-between" align="center" gap={16} wrap>
        <Typography.Title level={2} style={{ margin: 0 }}>
          {alertsHeading(account.name, bucketName)}
        </Typography.Title>
        {canManage && (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setModalOpen(true)}>
            set new alert
          </Button>
        )}
      </Flex>
      <WatchedUsageCard account={account} bucketName={bucketName} />
      <Card title="Alerts">
        {alerts.isError ? (
          <Alert
            type="error"
            showIcon
            title={alertMessages.fetchFailed}
            action={
              <Button size="small" onClick={() => void alerts.refetch()} loading={alerts.isFetching}>
                Try again
              </Button>
            }
          />
        ) : (
          <AlertTable
            accountId={account.id}
            alerts={shown}
            loading={alerts.isPending}
            canManage={canManage}
          />
        )}
      </Card>
      {canManage && (
        <NewAlertModal
          open={modalOpen}
          onClose={() => setModalOpen(false)}
          account={account}
          bucketName={bucketName}
        />
      )}
    </Space>
  );
}

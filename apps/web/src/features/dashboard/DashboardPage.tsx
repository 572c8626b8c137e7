import { Flex, Space, Typography } from 'antd';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { AddAccountButton } from '../accounts/AddAccountButton.tsx';
import { CloudAccountList } from '../accounts/CloudAccountList.tsx';
import { DashboardSyncJobs } from '../sync/DashboardSyncJobs.tsx';
import { RecentTransfers } from './RecentTransfers.tsx';

/**
 * / and /dashboard — the Dashboard / Hybrid view (spec 000 §2): accounts with their buckets, the sync jobs, recent
 * transfers.
 */
export function DashboardPage() {
  useDocumentTitle('Dashboard');
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Flex justify="space-between" align="center" wrap gap={16}>
        <Typography.Title level={2} style={{ margin: 0 }}>
          Dashboard
        </Typography.Title>
        <AddAccountButton />
      </Flex>
      <CloudAccountList redirectWhenEmpty />
      <DashboardSyncJobs />
      <RecentTransfers />
    </Space>
  );
}

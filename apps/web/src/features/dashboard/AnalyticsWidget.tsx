import { useState } from 'react';
import { Button, Card, Flex, Table, Typography } from 'antd';
import { Link } from 'react-router';
import {
  DASHBOARD_WIDGETS,
  analyticsReadMessages,
  formatUsd,
  packageByHandle,
  productLabelOf,
  type DashboardAnalyticsItem,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { useDashboardAnalytics } from '../analytics/analytics-api.ts';
import { holdsPackage } from '../billing/billing-api.ts';
import { SubscriptionModal } from '../billing/SubscriptionModal.tsx';
import { useProfile } from '../profile/useProfile.ts';

const ANALYTICS = packageByHandle('analytics');

/**
 * The dashboard's Analytics widget (spec 000 §3 "Analytics items shown on the dashboard"): this month's costliest
 * items across the organisation's accounts — product, usage type, cost, bucket or database. Without the Analytics
 * package the widget offers it instead, and asks the server nothing (it would refuse).
 */
export function AnalyticsWidget() {
  const profile = useProfile().data;
  const held = Boolean(profile && ANALYTICS && holdsPackage(profile, ANALYTICS.title));
  const items = useDashboardAnalytics(held);
  const accounts = useCloudAccounts();
  const [offering, setOffering] = useState(false);
  const accountName = (id: string) => accounts.data?.find((account) => account.id === id)?.name ?? '';

  if (!profile || !ANALYTICS) return null;
  if (!held)
    return (
      <Card title={DASHBOARD_WIDGETS.analytics}>
        <Flex vertical align="start" gap={12}>
          <Typography.Text>{analyticsReadMessages.packageRequired}</Typography.Text>
          <Button type="primary" onClick={() => setOffering(true)}>
            Subscribe to {ANALYTICS.title}
          </Button>
        </Flex>
        {offering && <SubscriptionModal pkg={ANALYTICS} open onClose={() => setOffering(false)} />}
      </Card>
    );
  return (
    <Card
      title={DASHBOARD_WIDGETS.analytics}
      extra={<Link to="/analytics">Open Analytics</Link>}
      loading={items.isPending}
    >
      {items.error ? (
        <Typography.Text type="danger">{describeError(items.error)}</Typography.Text>
      ) : (
        <Table<DashboardAnalyticsItem>
          aria-label="Costliest items this month"
          size="small"
          pagination={false}
          rowKey={(item) =>
            `${item.cloud_account_id}/${item.product_name}/${item.usage_type}/${item.bucket_name ?? item.database_name ?? ''}`
          }
          dataSource={items.data ?? []}
          locale={{ emptyText: analyticsReadMessages.noData }}
          columns={[
            { title: 'Product', key: 'product', render: (_, item) => productLabelOf(item.product_name) },
            { title: 'Usage type', dataIndex: 'usage_type' },
            {
              title: 'Bucket or database',
              key: 'resource',
              render: (_, item) => item.bucket_name ?? item.database_name ?? '—',
            },
            { title: 'Account', key: 'account', render: (_, item) => accountName(item.cloud_account_id) },
            {
              title: 'Total cost',
              key: 'cost',
              align: 'right',
              render: (_, item) => formatUsd(item.total_cost),
            },
          ]}
        />
      )}
    </Card>
  );
}

import type { ReactNode } from 'react';
import { Alert, Button, Flex, Result, Space, Tabs, Typography } from 'antd';
import { Link, useSearchParams } from 'react-router';
import { analyticsMessages, analyticsReadMessages, type CloudAccountView } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { AnalyticsFilters, useAnalyticsFilters, type AnalyticsFilterState } from './AnalyticsFilters.tsx';
import { IngestStatus } from './IngestStatus.tsx';
import { InstancesPage } from './InstancesPage.tsx';
import { InvoicesPage } from './InvoicesPage.tsx';
import { OverviewPage } from './OverviewPage.tsx';
import { StorageEstimates, StoragePage } from './StoragePage.tsx';

const PAGES = ['overview', 'storage', 'database', 'compute', 'invoices'] as const;
type AnalyticsPageKey = (typeof PAGES)[number];
const PAGE_TITLES: Record<AnalyticsPageKey, string> = {
  overview: 'Overview',
  storage: 'Storage',
  database: 'Database',
  compute: 'Compute',
  invoices: 'Invoices',
};

/** The page shown, kept in the address (`?page=`) beside the filters so a view can be linked. */
function usePageParam(): [AnalyticsPageKey, (page: AnalyticsPageKey) => void] {
  const [params, setParams] = useSearchParams();
  const asked = params.get('page');
  const page = PAGES.find((key) => key === asked) ?? 'overview';
  const choose = (next: AnalyticsPageKey) => {
    const updated = new URLSearchParams(params);
    updated.set('page', next);
    setParams(updated, { replace: true });
  };
  return [page, choose];
}

/** /analytics, the new version (spec 002 §2): filters, ingestion state, then Overview, Storage, Database, Compute, Invoices. */
export function AnalyticsPage() {
  useDocumentTitle('Analytics');
  const filters = useAnalyticsFilters();
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Flex justify="space-between" align="center" wrap gap={16}>
        <Typography.Title level={2} style={{ margin: 0 }}>
          Analytics
        </Typography.Title>
        {filters.accounts && filters.accounts.length > 0 && <AnalyticsFilters state={filters} />}
      </Flex>
      <AnalyticsBody filters={filters} />
    </Space>
  );
}

function AnalyticsBody({ filters }: { filters: AnalyticsFilterState }) {
  const accounts = useCloudAccounts();
  if (accounts.isError) return <Alert type="error" showIcon title={describeError(accounts.error)} />;
  if (!filters.accounts) return <PageSpinner />;
  if (filters.accounts.length === 0) {
    return (
      <Result
        status="info"
        title={analyticsReadMessages.noAccount}
        extra={
          <Link to="/addProvider">
            <Button type="primary">Add a cloud account</Button>
          </Link>
        }
      />
    );
  }
  if (!filters.accounts.some((account) => account.billing_bucket)) {
    return (
      <Space orientation="vertical" size="large" style={{ width: '100%' }}>
        <Result
          status="info"
          title={analyticsReadMessages.noBillingBucket}
          extra={
            <Link to="/">
              <Button type="primary">Go to the Hybrid page</Button>
            </Link>
          }
        />
        {/* The estimates need no billing report: every provider's buckets are estimated from the inventory. */}
        <StorageEstimates month={filters.selection.month} />
      </Space>
    );
  }
  const account = filters.account;
  if (!account) return <PageSpinner />;
  return <AccountAnalytics account={account} filters={filters} />;
}

function AccountAnalytics({
  account,
  filters,
}: {
  account: CloudAccountView;
  filters: AnalyticsFilterState;
}) {
  const [page, choosePage] = usePageParam();
  const selection = filters.selection;
  if (!account.billing_bucket) {
    return <Alert type="info" showIcon title={analyticsMessages.noBillingBucket(account.name)} />;
  }
  const content: Record<AnalyticsPageKey, () => ReactNode> = {
    overview: () => <OverviewPage selection={selection} />,
    storage: () => <StoragePage selection={selection} />,
    database: () => <InstancesPage kind="rds" selection={selection} />,
    compute: () => <InstancesPage kind="ec2" selection={selection} />,
    invoices: () => <InvoicesPage key={account.id} cloudId={account.id} />,
  };
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <IngestStatus account={account} />
      <Tabs
        activeKey={page}
        onChange={(key) => choosePage(PAGES.find((candidate) => candidate === key) ?? 'overview')}
        destroyOnHidden
        items={PAGES.map((key) => ({
          key,
          label: PAGE_TITLES[key],
          children: key === page ? content[key]() : null,
        }))}
      />
    </Space>
  );
}

import { useState } from 'react';
import { Empty, Flex, Tabs, Typography } from 'antd';
import {
  ALLOCATION_PRODUCTS,
  analyticsReadMessages,
  type AllocationProduct,
  type ProductTotalCost,
} from '@cumulo/contract';
import { useDocumentTitle } from '../../../ui/useDocumentTitle.ts';
import { AnalyticsFilters, useAnalyticsFilters } from '../AnalyticsFilters.tsx';
import {
  useBucketCosts,
  useDatabaseCosts,
  useProductTotals,
  type AnalyticsSelection,
} from '../analytics-api.ts';
import { DetailDrillDown, bucketResources, databaseResources } from './DetailDrillDown.tsx';
import { DownloadInvoice } from './DownloadInvoice.tsx';
import { EfsUsage } from './EfsUsage.tsx';
import { OverviewDonut, ProductDonuts } from './ProductDonuts.tsx';
import { StorageUsage } from './StorageUsage.tsx';
import { TabState } from './TabState.tsx';

const SUPPORT_CODES: readonly string[] = ALLOCATION_PRODUCTS.support;

/** True when the month's product totals hold an AWS Support plan (spec 002 §2: the tab shows only then). */
function hasSupport(totals: readonly ProductTotalCost[] | undefined): boolean {
  return (totals ?? []).some((product) => SUPPORT_CODES.includes(product.product_code));
}

/** Another account or month starts a drill-down afresh: its buckets and databases are not the same. */
const selectionKey = (selection: AnalyticsSelection) => `${selection.cloudId ?? ''}/${selection.month}`;

function BucketCost({ selection }: { selection: AnalyticsSelection }) {
  const buckets = useBucketCosts(selection);
  return (
    <TabState query={buckets}>
      {(rows) => (
        <DetailDrillDown key={selectionKey(selection)} noun="bucket" resources={bucketResources(rows)} />
      )}
    </TabState>
  );
}

function DatabaseCost({ selection }: { selection: AnalyticsSelection }) {
  const databases = useDatabaseCosts(selection);
  return (
    <TabState query={databases}>
      {(rows) => (
        <DetailDrillDown key={selectionKey(selection)} noun="database" resources={databaseResources(rows)} />
      )}
    </TabState>
  );
}

/**
 * /analytics-old, the previous analytics screen (spec 002 §2 "Analytics, old version"): account, year and month,
 * then one tab per view of the account's billing reports. Tabs render when first opened, so each asks only for
 * its own call; the product totals are asked once, for Overview and to decide whether AWS Support shows.
 */
export function AnalyticsOldPage() {
  useDocumentTitle('Analytics (previous version)');
  const filters = useAnalyticsFilters();
  const { selection, account } = filters;
  const totals = useProductTotals(selection);
  const [activeTab, setActiveTab] = useState('overview');

  const product = (key: AllocationProduct, label: string) => ({
    key,
    label,
    children: <ProductDonuts product={key} title={label} selection={selection} />,
  });

  const tabs = account
    ? [
        { key: 'overview', label: 'Overview', children: <OverviewDonut totals={totals} /> },
        product('s3', 'S3'),
        { key: 'bucket-cost', label: 'Bucket Cost', children: <BucketCost selection={selection} /> },
        { key: 'storage-usage', label: 'Storage Usage', children: <StorageUsage account={account} /> },
        product('ec2', 'EC2'),
        product('data-transfer', 'Data Transfer'),
        product('rds', 'Amazon RDS'),
        { key: 'database-cost', label: 'Database Cost', children: <DatabaseCost selection={selection} /> },
        product('cloudwatch', 'Cloud Watch'),
        product('efs', 'EFS Cost'),
        { key: 'efs-usage', label: 'EFS Usage', children: <EfsUsage selection={selection} /> },
        product('direct-connect', 'Direct Connect'),
        ...(hasSupport(totals.data) ? [product('support', 'AWS Support')] : []),
        product('route53', 'Route 53'),
        { key: 'invoices', label: 'Download Invoice', children: <DownloadInvoice cloudId={account.id} /> },
      ]
    : [];

  return (
    <Flex vertical gap={16}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Analytics
      </Typography.Title>
      <AnalyticsFilters state={filters} />
      {filters.accounts?.length === 0 ? (
        <Empty description={analyticsReadMessages.noAccount} />
      ) : (
        <Tabs
          activeKey={tabs.some((tab) => tab.key === activeTab) ? activeTab : 'overview'}
          onChange={setActiveTab}
          items={tabs}
        />
      )}
    </Flex>
  );
}

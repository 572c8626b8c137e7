import { Col, Row, Space, Table, Typography } from 'antd';
import {
  formatBytes,
  type AnalyticsOverview,
  type ProductTotalCost,
  type StorageCostEstimate,
} from '@cumulo/contract';
import {
  useAnalyticsOverview,
  useProductTotals,
  useStorageEstimates,
  type AnalyticsSelection,
} from './analytics-api.ts';
import { FigureCard, NoData, Panel, QueryBody, usd } from './AnalyticsPanel.tsx';
import { hasMonthData } from './OverviewPage.tsx';
import { analyticsTexts } from './analytics-texts.ts';

/** Shown where a bucket has no billed cost: no report holds it. */
const NOT_BILLED = '—';

const productCost = (products: readonly ProductTotalCost[], code: string) =>
  products.find((p) => p.product_code === code)?.total_cost ?? 0;
const categoryCost = (overview: AnalyticsOverview, name: string) =>
  overview.categories.find((c) => c.name === name)?.monthly_actual ?? 0;

/**
 * /analytics Storage (spec 002 §2): cards Total, S3, EFS, Transfer, then every account's storage-cost estimate.
 * Total is the Storage category (the Overview's Storage Cost, so both pages agree); Transfer is the Transfer
 * category; S3 and EFS are their product codes' totals.
 */
export function StoragePage({ selection }: { selection: AnalyticsSelection }) {
  const overview = useAnalyticsOverview(selection);
  const products = useProductTotals(selection);
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <QueryBody query={overview}>
        {(month) =>
          hasMonthData(month) ? (
            <QueryBody query={products}>
              {(totals) => (
                <Row gutter={[16, 16]}>
                  {(
                    [
                      ['Total', month.storage_cost],
                      ['S3', productCost(totals, 'AmazonS3')],
                      ['EFS', productCost(totals, 'AmazonEFS')],
                      ['Transfer', categoryCost(month, 'Transfer')],
                    ] as const
                  ).map(([title, amount]) => (
                    <Col key={title} xs={12} lg={6}>
                      <FigureCard title={title} value={usd(amount)} />
                    </Col>
                  ))}
                </Row>
              )}
            </QueryBody>
          ) : (
            <NoData />
          )
        }
      </QueryBody>
      <StorageEstimates month={selection.month} />
    </Space>
  );
}

/** Billed above the estimate reads red, below it green: the bill is what the member checks against. */
function Difference({ amount }: { amount: number | null }) {
  if (amount === null) return <>{NOT_BILLED}</>;
  const type = amount > 0 ? 'danger' : amount < 0 ? 'success' : undefined;
  return <Typography.Text type={type}>{amount > 0 ? `+${usd(amount)}` : usd(amount)}</Typography.Text>;
}

/**
 * Every account's buckets of any provider (issue 24 "beyond the anchors"): the month's storage cost estimated from
 * the inventory and the price table, beside the billed cost where a report has the bucket.
 */
export function StorageEstimates({ month }: { month: string }) {
  const estimates = useStorageEstimates(month);
  return (
    <Panel title="Storage cost estimates">
      <QueryBody query={estimates}>
        {(rows) => (
          <Table<StorageCostEstimate>
            size="small"
            aria-label="Storage cost estimates"
            rowKey={(row) => `${row.cloud_account_id}/${row.bucket_name}`}
            dataSource={rows}
            pagination={rows.length > 20 ? { pageSize: 20 } : false}
            locale={{ emptyText: analyticsTexts.noBucketToEstimate }}
            scroll={{ x: true }}
            columns={[
              { title: 'Account', dataIndex: 'account_name' },
              { title: 'Provider', dataIndex: 'provider' },
              { title: 'Bucket', dataIndex: 'bucket_name' },
              { title: 'Size', dataIndex: 'size', render: (size: number) => formatBytes(size) },
              {
                title: 'Estimated',
                dataIndex: 'estimated_cost',
                align: 'right',
                render: (cost: number) => usd(cost),
              },
              {
                title: 'Billed',
                dataIndex: 'billed_cost',
                align: 'right',
                render: (cost: number | null) => (cost === null ? NOT_BILLED : usd(cost)),
              },
              {
                title: 'Difference',
                dataIndex: 'difference',
                align: 'right',
                render: (difference: number | null) => <Difference amount={difference} />,
              },
            ]}
          />
        )}
      </QueryBody>
    </Panel>
  );
}

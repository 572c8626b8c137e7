import { Card, Col, Row, Statistic, Typography } from 'antd';
import { DASHBOARD_WIDGETS, formatBytes, formatUsd } from '@cumulo/contract';
import { useCloudAccounts } from '../accounts/accounts-api.ts';

/**
 * The dashboard's Usage widget: what the organisation's connected accounts hold, summed from the same account
 * list the accounts widget shows (the inventory's counts, the price table's estimates, and the newest billed month
 * of an account whose billing reports are ingested).
 */
export function UsageWidget() {
  const accounts = useCloudAccounts();
  // The accounts widget already says why the list is missing or empty.
  if (!accounts.data?.length) return null;
  const totals = accounts.data.reduce(
    (sum, account) => ({
      bytes: sum.bytes + account.total_bytes_used,
      buckets: sum.buckets + account.bucket_count,
      cost: sum.cost + account.total_cost,
    }),
    { bytes: 0, buckets: 0, cost: 0 },
  );
  const billed = accounts.data.some((account) => account.cost_month);
  return (
    <Card title={DASHBOARD_WIDGETS.usage}>
      <Row gutter={[24, 16]}>
        <Col xs={12} md={6}>
          <Statistic title="Storage used" value={formatBytes(totals.bytes)} />
        </Col>
        <Col xs={12} md={6}>
          <Statistic title="Buckets" value={totals.buckets} />
        </Col>
        <Col xs={12} md={6}>
          <Statistic title="Cloud accounts" value={accounts.data.length} />
        </Col>
        <Col xs={12} md={6}>
          {/* An account with ingested billing reports counts its newest billed month, not an estimate. */}
          <Statistic
            title={billed ? 'Monthly cost' : 'Estimated monthly cost'}
            value={formatUsd(totals.cost)}
          />
          {billed && (
            <Typography.Text type="secondary">
              Billed where reports are ingested, estimated from storage otherwise
            </Typography.Text>
          )}
        </Col>
      </Row>
    </Card>
  );
}

import { Alert, Card, Col, Row, Statistic, Typography } from 'antd';
import { formatBytes, formatUsd, type CloudAccountView } from '@cumulo/contract';
import { costTitle, watchedUsage } from './watched-usage.ts';

interface WatchedUsageCardProps {
  account: CloudAccountView;
  bucketName: string | null;
}

/** The value the alerts watch, so the user can pick a limit above or near it. */
export function WatchedUsageCard({ account, bucketName }: WatchedUsageCardProps) {
  const usage = watchedUsage(account, bucketName);
  const title = bucketName === null ? 'Current usage of the whole account' : `Current usage of ${bucketName}`;
  if (!usage) {
    return (
      <Alert
        type="info"
        showIcon
        title={`${bucketName ?? ''} is not in the bucket list of ${account.name} yet, so its size and cost are unknown.`}
      />
    );
  }
  return (
    <Card title={title} size="small">
      <Row gutter={[24, 16]}>
        <Col xs={24} sm={8}>
          <Statistic title="Size" value={formatBytes(usage.size)} />
        </Col>
        <Col xs={24} sm={8}>
          <Statistic title={costTitle(usage)} value={formatUsd(usage.cost, 5)} />
        </Col>
        <Col xs={24} sm={8}>
          {usage.objectCount === null ? (
            <Statistic title="Buckets" value={account.bucket_count} />
          ) : (
            <Statistic title="Objects" value={usage.objectCount} />
          )}
        </Col>
      </Row>
      {usage.counting && (
        <Typography.Paragraph type="secondary" style={{ margin: '12px 0 0' }}>
          The inventory is still counting objects, so the size may grow.
        </Typography.Paragraph>
      )}
    </Card>
  );
}

import { Card, Col, Row, Statistic } from 'antd';
import type { CloudAccountView } from '@cumulo/contract';
import { ByteSize } from '../../../ui/ByteSize.tsx';

/** Storage Usage (spec 002 §2): what the account holds, from its inventory in the account list. */
export function StorageUsage({ account }: { account: CloudAccountView }) {
  return (
    <Card size="small" title={`Storage of ${account.name}`}>
      <Row gutter={[24, 16]}>
        <Col xs={12}>
          <Statistic
            title="Total bytes used"
            valueRender={() => <ByteSize bytes={account.total_bytes_used} />}
          />
        </Col>
        <Col xs={12}>
          <Statistic title="Buckets" value={account.bucket_count} />
        </Col>
      </Row>
    </Card>
  );
}

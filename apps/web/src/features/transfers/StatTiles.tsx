import { Card, Col, Row, Statistic } from 'antd';
import { formatBytes } from '@cumulo/contract';
import { formatSpeed, type TransferStats } from './transfer-stats.ts';

function Tile({ title, value }: { title: string; value: string }) {
  return (
    <Col xs={24} md={8}>
      <Card role="group" aria-label={title}>
        <Statistic title={title} value={value} />
      </Card>
    </Col>
  );
}

/** The Speed, Transferred and Remaining tiles of the Transfer Status page (spec 001 §2). */
export function StatTiles({ stats }: { stats: TransferStats }) {
  return (
    <Row gutter={[16, 16]}>
      <Tile title="Speed" value={formatSpeed(stats.speed)} />
      <Tile title="Transferred" value={formatBytes(stats.transferred)} />
      <Tile title="Remaining" value={formatBytes(stats.remaining)} />
    </Row>
  );
}

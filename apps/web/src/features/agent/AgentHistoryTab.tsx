import { useState } from 'react';
import dayjs from 'dayjs';
import {
  Alert,
  Card,
  Col,
  Empty,
  Row,
  Space,
  Statistic,
  Table,
  Typography,
  type TableColumnsType,
} from 'antd';
import { AGENT_HISTORY_LIMIT, agentMessages, formatBytes, type AgentHistoryItem } from '@cumulo/contract';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { useAgentHistory, useAgentSummary } from './agent-api.ts';
import { historyDate, usdText } from './agent-format.ts';

interface SummaryRange {
  title: string;
  from: string;
  to: string;
}

/** Spec 001 §2: the three summary cards, computed once when the tab opens (stable query keys). */
function summaryRanges(now = dayjs()): SummaryRange[] {
  const monthStart = now.startOf('month');
  return [
    { title: 'Transfers Last 24h', from: now.subtract(24, 'hour').toISOString(), to: now.toISOString() },
    { title: 'This Month', from: monthStart.toISOString(), to: now.toISOString() },
    {
      title: 'Last Month',
      from: monthStart.subtract(1, 'month').toISOString(),
      to: monthStart.toISOString(),
    },
  ];
}

function SummaryCard({ range }: { range: SummaryRange }) {
  const summary = useAgentSummary(range.from, range.to);
  const data = summary.data;
  return (
    <Card size="small" title={range.title} loading={summary.isPending} aria-label={range.title} role="group">
      {summary.isError ? (
        <Typography.Text type="danger">{agentMessages.historyFailed}</Typography.Text>
      ) : (
        <Row gutter={8}>
          <Col span={8}>
            <Statistic title="Files" value={data?.count ?? 0} />
          </Col>
          <Col span={8}>
            <Statistic title="Size" value={formatBytes(data?.size ?? 0)} />
          </Col>
          <Col span={8}>
            <Statistic title="Cost" value={usdText(data?.cost ?? 0)} />
          </Col>
        </Row>
      )}
    </Card>
  );
}

const DIRECTION_TEXT = { upload: 'Upload', download: 'Download' } as const;

const columns: TableColumnsType<AgentHistoryItem> = [
  { title: 'Bucket', dataIndex: 'bucket', key: 'bucket' },
  {
    title: 'Direction',
    key: 'direction',
    width: 110,
    render: (_, item) => DIRECTION_TEXT[item.direction],
  },
  { title: 'Files', dataIndex: 'files_count', key: 'files', width: 90 },
  { title: 'Size', key: 'size', width: 120, render: (_, item) => <ByteSize bytes={item.size} /> },
  { title: 'Cost', key: 'cost', width: 120, render: (_, item) => usdText(item.cost) },
  { title: 'Date', key: 'date', width: 120, render: (_, item) => historyDate(item.date) },
];

/** Spec 001 §2 tab 2 "Transfer History": the summary cards and the agent's transfers, 100 a page. */
export function AgentHistoryTab() {
  const [ranges] = useState(summaryRanges);
  const [page, setPage] = useState(1);
  const history = useAgentHistory(page);

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Row gutter={[16, 16]}>
        {ranges.map((range) => (
          <Col key={range.title} xs={24} md={8}>
            <SummaryCard range={range} />
          </Col>
        ))}
      </Row>
      {history.isError ? <Alert type="error" showIcon title={agentMessages.historyFailed} /> : null}
      <Table<AgentHistoryItem>
        aria-label="Transfer history"
        rowKey="id"
        size="small"
        columns={columns}
        loading={history.isPending}
        dataSource={history.data?.transfers ?? []}
        pagination={{
          current: page,
          pageSize: AGENT_HISTORY_LIMIT,
          total: history.data?.count ?? 0,
          showSizeChanger: false,
          hideOnSinglePage: true,
          onChange: setPage,
        }}
        locale={{
          emptyText: history.isError ? (
            <Empty description={agentMessages.historyFailed} />
          ) : (
            <Empty description={<Typography.Text strong>{agentMessages.noHistoryTitle}</Typography.Text>}>
              <Typography.Text type="secondary">{agentMessages.noHistory}</Typography.Text>
            </Empty>
          ),
        }}
      />
    </Space>
  );
}

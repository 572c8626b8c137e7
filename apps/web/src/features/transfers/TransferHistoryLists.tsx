import { Alert, Card, Col, Empty, Row, Spin, Typography } from 'antd';
import dayjs from 'dayjs';
import {
  BATCH_STATUS_LABEL,
  formatBytes,
  type BatchStatusCode,
  type HistoryEntry,
  type TransferProviderFilter,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { endpointLabel } from './transfer-labels.ts';
import { useC2cHistory } from './transfers-api.ts';

/** Spec 000 §9: history dates read like MMM-DD-YY. */
const HISTORY_DATE_FORMAT = 'MMM-DD-YY';

const statusText = (code: number) => BATCH_STATUS_LABEL[code as BatchStatusCode] ?? String(code);

function HistoryItem({ entry, withDate }: { entry: HistoryEntry; withDate: boolean }) {
  const created = dayjs(entry.created);
  const name = `${endpointLabel(entry.cloud, entry.bucket)} → ${endpointLabel(entry.destination.cloud, entry.destination.bucket_name)}`;
  return (
    <li style={{ padding: '8px 0', borderBottom: '1px solid #f0f0f0' }} aria-label={name}>
      <Typography.Text strong>{name}</Typography.Text>
      <div>
        <Typography.Text type="secondary">
          {formatBytes(entry.size)} · {statusText(entry.status)} ·{' '}
          <time dateTime={created.toISOString()}>
            {created.format(withDate ? `${HISTORY_DATE_FORMAT} HH:mm` : 'HH:mm')}
          </time>
        </Typography.Text>
      </div>
    </li>
  );
}

function HistoryList({
  title,
  entries,
  withDate,
}: {
  title: string;
  entries: HistoryEntry[];
  withDate: boolean;
}) {
  return (
    <Col xs={24} lg={8}>
      {/* The three cards of a row end level, whichever lists more. */}
      <Card
        title={<h3 style={{ margin: 0, fontSize: 16 }}>{title}</h3>}
        size="small"
        style={{ height: '100%' }}
      >
        {entries.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No transfers" />
        ) : (
          <ul aria-label={title} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {entries.map((entry) => (
              <HistoryItem key={entry.id} entry={entry} withDate={withDate} />
            ))}
          </ul>
        )}
      </Card>
    </Col>
  );
}

/** The Today, Yesterday and This Week lists of the Transfer Status page (GET /c2c/history), of `filter`'s batches. */
export function TransferHistoryLists({ filter }: { filter?: TransferProviderFilter }) {
  const history = useC2cHistory(filter);
  if (history.isPending) return <Spin aria-label="Loading" />;
  if (history.isError) return <Alert type="error" showIcon title={describeError(history.error)} />;
  return (
    <Row gutter={[16, 16]}>
      <HistoryList title="Today" entries={history.data.today} withDate={false} />
      <HistoryList title="Yesterday" entries={history.data.yesterday} withDate={false} />
      <HistoryList title="This Week" entries={history.data.thisWeek} withDate />
    </Row>
  );
}

import { Card, Table, Typography, type TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import { ByteSize } from '../../ui/ByteSize.tsx';

/** Spec 000 §9: the recent transfers table shows at most 20 rows. */
export const RECENT_TRANSFERS_LIMIT = 20;
const SCROLL_HEIGHT = 400;
/** Spec 000 §9: history dates read like MMM-DD-YY. */
const HISTORY_DATE_FORMAT = 'MMM-DD-YY';

/** One migration history item (spec 000 §3), as the transfers API will answer it. */
export interface RecentTransfer {
  id: string;
  sourceCloudAccount: { name: string };
  sourceBucket: string;
  destinationCloudAccount: { name: string };
  destinationBucket: string;
  totalSize: number;
  transferredSize: number;
  requestDate: string;
  transferred: number;
  skipped: number;
  failed: number;
}

function AccountBucket({ account, bucket }: { account: string; bucket: string }) {
  return (
    <>
      <div>{account}</div>
      <Typography.Text type="secondary">{bucket}</Typography.Text>
    </>
  );
}

const count = (value: number) => value.toLocaleString('en-US');

const columns: TableColumnsType<RecentTransfer> = [
  {
    title: 'Source',
    key: 'source',
    render: (_, item) => <AccountBucket account={item.sourceCloudAccount.name} bucket={item.sourceBucket} />,
  },
  {
    title: 'Destination',
    key: 'destination',
    render: (_, item) => (
      <AccountBucket account={item.destinationCloudAccount.name} bucket={item.destinationBucket} />
    ),
  },
  { title: 'Total size', key: 'totalSize', render: (_, item) => <ByteSize bytes={item.totalSize} /> },
  {
    title: 'Transferred size',
    key: 'transferredSize',
    render: (_, item) => <ByteSize bytes={item.transferredSize} />,
  },
  {
    title: 'Requested',
    key: 'requestDate',
    render: (_, item) => {
      const date = dayjs(item.requestDate);
      return date.isValid() ? (
        <time dateTime={date.toISOString()}>{date.format(HISTORY_DATE_FORMAT)}</time>
      ) : (
        '—'
      );
    },
  },
  { title: 'Transferred', key: 'transferred', align: 'right', render: (_, item) => count(item.transferred) },
  { title: 'Skipped', key: 'skipped', align: 'right', render: (_, item) => count(item.skipped) },
  { title: 'Failed', key: 'failed', align: 'right', render: (_, item) => count(item.failed) },
];

interface RecentTransfersProps {
  /** Newest first; until the transfers API exists the dashboard passes none. */
  transfers?: readonly RecentTransfer[];
  loading?: boolean;
}

/** The dashboard's Recent Transfers table (spec 000 §2): at most 20 rows, scroll height 400. */
export function RecentTransfers({ transfers = [], loading = false }: RecentTransfersProps) {
  return (
    <Card title="Recent Transfers">
      <Table<RecentTransfer>
        rowKey="id"
        size="small"
        loading={loading}
        columns={columns}
        dataSource={transfers.slice(0, RECENT_TRANSFERS_LIMIT)}
        pagination={false}
        scroll={{ y: SCROLL_HEIGHT, x: 'max-content' }}
        locale={{ emptyText: 'No transfers yet' }}
      />
    </Card>
  );
}

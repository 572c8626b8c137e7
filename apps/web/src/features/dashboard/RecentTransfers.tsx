import { Alert, Card, Table, Typography, type TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import { RECENT_TRANSFERS_LIMIT, TRANSFER_TYPE, type TransferBatch } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { useTransferList } from '../transfers/transfers-api.ts';

const SCROLL_HEIGHT = 400;
/** Spec 000 §9: history dates read like MMM-DD-YY. */
const HISTORY_DATE_FORMAT = 'MMM-DD-YY';

function AccountBucket({ account, bucket }: { account: string; bucket: string }) {
  return (
    <>
      <div>{account}</div>
      <Typography.Text type="secondary">{bucket}</Typography.Text>
    </>
  );
}

const count = (value: number) => value.toLocaleString('en-US');

/** The migration history item's columns (spec 000 §3). */
const columns: TableColumnsType<TransferBatch> = [
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

/**
 * The dashboard's Recent Transfers table (spec 000 §2): the newest migrations from GET /transfer/get_all, at most
 * 20 rows, scroll height 400.
 */
export function RecentTransfers() {
  const recent = useTransferList(TRANSFER_TYPE.migration, 1, RECENT_TRANSFERS_LIMIT);
  return (
    <Card title="Recent Transfers">
      {recent.isError && <Alert type="error" showIcon title={describeError(recent.error)} />}
      <Table<TransferBatch>
        aria-label="Recent Transfers"
        rowKey="id"
        size="small"
        loading={recent.isPending}
        columns={columns}
        dataSource={(recent.data?.items ?? []).slice(0, RECENT_TRANSFERS_LIMIT)}
        pagination={false}
        scroll={{ y: SCROLL_HEIGHT, x: 'max-content' }}
        locale={{ emptyText: 'No transfers yet' }}
      />
    </Card>
  );
}

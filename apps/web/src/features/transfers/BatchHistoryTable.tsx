import { useState, type ReactNode } from 'react';
import { Alert, App, Button, Card, Flex, Table, Tag, Typography, type TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import {
  BATCH_STATUS,
  BATCH_STATUS_LABEL,
  TRANSFER_HISTORY_PAGE_SIZE,
  formatBytes,
  transferMessages,
  type BatchStatusCode,
  type TransferBatch,
  type TransferProviderFilter,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useMayManageTransfer } from './may-manage-transfer.ts';
import { endpointLabel } from './transfer-labels.ts';
import { formatSpeed } from './transfer-stats.ts';
import { useDownloadFailedFiles, useRetryTransfer, useTransferList } from './transfers-api.ts';

/** Spec 000 §9: timestamps read MM/DD/YYYY - HH:mm in local time. */
const TIMESTAMP_FORMAT = 'MM/DD/YYYY - HH:mm';
const count = (value: number) => value.toLocaleString('en-US');
const MiB = 1024 * 1024;

/** "≤ 2 MiB/s": the bandwidth limit the batch was started with. */
const bandwidthLimitText = (bytesPerSecond: number) =>
  `≤ ${Number((bytesPerSecond / MiB).toFixed(1)).toLocaleString('en-US')} MiB/s`;

function SpeedCell({ batch }: { batch: TransferBatch }) {
  return (
    <>
      <div>{formatSpeed(batch.averageSpeed)}</div>
      {batch.bandwidthLimit !== null && (
        <Typography.Text type="secondary" title="Bandwidth limit (server-side copies are not limited)">
          {bandwidthLimitText(batch.bandwidthLimit)}
        </Typography.Text>
      )}
    </>
  );
}

function Endpoint({ account, bucket, path }: { account: string; bucket: string; path: string }) {
  return (
    <>
      <div>{endpointLabel(account, bucket)}</div>
      {path && <Typography.Text type="secondary">{path}</Typography.Text>}
    </>
  );
}

function CountAndSize({ files, bytes }: { files: number; bytes?: number }) {
  return (
    <>
      <div>{count(files)}</div>
      {bytes !== undefined && <Typography.Text type="secondary">{formatBytes(bytes)}</Typography.Text>}
    </>
  );
}

/** Spec 001 §4: only a Failed batch with failed files can be retried, and only once. */
const canRetry = (batch: TransferBatch) =>
  batch.transferStatus === BATCH_STATUS.failed && batch.failed > 0 && !batch.Retried;

function BatchActions({ batch }: { batch: TransferBatch }) {
  const { message } = App.useApp();
  const retry = useRetryTransfer();
  const download = useDownloadFailedFiles();
  const mayManage = useMayManageTransfer();
  const act = (run: () => Promise<unknown>, success: string) => async () => {
    try {
      await run();
      void message.success(success);
    } catch (error) {
      void message.error(describeError(error));
    }
  };
  if (batch.failed === 0) return null;
  return (
    <Flex gap={8} wrap>
      {canRetry(batch) && mayManage(batch) && (
        <Button
          size="small"
          loading={retry.isPending}
          onClick={act(() => retry.mutateAsync(batch.id), transferMessages.retryStarted)}
        >
          Retry Failed Files
        </Button>
      )}
      <Button
        size="small"
        loading={download.isPending}
        onClick={act(() => download.mutateAsync(batch.id), transferMessages.downloadFailedStarted)}
      >
        Download Failed Files
      </Button>
    </Flex>
  );
}

/**
 * The status, and under a Failed one what to do about it: the actions sit where the eye already is, not in a last
 * column that a laptop screen only reaches by scrolling the table sideways.
 */
const statusCell = (batch: TransferBatch): ReactNode => (
  <Flex vertical gap={4} align="flex-start">
    <Flex gap={4} wrap>
      <span>
        {BATCH_STATUS_LABEL[batch.transferStatus as BatchStatusCode] ?? String(batch.transferStatus)}
      </span>
      {batch.operation === 'move' && <Tag>Move</Tag>}
      {batch.Retried && <Tag>Retried</Tag>}
    </Flex>
    {/* A batch that failed as a whole says why (an account removed, a store unreachable past the outage budget). */}
    {batch.transferStatus === BATCH_STATUS.failed && batch.error && (
      <Typography.Text type="danger">{batch.error}</Typography.Text>
    )}
    <BatchActions batch={batch} />
  </Flex>
);

/** Figures never break inside ("175.2 kB", "≤ 2 MiB/s"): the names beside them wrap instead. */
const noWrap = () => ({ style: { whiteSpace: 'nowrap' as const } });

const columns: TableColumnsType<TransferBatch> = [
  {
    title: 'Source',
    key: 'source',
    width: 160,
    render: (_, batch) => (
      <Endpoint account={batch.sourceCloudAccount.name} bucket={batch.sourceBucket} path={batch.sourcePath} />
    ),
  },
  {
    title: 'Destination',
    key: 'destination',
    width: 160,
    render: (_, batch) => (
      <Endpoint
        account={batch.destinationCloudAccount.name}
        bucket={batch.destinationBucket}
        path={batch.destinationPath}
      />
    ),
  },
  { title: 'Status', key: 'status', width: 150, render: (_, batch) => statusCell(batch) },
  {
    title: 'Total',
    key: 'total',
    align: 'right',
    onCell: noWrap,
    render: (_, batch) => <CountAndSize files={batch.total} bytes={batch.totalSize} />,
  },
  {
    title: 'Transferred',
    key: 'transferred',
    align: 'right',
    onCell: noWrap,
    render: (_, batch) => <CountAndSize files={batch.transferred} bytes={batch.transferredSize} />,
  },
  { title: 'Failed', key: 'failed', align: 'right', render: (_, batch) => count(batch.failed) },
  {
    title: 'Skipped',
    key: 'skipped',
    align: 'right',
    onCell: noWrap,
    render: (_, batch) => <CountAndSize files={batch.skipped} bytes={batch.skippedSize} />,
  },
  {
    // A move deletes each source once its copy is verified, or once it is found already at the destination; a
    // sync cycle deletes at the destination what left its source. A plain copy deletes nothing.
    title: <abbr title="Deleted from the source (a move) or the destination (a sync cycle)">Deleted</abbr>,
    key: 'deleted',
    align: 'right',
    render: (_, batch) =>
      batch.operation === 'move' || batch.syncCycleId !== null ? count(batch.deleted) : '—',
  },
  {
    title: 'Average speed',
    key: 'averageSpeed',
    align: 'right',
    onCell: noWrap,
    render: (_, batch) => <SpeedCell batch={batch} />,
  },
  {
    title: 'Requested',
    key: 'requestDate',
    width: 110,
    render: (_, batch) => {
      const date = dayjs(batch.requestDate);
      return <time dateTime={date.toISOString()}>{date.format(TIMESTAMP_FORMAT)}</time>;
    },
  },
];

const HISTORY_MIN_WIDTH = 960;

/** The batch history of the Transfer Status page: GET /transfer/get_all, 50 per page, newest first. */
export function BatchHistoryTable({ type, filter }: { type: number; filter?: TransferProviderFilter }) {
  const [page, setPage] = useState(1);
  const list = useTransferList(type, page, TRANSFER_HISTORY_PAGE_SIZE, filter);
  return (
    <Card title="Transfer history">
      {list.isError && <Alert type="error" showIcon title={describeError(list.error)} />}
      <Table<TransferBatch>
        aria-label="Transfer history"
        rowKey="id"
        size="small"
        loading={list.isFetching && (list.isPending || list.isPlaceholderData)}
        columns={columns}
        dataSource={list.data?.items ?? []}
        // Names wrap in their columns, so the whole table fits a laptop screen; narrower ones scroll sideways.
        scroll={{ x: HISTORY_MIN_WIDTH }}
        locale={{ emptyText: 'No transfers yet' }}
        pagination={{
          current: page,
          pageSize: TRANSFER_HISTORY_PAGE_SIZE,
          total: list.data?.total ?? 0,
          showSizeChanger: false,
          hideOnSinglePage: false,
          onChange: setPage,
        }}
      />
    </Card>
  );
}

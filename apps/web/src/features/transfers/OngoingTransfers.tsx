import { App, Button, Card, Empty, Flex, Popconfirm, Progress, Typography } from 'antd';
import { CloseOutlined } from '@ant-design/icons';
import {
  transferMessages,
  type MigrationFile,
  type MigrationProgress,
  type TransferBatch,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { isInFlight, useDismissTransfer } from './live-transfers.ts';
import { useMayManageTransfer } from './may-manage-transfer.ts';
import { statusLine, type StatusLine } from './migration-status.ts';
import { StatusIcon } from './StatusIcon.tsx';
import { endpointLabel, sourceLabel } from './transfer-labels.ts';
import { formatDuration, formatSpeed } from './transfer-stats.ts';
import { useCancelTransfer } from './transfers-api.ts';

/** Spec 001 §4: the list shows live batches until they succeed; failed and canceled ones stay until cleared. */
const listed = (migration: MigrationProgress) => migration.status !== 'Succeeded';

function ringStatus(line: StatusLine): 'active' | 'exception' | 'success' | 'normal' {
  if (line.tone === 'failed') return 'exception';
  if (line.tone === 'succeeded') return 'success';
  return line.tone === 'processing' ? 'active' : 'normal';
}

function StatusText({ line }: { line: StatusLine }) {
  return (
    <Typography.Text type={line.tone === 'failed' ? 'warning' : 'secondary'}>
      {line.text}
      {line.duration && ` in ${line.duration}`}
    </Typography.Text>
  );
}

function FileRow({ file }: { file: MigrationFile }) {
  const line = statusLine(file);
  return (
    <li>
      <Flex align="center" gap={8}>
        <StatusIcon tone={line.tone} label={file.status} />
        <Progress
          type="circle"
          size={20}
          percent={Math.round(file.percent)}
          status={ringStatus(line)}
          aria-label={`Progress of ${file.path}`}
        />
        <Typography.Text ellipsis style={{ maxWidth: 360 }}>
          {file.path}
        </Typography.Text>
        <StatusText line={line} />
      </Flex>
    </li>
  );
}

interface OngoingRowProps {
  migration: MigrationProgress;
  batch: TransferBatch | undefined;
}

function OngoingRow({ migration, batch }: OngoingRowProps) {
  const { message } = App.useApp();
  const cancel = useCancelTransfer();
  const dismiss = useDismissTransfer();
  const mayManage = useMayManageTransfer();
  const destination = endpointLabel(migration.cloud, migration.bucket);
  // The live feed names only the destination; until the batch list names the source, no arrow from nothing.
  const name = batch ? `${sourceLabel(batch)} → ${destination}` : `Transfer to ${destination}`;
  // Why it failed: the batch's own error, else how many of its files failed (a canceled one says Canceled).
  const failedFiles =
    migration.status === 'Failed' && batch && batch.failed > 0
      ? transferMessages.filesFailed(batch.failed, batch.total)
      : null;
  const line = statusLine({ ...migration, message: batch?.error ?? failedFiles });
  const files = Object.values(migration.files);
  // Spec 001 §4 asks before canceling a Processing copy; queued ones are live on the server too, so they ask too.
  // A batch at 100 % is still live until the server says it finished: its open confirmation must stay put.
  const cancelable = isInFlight(migration);

  const onConfirmCancel = async () => {
    try {
      const answer = await cancel.mutateAsync(migration.id);
      void message.success(answer.message);
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  const cancelButton = (
    <Button
      type="text"
      icon={<CloseOutlined />}
      aria-label={`Cancel transfer ${name}`}
      loading={cancel.isPending}
      onClick={cancelable ? undefined : () => dismiss(migration.id)}
    />
  );

  return (
    <li style={{ padding: '12px 0', borderBottom: '1px solid #f0f0f0' }} aria-label={name}>
      <Flex align="center" gap={12} wrap>
        <StatusIcon tone={line.tone} label={migration.status} />
        <Progress
          type="circle"
          size={48}
          percent={Math.round(migration.percent)}
          status={ringStatus(line)}
          aria-label={`Progress of ${name}`}
        />
        <Flex vertical style={{ flex: 1, minWidth: 240 }}>
          <Typography.Text strong>{name}</Typography.Text>
          <StatusText line={line} />
        </Flex>
        {migration.status === 'Processing' && (
          <Flex vertical align="end">
            <Typography.Text>{formatSpeed(migration.rate)}</Typography.Text>
            <Typography.Text type="secondary">
              {migration.time_left === null ? 'ETA unknown' : `ETA ${formatDuration(migration.time_left)}`}
            </Typography.Text>
          </Flex>
        )}
        {/* Clearing a batch that no longer runs stays on this page; canceling a live one is transfer.manage. */}
        {cancelable
          ? mayManage(migration) && (
              <Popconfirm
                title={transferMessages.cancelConfirm}
                okText="Yes"
                cancelText="No"
                onConfirm={onConfirmCancel}
              >
                {cancelButton}
              </Popconfirm>
            )
          : cancelButton}
      </Flex>
      {files.length > 0 && (
        <ul aria-label={`Files of ${name}`} style={{ listStyle: 'none', margin: '8px 0 0 60px', padding: 0 }}>
          {files.map((file) => (
            <FileRow key={file.path} file={file} />
          ))}
        </ul>
      )}
    </li>
  );
}

interface OngoingTransfersProps {
  migrations: readonly MigrationProgress[];
  /** Batches the page knows, to name each live batch's source. */
  batches: readonly TransferBatch[];
}

/** "Ongoing transfers" (spec 001 §2): each live batch with its icon, ring, status text, rate, ETA and cancel. */
export function OngoingTransfers({ migrations, batches }: OngoingTransfersProps) {
  const shown = migrations.filter(listed);
  return (
    <Card title="Ongoing transfers">
      {shown.length === 0 ? (
        <Empty description="No ongoing transfers" />
      ) : (
        <ul aria-label="Ongoing transfers" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {shown.map((migration) => (
            <OngoingRow
              key={migration.id}
              migration={migration}
              batch={batches.find((batch) => batch.id === migration.id)}
            />
          ))}
        </ul>
      )}
    </Card>
  );
}

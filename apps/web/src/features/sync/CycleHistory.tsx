import { Alert, Modal, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { formatBytes, type SyncCycle } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { CycleStatusIcon, cycleStatusLabel } from './CycleStatusIcon.tsx';
import { useSyncCycles } from './sync-api.ts';
import { formatSyncDate, objectCount, syncTexts } from './sync-texts.ts';

const MODAL_WIDTH = 960;

const APPROVAL_LABEL: Record<NonNullable<SyncCycle['approval']>, string> = {
  waiting: 'Waiting',
  approved: 'Approved',
  rejected: 'Rejected',
};

const columns: TableColumnsType<SyncCycle> = [
  {
    title: 'Started',
    key: 'startedAt',
    render: (_, cycle) => (
      <>
        <time dateTime={cycle.startedAt}>{formatSyncDate(cycle.startedAt)}</time>
        {cycle.dryRun ? <Tag style={{ marginLeft: 8 }}>{syncTexts.dryRunTitle}</Tag> : null}
      </>
    ),
  },
  {
    title: 'Status',
    key: 'status',
    render: (_, cycle) => (
      <>
        <CycleStatusIcon status={cycle.status} error={cycle.error} /> {cycleStatusLabel(cycle.status)}
      </>
    ),
  },
  {
    title: 'Copied',
    key: 'copied',
    render: (_, cycle) => `${objectCount(cycle.copyCount)} (${formatBytes(cycle.copyBytes)})`,
  },
  {
    title: 'Deleted',
    key: 'deleted',
    render: (_, cycle) =>
      cycle.deleteCount === 0
        ? '—'
        : `${cycle.deletedCount.toLocaleString('en-US')} of ${objectCount(cycle.deleteCount)} (${formatBytes(
            cycle.deleteBytes,
          )})`,
  },
  {
    title: 'Approval',
    key: 'approval',
    render: (_, cycle) => (cycle.approval ? APPROVAL_LABEL[cycle.approval] : '—'),
  },
  {
    title: 'Error',
    key: 'error',
    render: (_, cycle) =>
      cycle.error ? <Typography.Text type="danger">{cycle.error}</Typography.Text> : '—',
  },
];

/** A job's cycles, newest first (GET /sync/cycles?id), kept current by the `sync.cycle` messages. */
function CycleHistory({ syncJobId }: { syncJobId: string }) {
  const cycles = useSyncCycles(syncJobId);
  return (
    <>
      {cycles.isError ? <Alert type="error" showIcon title={describeError(cycles.error)} /> : null}
      <Table<SyncCycle>
        aria-label={syncTexts.cycleHistory}
        rowKey="id"
        size="small"
        loading={cycles.isPending}
        columns={columns}
        dataSource={cycles.data ?? []}
        pagination={false}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: syncTexts.noCycles }}
      />
    </>
  );
}

export function CycleHistoryModal({
  jobName,
  syncJobId,
  onClose,
}: {
  jobName: string;
  syncJobId: string;
  onClose(): void;
}) {
  return (
    <Modal
      open
      title={`${syncTexts.cycleHistory}: ${jobName}`}
      width={MODAL_WIDTH}
      onCancel={onClose}
      destroyOnHidden
      footer={null}
    >
      <CycleHistory syncJobId={syncJobId} />
    </Modal>
  );
}

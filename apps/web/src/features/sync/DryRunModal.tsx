import { Alert, Descriptions, List, Modal, Space, Spin, Typography } from 'antd';
import { SYNC_CYCLE_STATUS, SYNC_DEFAULT_ERROR, formatBytes, type SyncCycle } from '@cumulo/contract';
import { useSyncCycles } from './sync-api.ts';
import { objectCount, syncTexts } from './sync-texts.ts';

const MODAL_WIDTH = 720;
const SAMPLE_HEIGHT = 200;

type SampleKeys = NonNullable<SyncCycle['sample']>['copy'];

interface DryRunModalProps {
  jobName: string;
  /** The dry-run cycle POST /sync/dry_run started. */
  started: SyncCycle;
  onClose(): void;
}

function SampleList({ title, keys, total }: { title: string; keys: SampleKeys; total: number }) {
  if (total === 0) return null;
  return (
    <section aria-label={title}>
      <Typography.Text strong>{title}</Typography.Text>
      {keys.length < total ? (
        <Typography.Text type="secondary">{` (the first ${keys.length} of ${total})`}</Typography.Text>
      ) : null}
      <List
        size="small"
        bordered
        style={{ maxHeight: SAMPLE_HEIGHT, overflow: 'auto', marginTop: 4 }}
        dataSource={keys}
        renderItem={(entry) => (
          <List.Item>
            <Typography.Text ellipsis style={{ maxWidth: '75%' }}>
              {entry.key}
            </Typography.Text>
            <Typography.Text type="secondary">{formatBytes(entry.size)}</Typography.Text>
          </List.Item>
        )}
      />
    </section>
  );
}

/**
 * What the next cycle would do: the dry run's cycle is followed through the `sync.cycle` messages and the job's
 * cycles until it finishes, then its counts and the sample keys of each list are shown.
 */
export function DryRunModal({ jobName, started, onClose }: DryRunModalProps) {
  const cycles = useSyncCycles(started.syncJobId, { pollWhileRunning: true });
  const cycle = cycles.data?.find((candidate) => candidate.id === started.id) ?? started;
  const finished = cycle.phase === 'finished';
  const faulted = cycle.status === SYNC_CYCLE_STATUS.faulted;

  return (
    <Modal
      open
      title={`${syncTexts.dryRunTitle}: ${jobName}`}
      width={MODAL_WIDTH}
      onCancel={onClose}
      destroyOnHidden
      footer={null}
    >
      {!finished ? (
        <Space>
          <Spin size="small" />
          <Typography.Text>{syncTexts.dryRunWaiting}</Typography.Text>
        </Space>
      ) : faulted ? (
        <Alert type="error" showIcon title={cycle.error || SYNC_DEFAULT_ERROR} />
      ) : (
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          <Descriptions
            size="small"
            column={1}
            bordered
            items={[
              {
                key: 'copy',
                label: syncTexts.wouldCopy,
                children: `${objectCount(cycle.copyCount)} (${formatBytes(cycle.copyBytes)})`,
              },
              {
                key: 'delete',
                label: syncTexts.wouldDelete,
                children: `${objectCount(cycle.deleteCount)} (${formatBytes(cycle.deleteBytes)})`,
              },
              { key: 'unchanged', label: syncTexts.unchanged, children: objectCount(cycle.unchangedCount) },
            ]}
          />
          <SampleList title={syncTexts.wouldCopy} keys={cycle.sample?.copy ?? []} total={cycle.copyCount} />
          <SampleList
            title={syncTexts.wouldDelete}
            keys={cycle.sample?.delete ?? []}
            total={cycle.deleteCount}
          />
        </Space>
      )}
    </Modal>
  );
}

import { useState, type ReactNode } from 'react';
import { Alert, Button, Card, Collapse, List, Progress, Space, Tag, Typography } from 'antd';
import { authzMessages, formatBytes, uploadMessages } from '@cumulo/contract';
import { formatSpeed } from '../transfers/transfer-stats.ts';
import type {
  UploadDirectoryView,
  UploadDoneView,
  UploadEngine,
  UploadFileView,
  UploadSnapshot,
} from './upload-engine.ts';
import { useUploadSnapshot } from './useUploadEngine.ts';

interface UploadListProps {
  snapshot: UploadSnapshot;
  onCancel(id: string): void;
  onCancelDirectory(id: string): void;
  /** Absent when the member may not change a bucket's configuration (`bucket.configure`). */
  onApplyCors?: (file: UploadFileView) => void;
  onDismiss(id: string): void;
  onRetryFailed(): void;
  /** The file whose Apply call is under way. */
  applyingId: string | null;
}

/** "1:05" or "1:02:05". */
function formatEta(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

/** Speeds as /mboard shows them (bits per second); whole bytes so no raw float ever reaches the page. */
const speedText = (bytesPerSecond: number) => formatSpeed(Math.round(bytesPerSecond));

/** Spec 001 §4: "uploading..." while the percent is between 0 and 100. */
function statusText(file: UploadFileView): string {
  if (file.status === 'exception') return file.error ?? uploadMessages.failed;
  if (file.status === 'queued') return 'queued';
  if (file.percent > 0 && file.percent < 100) return 'uploading...';
  return '';
}

const DIRECTORY_STATUS_TEXT: Record<UploadDirectoryView['status'], string> = {
  2: 'uploading...',
  3: 'done',
  4: 'stopped',
};

/** Rows of the running list: the engine keeps at most ~26 files sending, these are the ones shown. */
export const RUNNING_ROWS_MAX = 30;
/** The done and failed lists draw only the rows in view (plus a few), whatever their length. */
const ROW_HEIGHT = 40;
const WINDOW_HEIGHT = 320;
const OVERSCAN = 4;

/** A list of fixed-height rows that draws only those in its scrolled window: 2 000 files stay a few rows. */
function WindowedList<T>({
  items,
  label,
  rowKey,
  renderRow,
}: {
  items: readonly T[];
  label: string;
  rowKey(item: T): string;
  renderRow(item: T): ReactNode;
}) {
  const [scrollTop, setScrollTop] = useState(0);
  const height = Math.min(WINDOW_HEIGHT, items.length * ROW_HEIGHT);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  return (
    <div
      role="list"
      aria-label={label}
      style={{ height, overflowY: 'auto', position: 'relative' }}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <div style={{ height: items.length * ROW_HEIGHT, position: 'relative' }}>
        {items.slice(first, last).map((item, i) => (
          <div
            key={rowKey(item)}
            style={{
              position: 'absolute',
              top: (first + i) * ROW_HEIGHT,
              height: ROW_HEIGHT,
              left: 0,
              right: 0,
              display: 'flex',
              alignItems: 'center',
              gap: 8,
              borderBottom: '1px solid #f0f0f0',
              padding: '0 8px',
            }}
          >
            {renderRow(item)}
          </div>
        ))}
      </div>
    </div>
  );
}

function RunningRow({ file, onCancel }: { file: UploadFileView; onCancel(id: string): void }) {
  return (
    <List.Item
      aria-label={`Upload of ${file.name}`}
      actions={[
        <Button key="cancel" size="small" danger onClick={() => onCancel(file.id)}>
          Cancel
        </Button>,
      ]}
    >
      <Space orientation="vertical" size={2} style={{ width: '100%' }}>
        <Space wrap>
          <Typography.Text strong ellipsis={{ tooltip: file.name }}>
            {file.name}
          </Typography.Text>
          <Typography.Text type="secondary">{formatBytes(file.size)}</Typography.Text>
          {file.resumed && <Tag color="blue">Resumed</Tag>}
          <Typography.Text type="secondary" aria-label="Status">
            {statusText(file)}
          </Typography.Text>
        </Space>
        <Progress percent={file.percent} status="active" aria-label={`Progress of ${file.name}`} />
        {file.status === 'uploading' && file.speed > 0 && (
          <Space size="large">
            <Typography.Text aria-label="Speed">{speedText(file.speed)}</Typography.Text>
            <Typography.Text aria-label="Time left">
              {file.eta === null ? 'ETA —' : `ETA ${formatEta(file.eta)}`}
            </Typography.Text>
          </Space>
        )}
        {file.warning && file.status === 'uploading' && (
          <Typography.Text type="warning">{file.warning}</Typography.Text>
        )}
      </Space>
    </List.Item>
  );
}

function FailedRow({ file, onDismiss }: { file: UploadFileView; onDismiss(id: string): void }) {
  return (
    <div role="listitem" aria-label={`Upload of ${file.name}`} style={rowStyle}>
      <Typography.Text strong ellipsis={{ tooltip: file.name }} style={{ maxWidth: '40%' }}>
        {file.name}
      </Typography.Text>
      <Typography.Text type="danger" ellipsis={{ tooltip: statusText(file) }} style={{ flex: 1 }}>
        {statusText(file)}
      </Typography.Text>
      <Button size="small" onClick={() => onDismiss(file.id)}>
        Dismiss
      </Button>
    </div>
  );
}

function DoneRow({ file }: { file: UploadDoneView }) {
  return (
    <div role="listitem" aria-label={`Uploaded ${file.name}`} style={rowStyle}>
      <Typography.Text ellipsis={{ tooltip: file.name }} style={{ flex: 1 }}>
        {file.name}
      </Typography.Text>
      <Typography.Text type="secondary">{formatBytes(file.size)}</Typography.Text>
    </div>
  );
}

const rowStyle = { display: 'flex', alignItems: 'center', gap: 8, width: '100%' } as const;

/** Failed files stay open when there are a few (a cancelled file shows at once); many start collapsed. */
const FAILED_OPEN_MAX = 5;

/**
 * The uploads under way (issue 21): one summary for the run (files done / total, bytes, speed, time left), the
 * files sending now, and the done and failed ones in collapsed lists drawn a window at a time, so a folder of
 * thousands keeps the page short. The bucket's CORS refusal is explained once, with Apply.
 */
export function UploadList({
  snapshot,
  onCancel,
  onCancelDirectory,
  onApplyCors,
  onDismiss,
  onRetryFailed,
  applyingId,
}: UploadListProps) {
  const { summary } = snapshot;
  // The member's own opening or closing wins; until then a few failures show open, many collapsed.
  const [opened, setOpened] = useState<{ failed?: boolean; done?: boolean }>({});
  if (snapshot.files.length === 0 && snapshot.directories.length === 0 && snapshot.done.length === 0)
    return null;
  const running = snapshot.files.filter(
    // One-PUT files are done in moments: counted below, not drawn. A large file opening its session shows 1 %.
    (file) =>
      !file.batched && (file.status === 'uploading' || (file.status === 'started' && file.percent >= 1)),
  );
  const failed = snapshot.files.filter((file) => file.status === 'exception');
  const waiting = snapshot.files.length - running.length - failed.length;
  const cors = failed.find((file) => file.corsSuspected);
  const percent = summary.bytesTotal > 0 ? Math.floor((summary.bytesDone / summary.bytesTotal) * 100) : 0;
  const active = running.length + waiting > 0;
  const openKeys = [
    ...((opened.failed ?? failed.length <= FAILED_OPEN_MAX) ? ['failed'] : []),
    ...(opened.done ? ['done'] : []),
  ];

  return (
    <Card title="Uploads">
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <div role="status" aria-label="Upload summary">
          <Space wrap size="large">
            <Typography.Text strong aria-label="Files done">
              {`${summary.done} of ${summary.total} files`}
            </Typography.Text>
            <Typography.Text aria-label="Bytes done">
              {`${formatBytes(summary.bytesDone)} of ${formatBytes(summary.bytesTotal)}`}
            </Typography.Text>
            {active && (
              <>
                <Typography.Text aria-label="Total speed">{speedText(summary.speed)}</Typography.Text>
                <Typography.Text aria-label="Total time left">
                  {summary.eta === null ? 'ETA —' : `ETA ${formatEta(summary.eta)}`}
                </Typography.Text>
              </>
            )}
            {summary.failed > 0 && (
              <Typography.Text type="danger">{`${summary.failed} failed`}</Typography.Text>
            )}
            {summary.hiddenSkipped > 0 && (
              <Typography.Text type="secondary">
                {uploadMessages.hiddenSkipped(summary.hiddenSkipped)}
              </Typography.Text>
            )}
          </Space>
          <Progress
            percent={percent}
            status={active ? 'active' : summary.failed > 0 ? 'exception' : 'success'}
            aria-label="Progress of all uploads"
          />
        </div>
        {cors && (
          <Alert
            type="warning"
            showIcon
            title={uploadMessages.network}
            description={onApplyCors ? uploadMessages.corsApply : authzMessages.bucketConfig}
            action={
              onApplyCors && (
                <Button
                  size="small"
                  type="primary"
                  loading={applyingId === cors.id}
                  onClick={() => onApplyCors(cors)}
                >
                  Apply
                </Button>
              )
            }
          />
        )}
        {snapshot.directories.length > 0 && (
          <List
            size="small"
            aria-label="Folder uploads"
            dataSource={snapshot.directories}
            renderItem={(directory) => (
              <List.Item
                aria-label={`Upload of folder ${directory.name}`}
                actions={
                  directory.status === 2
                    ? [
                        <Button
                          key="stop"
                          size="small"
                          danger
                          onClick={() => onCancelDirectory(directory.id)}
                        >
                          Stop
                        </Button>,
                      ]
                    : []
                }
              >
                <Space wrap>
                  <Typography.Text strong>{directory.name}/</Typography.Text>
                  <Typography.Text type="secondary">
                    {`${directory.completedCount} of ${directory.fileCount} files · ${formatBytes(directory.size)}`}
                  </Typography.Text>
                  <Tag>{DIRECTORY_STATUS_TEXT[directory.status]}</Tag>
                </Space>
              </List.Item>
            )}
          />
        )}
        {running.length > 0 && (
          <List
            size="small"
            aria-label="File uploads"
            dataSource={running.slice(0, RUNNING_ROWS_MAX)}
            rowKey={(file) => file.id}
            renderItem={(file) => <RunningRow file={file} onCancel={onCancel} />}
            footer={
              running.length > RUNNING_ROWS_MAX
                ? `and ${running.length - RUNNING_ROWS_MAX} more sending`
                : undefined
            }
          />
        )}
        {waiting > 0 && (
          <Typography.Text type="secondary">{`${waiting} files queued or sending`}</Typography.Text>
        )}
        {(failed.length > 0 || snapshot.done.length > 0) && (
          <Collapse
            size="small"
            activeKey={openKeys}
            onChange={(keys) => {
              const list = Array.isArray(keys) ? keys : [keys];
              setOpened({ failed: list.includes('failed'), done: list.includes('done') });
            }}
            items={[
              ...(failed.length > 0
                ? [
                    {
                      key: 'failed',
                      label: `Failed (${failed.length})`,
                      extra: (
                        <Button
                          size="small"
                          onClick={(event) => {
                            event.stopPropagation();
                            onRetryFailed();
                          }}
                        >
                          Retry failed
                        </Button>
                      ),
                      children: (
                        <WindowedList
                          items={failed}
                          label="Failed uploads"
                          rowKey={(file) => file.id}
                          renderRow={(file) => <FailedRow file={file} onDismiss={onDismiss} />}
                        />
                      ),
                    },
                  ]
                : []),
              ...(snapshot.done.length > 0
                ? [
                    {
                      key: 'done',
                      label: `Done (${snapshot.done.length})`,
                      children: (
                        <WindowedList
                          items={snapshot.done}
                          label="Done uploads"
                          rowKey={(file) => file.id}
                          renderRow={(file) => <DoneRow file={file} />}
                        />
                      ),
                    },
                  ]
                : []),
            ]}
          />
        )}
      </Space>
    </Card>
  );
}

/** The list of `engine`'s uploads, re-rendered on its snapshots alone (not the page around it). */
export function LiveUploadList({
  engine,
  ...props
}: Omit<UploadListProps, 'snapshot'> & { engine: UploadEngine }) {
  return <UploadList snapshot={useUploadSnapshot(engine)} {...props} />;
}

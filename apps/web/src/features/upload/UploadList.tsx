import { Alert, Button, Card, List, Progress, Space, Tag, Typography } from 'antd';
import { authzMessages, formatBytes, uploadMessages } from '@cumulo/contract';
import type { UploadDirectoryView, UploadFileView, UploadSnapshot } from './upload-engine.ts';

interface UploadListProps {
  snapshot: UploadSnapshot;
  onCancel(id: string): void;
  onCancelDirectory(id: string): void;
  /** Absent when the member may not change a bucket's configuration (`bucket.configure`). */
  onApplyCors?: (file: UploadFileView) => void;
  onDismiss(id: string): void;
  /** The file whose Apply call is under way. */
  applyingId: string | null;
}

/** "1:05" or "1:02:05". */
export function formatEta(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

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

function FileRow({
  file,
  onCancel,
  onApplyCors,
  onDismiss,
  applyingId,
}: Omit<UploadListProps, 'snapshot' | 'onCancelDirectory'> & { file: UploadFileView }) {
  const running = file.status !== 'exception';
  return (
    <List.Item
      aria-label={`Upload of ${file.name}`}
      actions={[
        running ? (
          <Button key="cancel" size="small" danger onClick={() => onCancel(file.id)}>
            Cancel
          </Button>
        ) : (
          <Button key="dismiss" size="small" onClick={() => onDismiss(file.id)}>
            Dismiss
          </Button>
        ),
      ]}
    >
      <Space orientation="vertical" size={2} style={{ width: '100%' }}>
        <Space wrap>
          <Typography.Text strong ellipsis={{ tooltip: file.name }}>
            {file.name}
          </Typography.Text>
          <Typography.Text type="secondary">{formatBytes(file.size)}</Typography.Text>
          {file.resumed && <Tag color="blue">Resumed</Tag>}
          <Typography.Text type={file.status === 'exception' ? 'danger' : 'secondary'} aria-label="Status">
            {statusText(file)}
          </Typography.Text>
        </Space>
        <Progress
          percent={file.percent}
          status={
            file.status === 'exception' ? 'exception' : file.status === 'complete' ? 'success' : 'active'
          }
          aria-label={`Progress of ${file.name}`}
        />
        {file.status === 'uploading' && (
          <Space size="large">
            <Typography.Text aria-label="Speed">{`${formatBytes(file.speed)}/s`}</Typography.Text>
            <Typography.Text aria-label="Time left">
              {file.eta === null ? 'ETA —' : `ETA ${formatEta(file.eta)}`}
            </Typography.Text>
          </Space>
        )}
        {file.warning && file.status === 'uploading' && (
          <Typography.Text type="warning">{file.warning}</Typography.Text>
        )}
        {file.corsSuspected && file.status === 'exception' && (
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
                  loading={applyingId === file.id}
                  onClick={() => onApplyCors(file)}
                >
                  Apply
                </Button>
              )
            }
          />
        )}
      </Space>
    </List.Item>
  );
}

/** The uploads under way: per file status, percent, speed, ETA and cancel; per folder its status. */
export function UploadList({ snapshot, onCancelDirectory, ...rowProps }: UploadListProps) {
  if (snapshot.files.length === 0 && snapshot.directories.length === 0) return null;
  return (
    <Card title="Uploads">
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
                      <Button key="stop" size="small" danger onClick={() => onCancelDirectory(directory.id)}>
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
      <List
        size="small"
        aria-label="File uploads"
        dataSource={snapshot.files}
        rowKey={(file) => file.id}
        renderItem={(file) => <FileRow file={file} {...rowProps} />}
      />
    </Card>
  );
}

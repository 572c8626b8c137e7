import { useRef, useState, type DragEvent } from 'react';
import { Button, Card, Empty, List, Space, Typography } from 'antd';
import { FileAddOutlined, FolderAddOutlined, InboxOutlined } from '@ant-design/icons';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { uploadMessages } from '@cumulo/contract';
import { filesFromDrop, filesFromInput, type ChosenFiles, type LocalFile } from './local-files.ts';

interface LocalUploadPaneProps {
  title: string;
  chosen: readonly LocalFile[];
  /** Hidden names left out of the choice so far. */
  hiddenSkipped: number;
  onChoose(chosen: ChosenFiles): void;
  onClear(): void;
  onUpload(): void;
}

const SHOWN_NAMES = 20;

/** Spec 001 §2 "Local upload area": pick files, pick folders or drop them; Upload once files are chosen. */
export function LocalUploadPane({
  title,
  chosen,
  hiddenSkipped,
  onChoose,
  onClear,
  onUpload,
}: LocalUploadPaneProps) {
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const take = (input: HTMLInputElement | null) => {
    if (!input?.files) return;
    onChoose(filesFromInput(input.files));
    // The same file may be picked again later (e.g. to resume after a reload).
    input.value = '';
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    void filesFromDrop(event.dataTransfer).then(onChoose);
  };

  return (
    <Card title={title} style={{ height: '100%' }}>
      <input
        ref={filesInput}
        type="file"
        multiple
        hidden
        aria-label="Files to upload"
        onChange={(e) => take(e.currentTarget)}
      />
      <input
        ref={folderInput}
        type="file"
        hidden
        aria-label="Folder to upload"
        // React knows no webkitdirectory prop; the attribute still turns the picker into a folder picker.
        {...{ webkitdirectory: '', directory: '' }}
        onChange={(e) => take(e.currentTarget)}
      />
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <div
          role="region"
          aria-label="Drop files or folders here"
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          style={{
            border: `1px dashed ${dragging ? '#1668dc' : '#d9d9d9'}`,
            borderRadius: 8,
            padding: 24,
            textAlign: 'center',
            background: dragging ? '#f0f7ff' : '#fafafa',
          }}
        >
          <InboxOutlined style={{ fontSize: 32, color: '#1668dc' }} />
          <Typography.Paragraph style={{ margin: '8px 0' }}>
            Drop files or folders here, or
          </Typography.Paragraph>
          <Space wrap>
            <Button icon={<FileAddOutlined />} onClick={() => filesInput.current?.click()}>
              Pick files
            </Button>
            <Button icon={<FolderAddOutlined />} onClick={() => folderInput.current?.click()}>
              Pick a folder
            </Button>
          </Space>
        </div>
        {chosen.length === 0 ? (
          <Empty description="No files chosen" image={Empty.PRESENTED_IMAGE_SIMPLE} />
        ) : (
          <>
            <List
              size="small"
              aria-label="Chosen files"
              dataSource={chosen.slice(0, SHOWN_NAMES)}
              renderItem={(local) => (
                <List.Item extra={<ByteSize bytes={local.file.size} />}>
                  <Typography.Text ellipsis={{ tooltip: local.relativePath }}>
                    {local.relativePath}
                  </Typography.Text>
                </List.Item>
              )}
              footer={chosen.length > SHOWN_NAMES ? `and ${chosen.length - SHOWN_NAMES} more` : undefined}
            />
            {hiddenSkipped > 0 && (
              <Typography.Text type="secondary">
                {uploadMessages.hiddenSkipped(hiddenSkipped)}
              </Typography.Text>
            )}
            <Space>
              <Button type="primary" onClick={onUpload}>
                Upload
              </Button>
              <Button onClick={onClear}>Clear</Button>
            </Space>
          </>
        )}
      </Space>
    </Card>
  );
}

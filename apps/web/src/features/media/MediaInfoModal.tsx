import type { ReactNode } from 'react';
import {
  Alert,
  App,
  Button,
  Descriptions,
  Empty,
  Flex,
  Form,
  Input,
  Modal,
  Spin,
  Table,
  Tabs,
  Tooltip,
  Typography,
} from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { mediaMessages, type MediaInfo, type MetadataEntry } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { useAddMetadata, useDeleteMetadata, useMediaInfo, type MediaTarget } from './media-api.ts';

type Section = MediaInfo['general'];

/** What each field of the server's sections reads as; fields not named here show their own name. */
const LABELS: Record<string, string> = {
  format_name: 'Format',
  format_long_name: 'Format name',
  duration: 'Duration',
  size: 'Size',
  bit_rate: 'Bit rate',
  stream_count: 'Streams',
  codec: 'Codec',
  codec_long_name: 'Codec name',
  profile: 'Profile',
  width: 'Width',
  height: 'Height',
  frame_rate: 'Frame rate',
  pixel_format: 'Pixel format',
  channels: 'Channels',
  channel_layout: 'Channel layout',
  sample_rate: 'Sample rate',
  content_type: 'Content type',
  last_modified: 'Last modified',
  etag: 'ETag',
  cache_control: 'Cache-Control',
  content_disposition: 'Content-Disposition',
  content_encoding: 'Content-Encoding',
  content_language: 'Content-Language',
};

function valueOf(field: string, value: string | number): ReactNode {
  if (typeof value !== 'number') return value;
  switch (field) {
    case 'duration':
      return `${value.toFixed(2)} s`;
    case 'size':
      return <ByteSize bytes={value} />;
    case 'bit_rate':
      return `${Math.round(value / 1000).toLocaleString('en-US')} kb/s`;
    case 'sample_rate':
      return `${value.toLocaleString('en-US')} Hz`;
    case 'frame_rate':
      return `${value} fps`;
    default:
      return value.toLocaleString('en-US');
  }
}

/** One section as a two-column table; `label` names it where a tab holds several (one per stream). */
function SectionView({ section, label }: { section: Section; label?: string }) {
  return (
    <section aria-label={label}>
      <Descriptions
        bordered
        size="small"
        column={1}
        items={Object.entries(section).map(([field, value]) => ({
          key: field,
          label: LABELS[field] ?? field,
          children: valueOf(field, value),
        }))}
      />
    </section>
  );
}

function Streams({ streams, kind }: { streams: Section[]; kind: 'video' | 'audio' }) {
  if (streams.length === 0) return <Empty description={`No ${kind} stream`} />;
  return (
    <Flex vertical gap="middle">
      {streams.map((stream, index) => (
        <div key={index}>
          {streams.length > 1 ? <Typography.Title level={5}>Stream {index + 1}</Typography.Title> : null}
          <SectionView
            section={stream}
            label={`${kind === 'video' ? 'Video' : 'Audio'} stream ${index + 1}`}
          />
        </div>
      ))}
    </Flex>
  );
}

/** The Custom metadata of the object (spec 001 §3 "Metadata entry"): its list, add a name and value, delete. */
function CustomMetadata({ target, entries }: { target: MediaTarget; entries: MetadataEntry[] }) {
  const { message } = App.useApp();
  const [form] = Form.useForm<{ name: string; value: string }>();
  const add = useAddMetadata(target);
  const remove = useDeleteMetadata(target);

  const onAdd = async (entry: { name: string; value?: string }) => {
    try {
      await add.mutateAsync({ name: entry.name, value: entry.value ?? '' });
      form.resetFields();
    } catch (error) {
      void message.error(describeError(error));
    }
  };
  const onDelete = async (entry: MetadataEntry) => {
    try {
      await remove.mutateAsync(entry.id);
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  return (
    <Flex vertical gap="middle">
      <Table<MetadataEntry>
        size="small"
        rowKey="id"
        pagination={false}
        dataSource={entries}
        aria-label="Custom metadata"
        locale={{ emptyText: 'No custom metadata yet' }}
        columns={[
          { title: 'Name', dataIndex: 'name' },
          { title: 'Value', dataIndex: 'value' },
          {
            title: '',
            key: 'delete',
            width: 48,
            render: (_, entry) => (
              <Tooltip title="Delete">
                <Button
                  type="text"
                  size="small"
                  danger
                  aria-label={`Delete metadata ${entry.name}`}
                  icon={<DeleteOutlined />}
                  loading={remove.isPending && remove.variables === entry.id}
                  onClick={() => void onDelete(entry)}
                />
              </Tooltip>
            ),
          },
        ]}
      />
      <Form form={form} layout="inline" onFinish={(values) => void onAdd(values)}>
        <Form.Item
          name="name"
          rules={[{ required: true, whitespace: true, message: mediaMessages.metadataNameRequired }]}
        >
          <Input aria-label="Metadata name" placeholder="Name" maxLength={100} />
        </Form.Item>
        <Form.Item name="value">
          <Input aria-label="Metadata value" placeholder="Value" maxLength={1000} />
        </Form.Item>
        <Form.Item>
          <Button htmlType="submit" icon={<PlusOutlined />} loading={add.isPending}>
            Add
          </Button>
        </Form.Item>
      </Form>
    </Flex>
  );
}

export interface MediaInfoModalProps {
  /** The file to show; null keeps the modal closed. */
  target: MediaTarget | null;
  onClose(): void;
}

/**
 * The media-info modal (spec 001 §2 Dialogs; §3 "Metadata entry"): what ffprobe found in tabs General, Video and
 * Audio, the store's own metadata, and the Custom metadata members add. A file that is not media shows the
 * server's message instead of empty tabs.
 */
export function MediaInfoModal({ target, onClose }: MediaInfoModalProps) {
  const info = useMediaInfo(target);

  let body: ReactNode;
  if (!target) body = null;
  else if (info.isPending) {
    body = (
      <Flex gap="small" align="center" justify="center" style={{ padding: 32 }}>
        <Spin />
        <Typography.Text type="secondary">Reading the file…</Typography.Text>
      </Flex>
    );
  } else if (info.isError) {
    body = <Alert type="warning" showIcon title={describeError(info.error)} />;
  } else {
    const { data } = info;
    body = (
      <Tabs
        items={[
          {
            key: 'general',
            label: 'General',
            children: <SectionView section={data.general} />,
          },
          { key: 'video', label: 'Video', children: <Streams streams={data.video} kind="video" /> },
          { key: 'audio', label: 'Audio', children: <Streams streams={data.audio} kind="audio" /> },
          {
            key: 's3',
            label: 'S3 metadata',
            children: <SectionView section={data.s3_metadata} />,
          },
          {
            key: 'metadata',
            label: 'Metadata',
            children: <CustomMetadata target={target} entries={data.metadata} />,
          },
        ]}
      />
    );
  }

  return (
    <Modal
      title={target ? `Media info: ${target.name}` : 'Media info'}
      open={target !== null}
      onCancel={onClose}
      footer={null}
      width={680}
      destroyOnHidden
    >
      {body}
    </Modal>
  );
}

import { useState } from 'react';
import { App, Button, Descriptions, Empty, Flex, Space, Tabs, Typography } from 'antd';
import { CopyOutlined, DownloadOutlined, PlayCircleOutlined, ShareAltOutlined } from '@ant-design/icons';
import { formatBytes, mediaSearchMessages, objectMessages, type MediaSearchResult } from '@cumulo/contract';
import { ApiError } from '../../api/client.ts';
import { fetchDownloadLinks } from '../browser/browser-api.ts';
import { copyText, startDownload } from '../browser/file-links.ts';
import { ShareDialog, type ShareDialogFile } from '../sharing/ShareDialog.tsx';
import { formatDate } from '../../ui/DateText.tsx';
import { isVideo, usePlayVideo } from './play-video.ts';

/** A metadata value as text: numbers and words as they are, anything else as JSON. */
const shown = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);

const sectionOf = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function Entries({ entries, label }: { entries: Record<string, unknown>; label: string }) {
  const items = Object.entries(entries).map(([key, value]) => ({ key, label: key, children: shown(value) }));
  if (items.length === 0) return null;
  return (
    <section aria-label={label}>
      <Descriptions title={label} size="small" column={1} bordered items={items} />
    </section>
  );
}

const shareFileOf = (result: MediaSearchResult): ShareDialogFile => ({
  accountId: result.cloud_account_id,
  bucket: result.bucket_name,
  path: result.key,
  name: result.name,
  size: result.metadata.size,
});

/** Signed links of files of any accounts and buckets: one GET /transfers/download_url per bucket. */
async function downloadLinks(files: MediaSearchResult[]) {
  const groups = new Map<string, MediaSearchResult[]>();
  for (const file of files) {
    const group = `${file.cloud_account_id}|${file.bucket_name}`;
    groups.set(group, [...(groups.get(group) ?? []), file]);
  }
  const links = await Promise.all(
    [...groups.values()].map((group) =>
      fetchDownloadLinks(
        group[0]?.cloud_account_id ?? '',
        group[0]?.bucket_name ?? '',
        group.map((file) => file.key),
      ),
    ),
  );
  return links.flat();
}

/**
 * The preview pane (spec 001 §2 "Media search"): nothing selected, one file (its actions and its General, Video and
 * Audio tabs) or several ("{n} files selected" with Download and Share).
 */
export function PreviewPane({ selected }: { selected: MediaSearchResult[] }) {
  const { message } = App.useApp();
  const [sharing, setSharing] = useState(false);

  const download = async () => {
    try {
      for (const link of await downloadLinks(selected)) startDownload(link.url, link.name);
    } catch (error) {
      void message.error(error instanceof ApiError ? error.message : objectMessages.linkFailed);
    }
  };

  const shareDialog = (
    <ShareDialog open={sharing} files={selected.map(shareFileOf)} onClose={() => setSharing(false)} />
  );

  if (selected.length === 0) {
    return (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={
          <Flex vertical>
            <Typography.Text strong>{mediaSearchMessages.noFileSelected}</Typography.Text>
            <Typography.Text type="secondary">{mediaSearchMessages.selectFile}</Typography.Text>
          </Flex>
        }
      />
    );
  }
  if (selected.length > 1) {
    return (
      <Flex vertical gap={12}>
        <Typography.Title level={5} style={{ margin: 0 }}>
          {mediaSearchMessages.filesSelected(selected.length)}
        </Typography.Title>
        <Space wrap>
          <Button icon={<DownloadOutlined />} onClick={() => void download()}>
            Download
          </Button>
          <Button icon={<ShareAltOutlined />} onClick={() => setSharing(true)}>
            Share
          </Button>
        </Space>
        {shareDialog}
      </Flex>
    );
  }
  const [file] = selected;
  if (!file) return null;
  return (
    <>
      <OneFile file={file} onDownload={() => void download()} onShare={() => setSharing(true)} />
      {shareDialog}
    </>
  );
}

function OneFile({
  file,
  onDownload,
  onShare,
}: {
  file: MediaSearchResult;
  onDownload(): void;
  onShare(): void;
}) {
  const { message } = App.useApp();
  const play = usePlayVideo();
  const info = sectionOf(file.metadata.media_info);
  const video = sectionOf(info.video);
  const audio = sectionOf(info.audio);

  const copyLink = async () => {
    let url: string;
    try {
      const [link] = await downloadLinks([file]);
      if (!link) throw new Error('no link');
      url = link.url;
    } catch {
      void message.error(objectMessages.linkFailed);
      return;
    }
    try {
      await copyText(url);
      void message.success(objectMessages.linkCopied);
    } catch {
      void message.error(objectMessages.linkFailed);
    }
  };

  const general = (
    <Flex vertical gap={12}>
      <section aria-label="General">
        <Descriptions
          size="small"
          column={1}
          bordered
          items={[
            { key: 'name', label: 'Name', children: file.name },
            { key: 'account', label: 'Cloud account', children: file.project_name },
            { key: 'bucket', label: 'Bucket name', children: file.bucket_name },
            { key: 'path', label: 'Path', children: file.path || '/' },
            { key: 'size', label: 'Size', children: formatBytes(file.metadata.size) },
            ...(file.metadata.content_type
              ? [{ key: 'type', label: 'Content type', children: file.metadata.content_type }]
              : []),
            ...(file.metadata.last_modified
              ? [
                  {
                    key: 'modified',
                    label: 'Last modified',
                    children: formatDate(file.metadata.last_modified),
                  },
                ]
              : []),
            ...Object.entries(sectionOf(info.general)).map(([key, value]) => ({
              key: `general.${key}`,
              label: key,
              children: shown(value),
            })),
          ]}
        />
      </section>
      <Entries label="Custom metadata" entries={file.metadata.custom} />
      <Entries label="User metadata" entries={file.metadata.user} />
    </Flex>
  );

  return (
    <Flex vertical gap={12}>
      <Typography.Title level={5} style={{ margin: 0, wordBreak: 'break-all' }}>
        {file.name}
      </Typography.Title>
      <Space wrap>
        <Button icon={<DownloadOutlined />} onClick={onDownload}>
          Download
        </Button>
        <Button icon={<ShareAltOutlined />} onClick={onShare}>
          Share
        </Button>
        <Button icon={<CopyOutlined />} onClick={() => void copyLink()}>
          Copy download link
        </Button>
        {isVideo(file.name, file.metadata.content_type) && (
          <Button
            icon={<PlayCircleOutlined />}
            onClick={() =>
              play({
                cloud_account_id: file.cloud_account_id,
                bucket_name: file.bucket_name,
                path: file.key,
                name: file.name,
              })
            }
          >
            Play video
          </Button>
        )}
      </Space>
      <Tabs
        items={[
          { key: 'general', label: 'General', children: general },
          {
            key: 'video',
            label: 'Video',
            children:
              Object.keys(video).length > 0 ? (
                <Entries label="Video" entries={video} />
              ) : (
                <Typography.Text type="secondary">{mediaSearchMessages.noVideo}</Typography.Text>
              ),
          },
          {
            key: 'audio',
            label: 'Audio',
            children:
              Object.keys(audio).length > 0 ? (
                <Entries label="Audio" entries={audio} />
              ) : (
                <Typography.Text type="secondary">{mediaSearchMessages.noAudio}</Typography.Text>
              ),
          },
        ]}
      />
    </Flex>
  );
}

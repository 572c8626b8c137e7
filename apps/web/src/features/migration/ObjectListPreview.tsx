import { Alert, Button, List, Space, Typography } from 'antd';
import { FileOutlined, FolderOutlined } from '@ant-design/icons';
import { FS_FILE_TYPE, displayName } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { useFolderContent } from '../browser/browser-api.ts';
import { migrationTexts } from './migration-texts.ts';

interface ObjectListPreviewProps {
  accountId: string;
  bucket: string;
  prefix: string;
}

/**
 * "List Objects" of /migration: the keys starting with the prefix ('gallery/thumb_01' lists
 * 'gallery/thumb_01a.jpg'; 'gallery/' the folder), as the bucket browser pages them, named from the prefix's folder.
 */
export function ObjectListPreview({ accountId, bucket, prefix }: ObjectListPreviewProps) {
  const listing = useFolderContent(accountId, bucket, prefix, true, 'prefix');
  const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
  const rows = listing.data?.pages.flatMap((page) => page.rows) ?? [];
  if (listing.isError) return <Alert type="error" showIcon title={describeError(listing.error)} />;
  return (
    <Space role="region" aria-label="Objects" orientation="vertical" size="small" style={{ width: '100%' }}>
      <List
        size="small"
        bordered
        loading={listing.isPending}
        header={
          <Typography.Text strong>
            {bucket}/{prefix}
          </Typography.Text>
        }
        locale={{ emptyText: migrationTexts.noObjects }}
        dataSource={rows}
        style={{ maxHeight: 360, overflowY: 'auto' }}
        renderItem={(row) => (
          <List.Item
            extra={row.type === FS_FILE_TYPE.file ? <ByteSize bytes={row.size} /> : null}
            title={row.key}
          >
            {row.type === FS_FILE_TYPE.folder ? <FolderOutlined /> : <FileOutlined />}{' '}
            {displayName(row.key.slice(folder.length) || row.name)}
          </List.Item>
        )}
      />
      {listing.hasNextPage ? (
        <Button loading={listing.isFetchingNextPage} onClick={() => void listing.fetchNextPage()}>
          Load more
        </Button>
      ) : null}
    </Space>
  );
}

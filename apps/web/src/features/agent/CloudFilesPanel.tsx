import { useState } from 'react';
import { Button, Card, Empty, Space } from 'antd';
import { CloudDownloadOutlined } from '@ant-design/icons';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { AccountBucketSelects } from '../migration/AccountBucketSelects.tsx';
import { PanelFileList } from '../migration/PanelFileList.tsx';
import type { PanelFile, PanelLocation, PanelOverlay } from '../migration/transfer-screen-state.ts';

// This panel starts no transfer by a drop (the agent's transfers go through Upload and Download), so nothing is
// ever shown as arriving or leaving.
const NO_OVERLAY: PanelOverlay = { added: [], removed: [] };

interface CloudFilesPanelProps {
  location: PanelLocation;
  checked: readonly PanelFile[];
  onLocationChange(location: PanelLocation): void;
  onCheck(files: PanelFile[]): void;
  /** Brings the checked files to the local panel's open folder. */
  onDownload(): void;
}

/**
 * Spec 001 §2 "Cloud File System panel" of the Transfer agent screen: an account and a bucket, then the open
 * folder's rows with checkboxes (the two-panel screen's list), and Download for the checked ones.
 */
export function CloudFilesPanel({
  location,
  checked,
  onLocationChange,
  onCheck,
  onDownload,
}: CloudFilesPanelProps) {
  const accounts = useCloudAccounts();
  const [order, setOrder] = useState<string[]>([]);
  const list = accounts.data ?? [];
  const { accountId, bucket, path } = location;

  return (
    <Card
      title="Cloud File System"
      extra={
        <Button
          aria-label="Download"
          icon={<CloudDownloadOutlined />}
          disabled={checked.length === 0}
          onClick={onDownload}
        >
          Download
        </Button>
      }
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <AccountBucketSelects
          accountLabel="Cloud Account"
          bucketLabel="Bucket"
          accounts={list}
          accountId={accountId}
          bucket={bucket}
          loading={accounts.isPending}
          onAccountChange={(id) => {
            const account = list.find((candidate) => candidate.id === id);
            setOrder([]);
            onLocationChange({ accountId: id, bucket: account?.storages[0]?.bucket_name ?? null, path: '' });
          }}
          onBucketChange={(name) => {
            setOrder([]);
            onLocationChange({ accountId, bucket: name, path: '' });
          }}
        />
        {accountId && bucket ? (
          <PanelFileList
            side="destination"
            label="Cloud files"
            accountId={accountId}
            bucket={bucket}
            path={path}
            selected={checked}
            order={order}
            overlay={NO_OVERLAY}
            onSelect={onCheck}
            onOpenFolder={(folder) => {
              setOrder([]);
              onLocationChange({ accountId, bucket, path: folder });
            }}
            onReorder={setOrder}
            onDropFromOther={() => undefined}
          />
        ) : (
          <Empty description="Select an account and a bucket" />
        )}
      </Space>
    </Card>
  );
}

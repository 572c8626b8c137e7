import { Button, Space, Table, Tag, Tooltip, Typography, type TableColumnsType } from 'antd';
import { BellOutlined, FolderOpenOutlined, SyncOutlined } from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { formatUsd } from '@cumulo/contract';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { DateText } from '../../ui/DateText.tsx';
import type { StorageView } from './accounts-api.ts';

const BUCKET_PAGE_SIZE = 10;

/** Size and count are unknown until the first inventory of the bucket has finished. */
function neverCounted(bucket: StorageView): boolean {
  return bucket.inventoried_at === null && bucket.inventory_status !== 'done';
}

function InventoryState({ bucket }: { bucket: StorageView }) {
  switch (bucket.inventory_status) {
    case 'pending':
      return (
        <Tag icon={<SyncOutlined spin aria-hidden />} color="default">
          Waiting to count
        </Tag>
      );
    case 'running':
      return (
        <Tag icon={<SyncOutlined spin aria-hidden />} color="processing">
          Counting
        </Tag>
      );
    case 'failed':
      return (
        <Tooltip title="The last count of this bucket failed. Use Refresh sizes on the account to try again.">
          <Tag color="error">Count failed</Tag>
        </Tooltip>
      );
    case 'done':
      return bucket.inventoried_at ? (
        <Typography.Text type="secondary">
          Counted <DateText value={bucket.inventoried_at} />
        </Typography.Text>
      ) : (
        <Tag color="success">Counted</Tag>
      );
    default:
      return <Tag>{bucket.inventory_status}</Tag>;
  }
}

interface BucketTableProps {
  accountId: string;
  accountName: string;
  buckets: StorageView[];
  hiddenBucketCount: number;
}

/** The expanded part of an account row: its buckets (spec 000 §2 "Active Cloud Providers list"). */
export function BucketTable({ accountId, accountName, buckets, hiddenBucketCount }: BucketTableProps) {
  const navigate = useNavigate();
  const columns: TableColumnsType<StorageView> = [
    { title: 'Name', dataIndex: 'name', key: 'name' },
    { title: 'Region', dataIndex: 'region', key: 'region', render: (region: string | null) => region ?? '—' },
    {
      title: 'Created',
      dataIndex: 'creationDate',
      key: 'created',
      render: (created: string | null) => (created ? <DateText value={created} /> : '—'),
    },
    {
      title: 'Size',
      key: 'size',
      align: 'right',
      render: (_, bucket) => (neverCounted(bucket) ? '—' : <ByteSize bytes={bucket.size} />),
    },
    {
      title: 'Objects',
      key: 'objects',
      align: 'right',
      render: (_, bucket) => (neverCounted(bucket) ? '—' : bucket.object_count.toLocaleString('en-US')),
    },
    {
      title: 'Est. cost/month',
      key: 'cost',
      align: 'right',
      render: (_, bucket) => (neverCounted(bucket) ? '—' : formatUsd(bucket.cost)),
    },
    { title: 'Inventory', key: 'inventory', render: (_, bucket) => <InventoryState bucket={bucket} /> },
    {
      title: 'Actions',
      key: 'actions',
      render: (_, bucket) => (
        <Space size={4}>
          <Button
            size="small"
            icon={<FolderOpenOutlined aria-hidden />}
            onClick={() =>
              navigate(
                `/browse?${new URLSearchParams({ account: accountId, bucket: bucket.bucket_name }).toString()}`,
              )
            }
          >
            Browse
          </Button>
          <Button
            size="small"
            icon={<BellOutlined aria-hidden />}
            onClick={() =>
              navigate(`/setAlert/${encodeURIComponent(accountId)}/${encodeURIComponent(bucket.bucket_name)}`)
            }
          >
            Set alert
          </Button>
        </Space>
      ),
    },
  ];
  return (
    <>
      <Table<StorageView>
        aria-label={`Buckets of ${accountName}`}
        size="small"
        rowKey="id"
        columns={columns}
        dataSource={buckets}
        pagination={buckets.length > BUCKET_PAGE_SIZE ? { pageSize: BUCKET_PAGE_SIZE } : false}
        locale={{ emptyText: 'This account has no buckets yet.' }}
      />
      {hiddenBucketCount > 0 && (
        <Typography.Paragraph type="secondary" style={{ margin: '8px 0 0' }}>
          {hiddenBucketCount === 1
            ? '1 bucket is hidden by the filters.'
            : `${hiddenBucketCount} buckets are hidden by the filters.`}{' '}
          Click the account again to collapse it and show all its buckets.
        </Typography.Paragraph>
      )}
    </>
  );
}

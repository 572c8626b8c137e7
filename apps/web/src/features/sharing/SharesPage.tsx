import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Popconfirm, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { LockOutlined } from '@ant-design/icons';
import { sharingMessages, type ShareListItem, type ShareStatus } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { DateText } from '../../ui/DateText.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { ChatWebhookCard } from './ChatWebhookCard.tsx';
import { revokeShare, useShares } from './sharing-api.ts';

const STATUS_COLORS: Record<ShareStatus, string> = { active: 'green', expired: 'default', revoked: 'red' };

/** /sharing — the organisation's share links, newest first, with revoke; Owners and Admins also set the chat channel. */
export function SharesPage() {
  useDocumentTitle('Shared Files');
  const [page, setPage] = useState(1);
  const shares = useShares(page);
  const profile = useProfile();
  const manager = profile.data !== undefined && profile.data.role.title !== 'User';
  const columns = useColumns(manager, profile.data?.id);

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Shared Files
      </Typography.Title>
      {shares.error ? (
        <Alert type="error" showIcon title={describeError(shares.error)} />
      ) : (
        <Table<ShareListItem>
          rowKey="id"
          loading={shares.isPending}
          dataSource={shares.data?.items ?? []}
          columns={columns}
          locale={{ emptyText: 'No shared links yet. Share files from a bucket to see them here.' }}
          pagination={{
            current: page,
            pageSize: shares.data?.page_size ?? 50,
            total: shares.data?.total ?? 0,
            onChange: setPage,
            hideOnSinglePage: true,
          }}
        />
      )}
      {manager && <ChatWebhookCard />}
    </Space>
  );
}

function useColumns(manager: boolean, userId: string | undefined): TableColumnsType<ShareListItem> {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: revokeShare,
    onSuccess: async (text) => {
      void message.success(text);
      await queryClient.invalidateQueries({ queryKey: queryKeys.shares });
    },
    onError: (error) => void message.error(describeError(error)),
  });

  return [
    {
      title: 'Files',
      key: 'files',
      render: (_, share) => (
        <Space orientation="vertical" size={0}>
          {share.files.map((file) => (
            <span key={`${file.bucket_name}/${file.name}`}>
              {file.name}{' '}
              <Typography.Text type="secondary">
                (<ByteSize bytes={file.size} />)
              </Typography.Text>
            </span>
          ))}
        </Space>
      ),
    },
    {
      title: 'Shared with',
      key: 'recipients',
      render: (_, share) =>
        share.channel === 'chat' ? `#${share.recipients.join(', #')}` : share.recipients.join(', '),
    },
    { title: 'Shared by', dataIndex: 'created_by', render: (name: string | null) => name ?? '—' },
    { title: 'Created', dataIndex: 'created_at', render: (at: string) => <DateText value={at} /> },
    { title: 'Expires', dataIndex: 'expires_at', render: (at: string) => <DateText value={at} /> },
    { title: 'Downloads', dataIndex: 'download_count', align: 'right' },
    {
      title: 'Status',
      key: 'status',
      render: (_, share) => (
        <Space size={4}>
          <Tag color={STATUS_COLORS[share.status]}>{share.status}</Tag>
          {share.has_password && <LockOutlined aria-label="Password protected" />}
        </Space>
      ),
    },
    {
      title: '',
      key: 'revoke',
      align: 'right',
      render: (_, share) =>
        share.status !== 'revoked' && (manager || share.created_by_id === userId) ? (
          <Popconfirm
            title={sharingMessages.revokeConfirm}
            okText="Revoke"
            okButtonProps={{ danger: true }}
            onConfirm={() => revoke.mutateAsync(share.id)}
          >
            <Button danger size="small" aria-label={`Revoke link of ${share.files[0]?.name ?? 'share'}`}>
              Revoke
            </Button>
          </Popconfirm>
        ) : null,
    },
  ];
}

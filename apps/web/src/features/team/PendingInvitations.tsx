import { Alert, App, Button, Card, Popconfirm, Space, Table, Tag } from 'antd';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { memberMessages, type PendingInvitation } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { DateText } from '../../ui/DateText.tsx';
import { cancelInvitation, fetchPendingInvitations, resendInvitation } from './team-api.ts';
import { ROLE_COLORS } from './UserCard.tsx';

/**
 * The invitations nobody accepted yet, under the user cards of /users (Owners and Admins): who, which role, who
 * invited them and until when the link works, with Resend (a new link) and Cancel.
 */
export function PendingInvitations() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const pending = useQuery({ queryKey: queryKeys.pendingInvitations, queryFn: fetchPendingInvitations });
  const act = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'resend' | 'cancel' }) =>
      action === 'resend' ? resendInvitation(id) : cancelInvitation(id),
    onSuccess: (text) => void message.success(text),
    onError: (error) => void message.error(describeError(error)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.pendingInvitations }),
  });
  if (pending.isError) return <Alert type="error" showIcon title={describeError(pending.error)} />;
  return (
    <Card title="Pending invitations" size="small">
      <Table<PendingInvitation>
        aria-label="Pending invitations"
        rowKey="id"
        size="small"
        loading={pending.isPending}
        pagination={false}
        dataSource={pending.data ?? []}
        locale={{ emptyText: memberMessages.noPendingInvites }}
        columns={[
          {
            title: 'Name',
            key: 'name',
            render: (_: unknown, row) => `${row.first_name} ${row.last_name}`,
          },
          { title: 'Email', dataIndex: 'email' },
          {
            title: 'Role',
            key: 'role',
            render: (_: unknown, row) => <Tag color={ROLE_COLORS[row.role.title]}>{row.role.title}</Tag>,
          },
          { title: 'Invited by', dataIndex: 'invited_by', render: (name: string | null) => name ?? '—' },
          {
            title: 'Link works until',
            key: 'expires',
            render: (_: unknown, row) =>
              row.expired ? <Tag color="red">Expired</Tag> : <DateText value={row.expires_at} />,
          },
          {
            title: '',
            key: 'actions',
            render: (_: unknown, row) => (
              <Space>
                <Button
                  size="small"
                  aria-label={`Resend the invitation of ${row.email}`}
                  onClick={() => act.mutate({ id: row.id, action: 'resend' })}
                >
                  Resend
                </Button>
                <Popconfirm
                  title={`Cancel the invitation of ${row.email}?`}
                  okText="Cancel invitation"
                  cancelText="Keep"
                  onConfirm={() => act.mutateAsync({ id: row.id, action: 'cancel' })}
                >
                  <Button size="small" danger aria-label={`Cancel the invitation of ${row.email}`}>
                    Cancel
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
    </Card>
  );
}

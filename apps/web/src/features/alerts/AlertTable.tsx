import { App, Button, Popconfirm, Table, Tag, type TableColumnsType } from 'antd';
import { DeleteOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { alertMessages, formatBytes, formatUsd, type AlertView } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { DateText } from '../../ui/DateText.tsx';
import { deleteAlert } from './alerts-api.ts';

const WHOLE_ACCOUNT = 'Whole account';

/** SIZE limits in 1024-based units, COST limits in USD with 5 decimals (spec 000 §9). */
function alertLimitText(alert: AlertView): string {
  return alert.type === 'SIZE' ? formatBytes(alert.size_limit ?? 0) : formatUsd(alert.cost_limit ?? 0, 5);
}

interface AlertTableProps {
  accountId: string;
  alerts: readonly AlertView[];
  loading: boolean;
  canManage: boolean;
}

/** The alerts of an account or bucket; Owner and Admin may delete them. */
export function AlertTable({ accountId, alerts, loading, canManage }: AlertTableProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: deleteAlert,
    onSuccess: async () => {
      void message.success(alertMessages.deleted);
      await queryClient.invalidateQueries({ queryKey: queryKeys.accountAlerts(accountId) });
    },
    onError: (error) => void message.error(describeError(error)),
  });

  const columns: TableColumnsType<AlertView> = [
    {
      title: 'Type',
      dataIndex: 'type',
      render: (type: AlertView['type']) => <Tag color={type === 'SIZE' ? 'blue' : 'gold'}>{type}</Tag>,
    },
    {
      title: 'Scope',
      dataIndex: 'bucket_name',
      render: (bucketName: string | null) => bucketName ?? WHOLE_ACCOUNT,
    },
    { title: 'Limit', key: 'limit', render: (_, alert) => alertLimitText(alert) },
    {
      title: 'Last notified',
      dataIndex: 'last_notified',
      render: (lastNotified: string | null) => (lastNotified ? <DateText value={lastNotified} /> : 'Never'),
    },
  ];
  if (canManage) {
    columns.push({
      title: 'Delete',
      key: 'delete',
      align: 'right',
      render: (_, alert) => (
        <Popconfirm
          title="Delete this alert?"
          description="You will no longer be notified about this limit."
          okText="Yes"
          cancelText="No"
          okButtonProps={{ danger: true, loading: remove.isPending && remove.variables === alert.id }}
          onConfirm={() => remove.mutateAsync(alert.id).catch(() => undefined)}
        >
          <Button
            danger
            type="text"
            icon={<DeleteOutlined />}
            aria-label={`Delete the ${alert.type} alert of ${alert.bucket_name ?? WHOLE_ACCOUNT} (${alertLimitText(alert)})`}
          />
        </Popconfirm>
      ),
    });
  }

  return (
    <Table<AlertView>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={[...alerts]}
      loading={loading}
      pagination={alerts.length > 10 ? { pageSize: 10 } : false}
      locale={{ emptyText: 'No alerts set yet' }}
    />
  );
}

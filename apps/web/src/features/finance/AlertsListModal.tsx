import { useEffect } from 'react';
import { Alert, App, Button, Modal, Popconfirm, Table, type TableColumnsType } from 'antd';
import { DeleteOutlined } from '@ant-design/icons';
import { financeMessages, type BudgetAlert } from '@cumulo/contract';
import { DateText } from '../../ui/DateText.tsx';
import { useBudgetAlerts, useDeleteBudgetAlert } from './finance-api.ts';
import { monthLabel } from './SetAlertModal.tsx';

const EMPTY = 'No notification found';
/** One toast per failed read, however often StrictMode or a retry renders it. */
const LOAD_FAILED_KEY = 'finance-alerts-failed';

const percentText = (percent: number | null) => (percent === null ? 'off' : `${percent} %`);

/** 'Nov 2026 – Dec 2026'. */
const alertRangeText = (alert: Pick<BudgetAlert, 'start' | 'end'>) =>
  `${monthLabel(alert.start.slice(0, 10))} – ${monthLabel(alert.end.slice(0, 10))}`;

/** Spec 002 §2 Finance "alerts list modal" (the Notifications action): every budget alert, each deletable. */
export function AlertsListModal({ onClose }: { onClose: () => void }) {
  const { message } = App.useApp();
  const alerts = useBudgetAlerts();
  const remove = useDeleteBudgetAlert();

  useEffect(() => {
    if (alerts.isError) void message.error({ content: financeMessages.alertsFailed, key: LOAD_FAILED_KEY });
  }, [alerts.isError, message]);

  const deleteAlert = (id: string) =>
    remove.mutateAsync(id).then(
      () => void message.success(financeMessages.alertDeleted),
      () => void message.error(financeMessages.alertDeleteFailed),
    );

  const columns: TableColumnsType<BudgetAlert> = [
    { title: 'Alert', dataIndex: 'title' },
    { title: 'Actual', key: 'actual', render: (_, alert) => percentText(alert.actual_alert_percent) },
    { title: 'Forecast', key: 'forecast', render: (_, alert) => percentText(alert.forecast_alert_percent) },
    { title: 'Range', key: 'range', render: (_, alert) => alertRangeText(alert) },
    {
      title: 'Last fired',
      dataIndex: 'last_fired',
      render: (lastFired: string | null) => (lastFired ? <DateText value={lastFired} /> : 'Never'),
    },
    {
      title: 'Delete',
      key: 'delete',
      align: 'right',
      render: (_, alert) => (
        <Popconfirm
          title="Delete this alert?"
          description="Nobody will be notified about this budget any more."
          okText="Yes"
          cancelText="No"
          okButtonProps={{ danger: true, loading: remove.isPending && remove.variables === alert.id }}
          onConfirm={() => deleteAlert(alert.id)}
        >
          <Button
            danger
            type="text"
            icon={<DeleteOutlined />}
            aria-label={`Delete the alert ${alert.title}`}
          />
        </Popconfirm>
      ),
    },
  ];

  return (
    <Modal title="Notifications" open onCancel={onClose} footer={null} width={860} destroyOnHidden>
      {alerts.isError ? (
        <Alert type="error" showIcon title={financeMessages.alertsServerError} />
      ) : (
        <Table<BudgetAlert>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={alerts.data ?? []}
          loading={alerts.isPending}
          pagination={(alerts.data?.length ?? 0) > 10 ? { pageSize: 10 } : false}
          locale={{ emptyText: EMPTY }}
        />
      )}
    </Modal>
  );
}

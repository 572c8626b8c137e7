import { Fragment, useState, type ReactNode } from 'react';
import { App, Button, Empty, Flex, Select, Space, Typography } from 'antd';
import { ArrowDownOutlined, ArrowUpOutlined, CloseOutlined } from '@ant-design/icons';
import { DASHBOARD_WIDGETS, DASHBOARD_WIDGET_IDS, type DashboardWidgetId } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { AddAccountButton } from '../accounts/AddAccountButton.tsx';
import { CloudAccountList } from '../accounts/CloudAccountList.tsx';
import { DashboardSyncJobs } from '../sync/DashboardSyncJobs.tsx';
import { AlertsWidget } from './AlertsWidget.tsx';
import { AnalyticsWidget } from './AnalyticsWidget.tsx';
import { RecentTransfers } from './RecentTransfers.tsx';
import { UsageWidget } from './UsageWidget.tsx';
import {
  DEFAULT_LAYOUT,
  useChangeDashboard,
  useDashboardLayout,
  type DashboardChange,
} from './dashboard-api.ts';

const WIDGETS: Record<DashboardWidgetId, () => ReactNode> = {
  accounts: () => <CloudAccountList redirectWhenEmpty />,
  usage: () => <UsageWidget />,
  sync_jobs: () => <DashboardSyncJobs />,
  recent_transfers: () => <RecentTransfers />,
  alerts: () => <AlertsWidget />,
  analytics: () => <AnalyticsWidget />,
};

/** A widget while the layout is being arranged: its name and the buttons that move or remove it. */
function ArrangedWidget({
  id,
  first,
  last,
  onChange,
  children,
}: {
  id: DashboardWidgetId;
  first: boolean;
  last: boolean;
  onChange: (move: 'up' | 'down' | 'remove') => void;
  children: ReactNode;
}) {
  const title = DASHBOARD_WIDGETS[id];
  return (
    <section aria-label={title}>
      <Flex justify="space-between" align="center" gap={8} style={{ marginBottom: 8 }}>
        <Typography.Text strong>{title}</Typography.Text>
        <Space size={4}>
          <Button
            size="small"
            icon={<ArrowUpOutlined />}
            aria-label={`Move ${title} up`}
            disabled={first}
            onClick={() => onChange('up')}
          />
          <Button
            size="small"
            icon={<ArrowDownOutlined />}
            aria-label={`Move ${title} down`}
            disabled={last}
            onClick={() => onChange('down')}
          />
          <Button
            size="small"
            icon={<CloseOutlined />}
            aria-label={`Remove ${title}`}
            onClick={() => onChange('remove')}
          />
        </Space>
      </Flex>
      {children}
    </section>
  );
}

/**
 * / and /dashboard — the Dashboard / Hybrid view (spec 000 §2): the member's own widgets (accounts with their
 * buckets, usage, sync jobs, recent transfers, alerts, analytics items) in the order they chose (spec 000 §7 "Dashboard widgets").
 * "Arrange" adds, removes and reorders them; each change is saved at once.
 */
export function DashboardPage() {
  useDocumentTitle('Dashboard');
  const { message } = App.useApp();
  const layout = useDashboardLayout();
  const change = useChangeDashboard();
  const [arranging, setArranging] = useState(false);
  // Nothing until the layout answers, so widgets a member removed never flash by; when it cannot be read, the
  // default layout keeps the dashboard usable.
  const ids = layout.isPending ? [] : (layout.data ?? DEFAULT_LAYOUT).widgets.map((widget) => widget.id);
  const missing = DASHBOARD_WIDGET_IDS.filter((id) => !ids.includes(id));

  const save = (next: DashboardChange) =>
    change.mutate(next, { onError: (error) => void message.error(describeError(error)) });
  const move = (index: number, to: number) => {
    const order = [...ids];
    const [moved] = order.splice(index, 1);
    if (moved === undefined) return;
    order.splice(to, 0, moved);
    save({ kind: 'order', ids: order });
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Flex justify="space-between" align="center" wrap gap={16}>
        <Typography.Title level={2} style={{ margin: 0 }}>
          Dashboard
        </Typography.Title>
        <Space wrap>
          <Button type={arranging ? 'primary' : 'default'} onClick={() => setArranging(!arranging)}>
            {arranging ? 'Done' : 'Arrange widgets'}
          </Button>
          <AddAccountButton />
        </Space>
      </Flex>
      {arranging && (
        <Flex align="center" gap={8} wrap>
          <Typography.Text type="secondary">
            {missing.length > 0 ? 'Add a widget:' : 'Every widget is on your dashboard.'}
          </Typography.Text>
          {missing.length > 0 && (
            <Select<DashboardWidgetId>
              aria-label="Add a widget"
              placeholder="Choose a widget"
              value={null}
              style={{ minWidth: 200 }}
              options={missing.map((id) => ({ value: id, label: DASHBOARD_WIDGETS[id] }))}
              onChange={(id) => save({ kind: 'add', id })}
            />
          )}
        </Flex>
      )}
      {layout.isSuccess && ids.length === 0 && !arranging && (
        <Empty description="Your dashboard has no widgets.">
          <Button onClick={() => setArranging(true)}>Add widgets</Button>
        </Empty>
      )}
      {ids.map((id, index) =>
        arranging ? (
          <ArrangedWidget
            key={id}
            id={id}
            first={index === 0}
            last={index === ids.length - 1}
            onChange={(action) =>
              action === 'remove'
                ? save({ kind: 'remove', id })
                : move(index, action === 'up' ? index - 1 : index + 1)
            }
          >
            {WIDGETS[id]()}
          </ArrangedWidget>
        ) : (
          // No wrapper: a widget with nothing to show (no sync job yet) leaves no gap.
          <Fragment key={id}>{WIDGETS[id]()}</Fragment>
        ),
      )}
    </Space>
  );
}

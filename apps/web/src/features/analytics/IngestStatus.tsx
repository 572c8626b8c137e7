import { useState } from 'react';
import { Alert, App, Button, Flex, Modal, Spin, Table, Typography } from 'antd';
import { HistoryOutlined, ReloadOutlined } from '@ant-design/icons';
import {
  ACTIONS,
  analyticsMessages,
  roleMay,
  type AnalyticsRunView,
  type CloudAccountView,
  type UserProfile,
} from '@cumulo/contract';
import { ApiError, describeError } from '../../api/client.ts';
import { useProfile } from '../profile/useProfile.ts';
import { useIngestRuns, useRefreshAnalytics } from './analytics-api.ts';
import { analyticsTexts, runSummary, TRIGGER_TEXTS } from './analytics-texts.ts';

/** Whether the member may read an account's reports again now: the server's own rule (Owner, Admin; ACL on). */
function mayRefresh(profile: UserProfile | undefined): boolean {
  const service = ACTIONS['analytics.refresh'].service;
  return (
    profile !== undefined &&
    roleMay(profile.role.title, 'analytics.refresh') &&
    (service === null || profile.acl.services[service] !== false)
  );
}

/**
 * The account's ingestion in the product: the Refresh button (for those who may), the latest run's state and
 * outcome, and why the billing bucket could not be read when it could not.
 */
export function IngestStatus({ account }: { account: CloudAccountView }) {
  const { message } = App.useApp();
  const profile = useProfile().data;
  const runs = useIngestRuns(account.id);
  const refresh = useRefreshAnalytics();
  const latest = runs.data?.[0];
  const underWay = latest?.state === 'queued' || latest?.state === 'running';
  const start = async () => {
    try {
      await refresh.mutateAsync(account.id);
      void message.success(analyticsMessages.refreshing(account.name));
    } catch (error) {
      // A 400 already shows in the shared 'Error' modal.
      if (!(error instanceof ApiError && error.status === 400)) void message.error(describeError(error));
    }
  };
  return (
    <Flex vertical gap={8}>
      <Flex gap={12} align="center" wrap>
        {mayRefresh(profile) && (
          <Button
            icon={<ReloadOutlined aria-hidden />}
            loading={refresh.isPending}
            disabled={underWay}
            onClick={() => void start()}
          >
            Refresh
          </Button>
        )}
        <div role="status" aria-label="Billing report ingestion">
          {runs.isError ? (
            <Typography.Text type="danger">{describeError(runs.error)}</Typography.Text>
          ) : runs.isPending ? (
            <Spin size="small" aria-label="Loading" />
          ) : latest ? (
            <Flex gap={8} align="center">
              {underWay && <Spin size="small" aria-label="Reading the billing reports" />}
              <Typography.Text type={latest.state === 'failed' ? 'danger' : 'secondary'}>
                {runSummary(latest)}
              </Typography.Text>
            </Flex>
          ) : (
            <Typography.Text type="secondary">{analyticsTexts.neverRead}</Typography.Text>
          )}
        </div>
        {runs.data && runs.data.length > 0 && <RunHistory account={account} runs={runs.data} />}
      </Flex>
      {account.billing_error && <Alert type="warning" showIcon title={account.billing_error} />}
    </Flex>
  );
}

/** Every run of the account the server keeps (its last 50), newest first: what started it, when, and its outcome. */
function RunHistory({ account, runs }: { account: CloudAccountView; runs: AnalyticsRunView[] }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button type="link" icon={<HistoryOutlined aria-hidden />} onClick={() => setOpen(true)}>
        Run history
      </Button>
      <Modal
        title={`Billing report runs of ${account.name}`}
        open={open}
        onCancel={() => setOpen(false)}
        footer={null}
        width={880}
      >
        <Table<AnalyticsRunView>
          size="small"
          aria-label="Billing report runs"
          rowKey="id"
          dataSource={runs}
          pagination={runs.length > 10 ? { pageSize: 10 } : false}
          columns={[
            {
              title: 'Started by',
              dataIndex: 'trigger',
              render: (trigger: AnalyticsRunView['trigger']) => TRIGGER_TEXTS[trigger],
            },
            {
              title: 'Outcome',
              key: 'outcome',
              render: (_, run) => (
                <Typography.Text type={run.state === 'failed' ? 'danger' : undefined}>
                  {runSummary(run)}
                </Typography.Text>
              ),
            },
          ]}
        />
      </Modal>
    </>
  );
}

import { useState } from 'react';
import { DeleteOutlined } from '@ant-design/icons';
import { Alert, App, Button, Space, Switch, Table, Typography, type TableColumnsType } from 'antd';
import {
  SYNC_FREQUENCY_LABEL,
  roleMay,
  syncMessages,
  type SyncCycle,
  type SyncFrequency,
  type SyncJob,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useProfile } from '../profile/useProfile.ts';
import { useOngoingTransfers } from '../transfers/live-transfers.ts';
import { ApprovalBanner, isApprover } from './ApprovalBanner.tsx';
import { CycleHistoryModal } from './CycleHistory.tsx';
import { CycleStatusIcon } from './CycleStatusIcon.tsx';
import { DryRunModal } from './DryRunModal.tsx';
import { SafeguardsModal } from './SafeguardsModal.tsx';
import {
  useActivateSync,
  useDeleteSync,
  useDryRun,
  useLiveSyncFeed,
  useRunSync,
  useSyncJobs,
  type SyncKind,
} from './sync-api.ts';
import {
  destinationName,
  formatSyncDate,
  jobName,
  livePhaseText,
  sourceName,
  syncTexts,
} from './sync-texts.ts';

interface SyncJobsTableProps {
  /** Which list (GET /sync/get_jobs?kind); none lists every job (the dashboard). */
  kind?: SyncKind;
  /** The table's accessible name. */
  label: string;
}

function Side({ account, bucket, path }: { account: string; bucket: string; path: string }) {
  return (
    <>
      <div>{account}</div>
      <Typography.Text type="secondary">{path ? `${bucket}/${path}` : bucket}</Typography.Text>
    </>
  );
}

/** Sync Date/Time: the last cycle's status icon and date, the live cycle's phase, the next scheduled run. */
function CycleCell({ job, percentOf }: { job: SyncJob; percentOf(cycle: SyncCycle): number | null }) {
  const live = job.liveCycle;
  return (
    <Space orientation="vertical" size={0}>
      {job.lastCycle ? (
        <Space size={6}>
          <CycleStatusIcon status={job.lastCycle.status} error={job.lastError} />
          <time dateTime={job.lastCycle.date}>{formatSyncDate(job.lastCycle.date)}</time>
        </Space>
      ) : (
        <Typography.Text type="secondary">{syncTexts.never}</Typography.Text>
      )}
      {live ? (
        <Space size={6} aria-live="polite">
          <CycleStatusIcon status={live.status} error={live.error} />
          <Typography.Text>{livePhaseText(live, percentOf(live))}</Typography.Text>
        </Space>
      ) : null}
      {job.info.nextRun ? (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {`${syncTexts.nextRun} ${formatSyncDate(job.info.nextRun)}`}
        </Typography.Text>
      ) : null}
    </Space>
  );
}

/**
 * The list of sync jobs (spec 001 §2 Sync screen columns; spec 000 §2 "Sync (also on the dashboard)"): toggle and
 * delete with their confirmations and toasts (spec 000 §8), run now, dry run and the cycle history, plus the
 * approval banners of cycles waiting before their deletes.
 */
export function SyncJobsTable({ kind, label }: SyncJobsTableProps) {
  const { message, modal } = App.useApp();
  useLiveSyncFeed();
  const jobs = useSyncJobs(kind);
  const ongoing = useOngoingTransfers();
  const activate = useActivateSync();
  const remove = useDeleteSync();
  const run = useRunSync();
  const dryRun = useDryRun();
  const [dryRunOf, setDryRunOf] = useState<{ name: string; cycle: SyncCycle } | null>(null);
  const [historyOf, setHistoryOf] = useState<SyncJob | null>(null);
  const [safeguardsOf, setSafeguardsOf] = useState<SyncJob | null>(null);
  const profile = useProfile().data;
  const approver = isApprover(profile);
  // A User activates, runs and removes only the jobs they created (the server refuses the others: sync.manage).
  const mayManage = (job: SyncJob) =>
    roleMay(profile?.role.title ?? '', 'sync.manage') ||
    (profile !== undefined && job.info.createdBy === profile.id);

  const percentOf = (cycle: SyncCycle) =>
    ongoing.data?.find((migration) => migration.id === cycle.batchId)?.percent ?? null;

  const confirmToggle = (job: SyncJob, active: boolean) => {
    modal.confirm({
      title: active ? 'Activate sync' : 'Deactivate sync',
      content: syncMessages.confirmToggle(active, sourceName(job), destinationName(job)),
      okText: 'Yes',
      cancelText: 'No',
      onOk: async () => {
        try {
          await activate.mutateAsync({ id: job.info.id, active });
          void message.success(active ? syncMessages.activated : syncMessages.deactivated);
        } catch {
          void message.error(syncMessages.failed);
        }
      },
    });
  };

  const confirmDelete = (job: SyncJob) => {
    modal.confirm({
      title: 'Remove sync',
      content: (
        <>
          <Typography.Paragraph>{syncMessages.confirmDelete(jobName(job))}</Typography.Paragraph>
          <Typography.Text type="secondary">{syncMessages.deleteNote}</Typography.Text>
        </>
      ),
      okText: 'Remove',
      okButtonProps: { danger: true },
      cancelText: 'Cancel',
      onOk: async () => {
        try {
          await remove.mutateAsync(job.info.id);
          void message.success(syncMessages.deleted);
        } catch {
          void message.error(syncMessages.deleteFailed);
        }
      },
    });
  };

  const runNow = async (job: SyncJob) => {
    try {
      const answer = await run.mutateAsync(job.info.id);
      void message.success(answer.message || syncMessages.runStarted);
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  const startDryRun = async (job: SyncJob) => {
    try {
      const answer = await dryRun.mutateAsync(job.info.id);
      void message.info(answer.message || syncMessages.dryRunStarted);
      setDryRunOf({ name: jobName(job), cycle: answer.cycle });
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  const columns: TableColumnsType<SyncJob> = [
    {
      title: 'Source',
      key: 'source',
      render: (_, job) => (
        <Side
          account={job.info.sourceCloudAccount.name}
          bucket={job.info.sourceBucket}
          path={job.info.sourcePath}
        />
      ),
    },
    {
      title: 'Destination',
      key: 'destination',
      render: (_, job) => (
        <Side
          account={job.info.destinationCloudAccount.name}
          bucket={job.info.destinationBucket}
          path={job.info.destinationPath}
        />
      ),
    },
    {
      title: 'Sync Frequency',
      key: 'frequency',
      render: (_, job) =>
        SYNC_FREQUENCY_LABEL[job.info.frequency as SyncFrequency] ?? String(job.info.frequency),
    },
    ...(kind === 'sync'
      ? []
      : [
          {
            title: syncTexts.syncDeleted,
            key: 'allowDelete',
            render: (_: unknown, job: SyncJob) =>
              job.info.allowDelete
                ? job.info.quarantineDays
                  ? `Yes (quarantine ${job.info.quarantineDays} days)`
                  : 'Yes'
                : 'No',
          },
        ]),
    {
      title: 'Sync Date/Time',
      key: 'lastCycle',
      render: (_, job) => <CycleCell job={job} percentOf={percentOf} />,
    },
    {
      title: 'Actions',
      key: 'actions',
      render: (_, job) => {
        const busy = job.liveCycle !== null;
        const managed = mayManage(job);
        return (
          <Space wrap size="small">
            <Switch
              aria-label="Active"
              checked={job.info.active}
              disabled={!managed}
              onChange={(checked) => confirmToggle(job, checked)}
            />
            <Button
              size="small"
              disabled={!job.info.active || busy || !managed}
              loading={run.isPending && run.variables === job.info.id}
              onClick={() => void runNow(job)}
            >
              Run now
            </Button>
            <Button
              size="small"
              loading={dryRun.isPending && dryRun.variables === job.info.id}
              onClick={() => void startDryRun(job)}
            >
              Dry run
            </Button>
            <Button size="small" onClick={() => setHistoryOf(job)}>
              History
            </Button>
            {approver && job.info.allowDelete ? (
              <Button size="small" onClick={() => setSafeguardsOf(job)}>
                Safeguards
              </Button>
            ) : null}
            <Button
              size="small"
              danger
              aria-label="Delete"
              disabled={!managed}
              icon={<DeleteOutlined />}
              onClick={() => confirmDelete(job)}
            />
          </Space>
        );
      },
    },
  ];

  const waiting = (jobs.data ?? []).filter((job) => job.liveCycle?.approval === 'waiting');

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      {waiting.map((job) =>
        job.liveCycle ? (
          <ApprovalBanner key={job.info.id} jobName={jobName(job)} cycle={job.liveCycle} />
        ) : null,
      )}
      {jobs.isError ? <Alert type="error" showIcon title={describeError(jobs.error)} /> : null}
      <Table<SyncJob>
        aria-label={label}
        rowKey={(job) => job.info.id}
        size="small"
        loading={jobs.isPending && jobs.fetchStatus !== 'idle'}
        columns={columns}
        dataSource={jobs.data ?? []}
        pagination={false}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: syncTexts.noJobs }}
      />
      {dryRunOf ? (
        <DryRunModal jobName={dryRunOf.name} started={dryRunOf.cycle} onClose={() => setDryRunOf(null)} />
      ) : null}
      {safeguardsOf ? (
        <SafeguardsModal
          job={safeguardsOf}
          jobName={jobName(safeguardsOf)}
          onClose={() => setSafeguardsOf(null)}
        />
      ) : null}
      {historyOf ? (
        <CycleHistoryModal
          jobName={jobName(historyOf)}
          syncJobId={historyOf.info.id}
          onClose={() => setHistoryOf(null)}
        />
      ) : null}
    </Space>
  );
}

import { useMemo } from 'react';
import {
  Alert,
  App,
  Button,
  Flex,
  Progress,
  Space,
  Table,
  Tag,
  Tooltip,
  Typography,
  type TableColumnsType,
} from 'antd';
import { DeleteOutlined, StopOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { mediaMessages, roleMay, type EncodingJob } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { DateText } from '../../ui/DateText.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import { useProfile } from '../profile/useProfile.ts';
import { useCancelEncodingJob, useEncodingJobs, useRemoveEncodingJob } from './encoding-api.ts';

/** How many output keys a row names before it says how many more there are (an HLS job writes dozens). */
const OUTPUTS_SHOWN = 3;

/** Spec 001 §4: progress 100.0 counts as finished, whatever the status still says. */
export const isDone = (job: EncodingJob) => job.status === 'Finished' || job.progress >= 100;
const isLive = (job: EncodingJob) => (job.status === 'New' || job.status === 'Processing') && !isDone(job);

/** "45 s left", "3 min 5 s left", "1 h 2 min left". */
export function timeLeftText(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (hours > 0) return `${hours} h ${minutes} min left`;
  if (minutes > 0) return `${minutes} min ${rest} s left`;
  return `${rest} s left`;
}

const folderOf = (key: string) => key.slice(0, key.lastIndexOf('/') + 1);
const browseLink = (accountId: string, bucket: string, path: string) =>
  `/browse?${new URLSearchParams({ account: accountId, bucket, ...(path ? { path } : {}) }).toString()}`;

function JobOutputs({ job }: { job: EncodingJob }) {
  const { cloud_account_id: accountId, bucket_name: bucket } = job.destination;
  const shown = job.outputs.slice(0, OUTPUTS_SHOWN);
  const more = job.outputs.length - shown.length;
  return (
    <Flex vertical gap={2}>
      {shown.map((key) => (
        <Link key={key} to={browseLink(accountId, bucket, folderOf(key))} title={`Open the folder of ${key}`}>
          {key.slice(folderOf(key).length)}
        </Link>
      ))}
      {more > 0 ? <Typography.Text type="secondary">and {more} more</Typography.Text> : null}
    </Flex>
  );
}

/** The status cell (spec 001 §4 "Encoding job"). */
function JobStatus({ job }: { job: EncodingJob }) {
  if (isDone(job)) {
    return (
      <Flex vertical gap={4}>
        <Tag color="success" style={{ width: 'fit-content' }}>
          {mediaMessages.done}
        </Tag>
        <JobOutputs job={job} />
      </Flex>
    );
  }
  switch (job.status) {
    case 'New':
      return <Typography.Text>{mediaMessages.processing}</Typography.Text>;
    case 'Processing':
      return (
        <Flex vertical gap={0} style={{ minWidth: 160 }}>
          <Progress
            percent={job.progress}
            format={(percent) => `${(percent ?? 0).toFixed(1)}%`}
            size="small"
            aria-label={`Progress of ${job.source.path} (${job.preset.name})`}
          />
          <Typography.Text type="secondary">
            {job.time_left === null ? mediaMessages.processing : timeLeftText(job.time_left)}
          </Typography.Text>
        </Flex>
      );
    case 'Stopped':
      return <Tag>Stopped</Tag>;
    default:
      return (
        <Tooltip title={job.error ?? undefined}>
          <Tag color="error" tabIndex={0} aria-label={`Error: ${job.error ?? ''}`}>
            Error
          </Tag>
        </Tooltip>
      );
  }
}

/**
 * /encoding (spec 001 §2 "Encoding page", §4 "Encoding job"): the organisation's jobs, waiting and running first,
 * then at most ENCODING_FINISHED_KEPT ended ones, read every second. Cancel and remove show to the members
 * `encoding.manage` allows (a User for the jobs they started); the server decides, and its refusal is the toast.
 */
export function EncodingPage() {
  useDocumentTitle('Encoding Jobs');
  const { message } = App.useApp();
  const jobs = useEncodingJobs();
  const accounts = useCloudAccounts();
  const profile = useProfile().data;
  const cancel = useCancelEncodingJob();
  const remove = useRemoveEncodingJob();

  const accountNames = useMemo(
    () => new Map((accounts.data ?? []).map((account) => [account.id, account.name])),
    [accounts.data],
  );
  const place = (location: EncodingJob['source']) => {
    const account = accountNames.get(location.cloud_account_id);
    return (
      <Flex vertical gap={0}>
        <Typography.Text>
          {location.bucket_name}/{location.path}
        </Typography.Text>
        {account ? <Typography.Text type="secondary">{account}</Typography.Text> : null}
      </Flex>
    );
  };
  const mayManage = (job: EncodingJob) =>
    profile !== undefined &&
    (roleMay(profile.role.title, 'encoding.manage') || job.created_by === profile.id);

  const onCancel = async (job: EncodingJob) => {
    try {
      await cancel.mutateAsync(job.id);
      void message.success(mediaMessages.cancelled);
    } catch (error) {
      void message.error(describeError(error));
    }
  };
  const onRemove = async (job: EncodingJob) => {
    try {
      const answer = await remove.mutateAsync(job.id);
      void message.success(answer.message);
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  const columns: TableColumnsType<EncodingJob> = [
    { title: 'Source', key: 'source', render: (_, job) => place(job.source) },
    {
      title: 'Preset',
      key: 'preset',
      render: (_, job) => (
        <Flex vertical gap={0}>
          <Typography.Text>{job.preset.name}</Typography.Text>
          <Typography.Text type="secondary">{job.preset.category}</Typography.Text>
        </Flex>
      ),
    },
    { title: 'Destination', key: 'destination', render: (_, job) => place(job.destination) },
    { title: 'Created', key: 'created', render: (_, job) => <DateText value={job.created_at} /> },
    { title: 'Status', key: 'status', render: (_, job) => <JobStatus job={job} /> },
    {
      title: 'Actions',
      key: 'actions',
      render: (_, job) => {
        if (!mayManage(job)) return null;
        const label = `${job.source.path} (${job.preset.name})`;
        if (isLive(job)) {
          return (
            <Button
              size="small"
              icon={<StopOutlined />}
              aria-label={`Cancel ${label}`}
              loading={cancel.isPending && cancel.variables === job.id}
              onClick={() => void onCancel(job)}
            >
              Cancel
            </Button>
          );
        }
        if (job.status === 'New' || job.status === 'Processing') return null;
        return (
          <Button
            size="small"
            icon={<DeleteOutlined />}
            aria-label={`Remove ${label}`}
            loading={remove.isPending && remove.variables === job.id}
            onClick={() => void onRemove(job)}
          >
            Remove
          </Button>
        );
      },
    },
  ];

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Encoding Jobs
      </Typography.Title>
      {jobs.isError ? <Alert type="error" showIcon title={describeError(jobs.error)} /> : null}
      <Table<EncodingJob>
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={jobs.data ?? []}
        loading={jobs.isPending && !jobs.isError}
        pagination={false}
        locale={{
          emptyText: (
            <Typography.Text type="secondary">
              No encoding jobs yet. Select files in the <Link to="/browse">bucket browser</Link> and choose
              Encode.
            </Typography.Text>
          ),
        }}
      />
    </Space>
  );
}

import { App, Button, Popconfirm, Progress, Table, Typography, type TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import { hybrikMessages, type HybrikJob, type HybrikJobStatus } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useCancelHybrikJob, useHybrikJobs } from './hybrik-api.ts';

const when = (value: string | null) => (value ? dayjs(value).format('MM/DD/YYYY HH:mm:ss') : '—');

const columns: TableColumnsType<HybrikJob> = [
  { title: 'Name', dataIndex: 'name', key: 'name' },
  { title: 'Creation Time', key: 'creation_time', render: (_, job) => when(job.creation_time) },
  { title: 'End Time', key: 'end_time', render: (_, job) => when(job.end_time) },
  {
    title: 'Progress',
    key: 'progress',
    width: 200,
    render: (_, job) => (
      <Progress
        aria-label={`Progress of ${job.name}`}
        percent={job.progress}
        size="small"
        status={job.status === 'failed' ? 'exception' : job.status === 'completed' ? 'success' : 'active'}
        format={(percent) => `${(percent ?? 0).toFixed(0)}%`}
      />
    ),
  },
  {
    title: 'Error',
    key: 'error',
    render: (_, job) => (job.error ? <Typography.Text type="danger">{job.error}</Typography.Text> : null),
  },
];

/** One tab of jobs (queued, active, completed or failed), refreshed every second while shown. */
export function HybrikJobsTable({ filter, label }: { filter: HybrikJobStatus; label: string }) {
  const { message } = App.useApp();
  const jobs = useHybrikJobs(filter);
  const cancel = useCancelHybrikJob();
  const live = filter === 'queued' || filter === 'active';
  const cancelColumn: TableColumnsType<HybrikJob>[number] = {
    title: 'Actions',
    key: 'actions',
    width: 110,
    render: (_, job) => (
      <Popconfirm
        title={`Cancel the job ${job.name}?`}
        okText="Cancel job"
        cancelText="Keep it"
        onConfirm={() =>
          cancel.mutateAsync(job.id).then(
            () => void message.success(hybrikMessages.jobCancelled),
            (error: unknown) => void message.error(describeError(error)),
          )
        }
      >
        <Button size="small" aria-label={`Cancel ${job.name}`}>
          Cancel
        </Button>
      </Popconfirm>
    ),
  };
  return (
    <Table<HybrikJob>
      aria-label={label}
      rowKey="id"
      size="small"
      columns={live ? [...columns, cancelColumn] : columns}
      dataSource={jobs.data ?? []}
      loading={jobs.isPending}
      pagination={false}
      locale={{ emptyText: jobs.isError ? describeError(jobs.error) : `No ${filter} jobs` }}
    />
  );
}

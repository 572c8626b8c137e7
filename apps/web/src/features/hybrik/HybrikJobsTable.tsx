import { Progress, Table, Typography, type TableColumnsType } from 'antd';
import dayjs from 'dayjs';
import type { HybrikJob, HybrikJobStatus } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useHybrikJobs } from './hybrik-api.ts';

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
  const jobs = useHybrikJobs(filter);
  return (
    <Table<HybrikJob>
      aria-label={label}
      rowKey="id"
      size="small"
      columns={columns}
      dataSource={jobs.data ?? []}
      loading={jobs.isPending}
      pagination={false}
      locale={{ emptyText: jobs.isError ? describeError(jobs.error) : `No ${filter} jobs` }}
    />
  );
}

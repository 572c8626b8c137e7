import { Card } from 'antd';
import { SyncJobsTable } from './SyncJobsTable.tsx';
import { useSyncJobs } from './sync-api.ts';
import { syncTexts } from './sync-texts.ts';

/**
 * The dashboard's sync list (spec 000 §2 "Sync (also on the dashboard)"): every sync and replication job of the
 * organisation, shown once there is one (the /Sync and /replication screens create them).
 */
export function DashboardSyncJobs() {
  const jobs = useSyncJobs();
  if (!jobs.data?.length) return null;
  return (
    <Card title={syncTexts.syncJobs}>
      <SyncJobsTable label={syncTexts.syncJobs} />
    </Card>
  );
}

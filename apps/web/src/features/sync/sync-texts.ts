import dayjs from 'dayjs';
import { formatBytes, type SyncCycle, type SyncJob } from '@cumulo/contract';

/** Spec 000 §9: sync timestamps read MM/DD/YYYY - HH:mm, local time. */
const SYNC_DATE_FORMAT = 'MM/DD/YYYY - HH:mm';

export function formatSyncDate(value: string | null): string {
  if (!value) return '';
  const date = dayjs(value);
  return date.isValid() ? date.format(SYNC_DATE_FORMAT) : '';
}

/** One side of a job as the confirmations and the list name it: "Account/bucket[/path]". */
function sideName(account: string, bucket: string, path: string): string {
  return [account, bucket, path.replace(/\/+$/, '')].filter(Boolean).join('/');
}

export function sourceName(job: SyncJob): string {
  return sideName(job.info.sourceCloudAccount.name, job.info.sourceBucket, job.info.sourcePath);
}

export function destinationName(job: SyncJob): string {
  return sideName(
    job.info.destinationCloudAccount.name,
    job.info.destinationBucket,
    job.info.destinationPath,
  );
}

/** The job as `syncMessages.confirmDelete` names it. */
export function jobName(job: SyncJob): string {
  return `${sourceName(job)} to ${destinationName(job)}`;
}

const objects = (count: number) => `${count.toLocaleString('en-US')} object${count === 1 ? '' : 's'}`;

/** What a running cycle is doing, for the list's live status. */
export function livePhaseText(cycle: SyncCycle, percent: number | null): string {
  switch (cycle.phase) {
    case 'diffing':
      return 'Comparing both sides';
    case 'copying':
      return `Copying ${objects(cycle.copyCount)} (${formatBytes(cycle.copyBytes)})${
        percent === null ? '' : ` - ${Math.floor(percent)}%`
      }`;
    case 'awaiting_approval':
      return 'Waiting for approval';
    case 'deleting':
      return `Deleting ${objects(cycle.deleteCount)}`;
    default:
      return 'Finishing';
  }
}

export const syncTexts = {
  createSync: 'Create Sync Job',
  syncJobs: 'Sync Jobs',
  createReplication: 'Create Replication Job',
  replicationJobs: 'Scheduled Replication Jobs',
  syncDeleted: 'Sync Deleted objects!',
  advanced: 'Delete safeguards',
  safeguardsSaved: 'Delete safeguards saved.',
  quarantine: 'Move deleted objects to quarantine for',
  quarantineDays: 'Quarantine days',
  thresholdCount: 'Ask for approval above this many deletes',
  thresholdPercent: 'Ask for approval above this % of the destination',
  guardNote:
    'Before a cycle deletes, it counts what it would delete: above either threshold it waits until an Owner or an Admin approves.',
  noJobs: 'No sync jobs yet',
  dryRunTitle: 'Dry run',
  dryRunWaiting: 'Listing both sides: nothing is copied or deleted.',
  wouldCopy: 'Would copy',
  wouldDelete: 'Would delete',
  unchanged: 'Unchanged',
  cycleHistory: 'Cycle history',
  noCycles: 'No cycle has run yet',
  nextRun: 'Next run',
  never: 'Not run yet',
} as const;

export { objects as objectCount };

import type { SyncCycle, SyncJob } from '@cumulo/contract';
import type { syncCycles, syncJobs } from '../../db/schema/sync.ts';
import { nextRunOf } from './engine/schedule.ts';

export type SyncJobRow = typeof syncJobs.$inferSelect;
export type SyncCycleRow = typeof syncCycles.$inferSelect;

/** A job with the names and providers of its two accounts, as the list query reads it. */
export interface SyncJobView extends SyncJobRow {
  sourceAccountName: string;
  sourceProvider: string;
  destinationAccountName: string;
  destinationProvider: string;
  /** The newest finished real cycle (spec "lastCycle"), and the unfinished one if any. */
  lastCycle: SyncCycleRow | null;
  liveCycle: SyncCycleRow | null;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A cycle as the screens and the `sync.cycle` event read it (contract `syncCycle`). */
export function toSyncCycle(row: SyncCycleRow): SyncCycle {
  return {
    id: row.id,
    syncJobId: row.syncJobId,
    trigger: row.trigger,
    dryRun: row.dryRun,
    status: row.status,
    phase: row.phase,
    batchId: row.batchId,
    sourceCount: row.sourceCount,
    destinationCount: row.destinationCount,
    copyCount: row.copyCount,
    copyBytes: row.copyBytes,
    unchangedCount: row.unchangedCount,
    deleteCount: row.deleteCount,
    deleteBytes: row.deleteBytes,
    deletedCount: row.deletedCount,
    approval: row.approval,
    decidedBy: row.decidedBy,
    decidedAt: iso(row.decidedAt),
    sample: row.sample,
    error: row.error,
    startedAt: row.startedAt.toISOString(),
    finishedAt: iso(row.finishedAt),
  };
}

/** A job as GET /sync/get_jobs answers it (contract `syncJob`, spec 000 §3 "Sync info"). */
export function toSyncJob(job: SyncJobView, now: Date = new Date()): SyncJob {
  const last = job.lastCycle;
  return {
    info: {
      id: job.id,
      kind: job.kind,
      sourceCloudAccount: {
        id: job.sourceCloudAccountId,
        name: job.sourceAccountName,
        provider: job.sourceProvider,
      },
      sourceBucket: job.sourceBucket,
      sourcePath: job.sourcePath,
      destinationCloudAccount: {
        id: job.destinationCloudAccountId,
        name: job.destinationAccountName,
        provider: job.destinationProvider,
      },
      destinationBucket: job.destinationBucket,
      destinationPath: job.destinationPath,
      frequency: job.frequency,
      operation: job.operation,
      createDate: job.createdAt.toISOString(),
      createdBy: job.createdBy,
      allowDelete: job.allowDelete,
      active: job.active,
      quarantineDays: job.quarantineDays,
      deleteThresholdCount: job.deleteThresholdCount,
      deleteThresholdPercent: job.deleteThresholdPercent,
      nextRun: job.active ? nextRunOf(job, now).toISOString() : null,
    },
    lastCycle: last
      ? { id: last.id, date: (last.finishedAt ?? last.startedAt).toISOString(), status: last.status }
      : null,
    lastError: last?.error ?? null,
    liveCycle: job.liveCycle ? toSyncCycle(job.liveCycle) : null,
  };
}

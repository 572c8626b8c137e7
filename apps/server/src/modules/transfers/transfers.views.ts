import {
  AVERAGE_SPEED_CAP_BYTES,
  BATCH_STATUS,
  type MigrationFile,
  type MigrationProgress,
  type MigrationStatus,
  type TransferBatch,
  transferMessages,
} from '@cumulo/contract';
import type { BatchView, ItemRow } from './transfers.repo.ts';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A batch as every screen reads it (contract `transferBatch`). */
export function toTransferBatch(batch: BatchView): TransferBatch {
  return {
    id: batch.id,
    transferType: batch.transferType,
    operation: batch.operation,
    transferStatus: batch.status,
    phase: batch.phase,
    total: batch.totalNumber,
    totalSize: batch.totalSize,
    transferred: batch.transferredNumber,
    transferredSize: batch.transferredSize,
    // A move's deleted sources, or a sync cycle's deletes at the destination.
    deleted: batch.deletedNumber + batch.syncDeleted,
    failed: batch.failedNumber,
    skipped: batch.skippedNumber,
    skippedSize: batch.skippedSize,
    bytesDone: batch.bytesDone,
    averageSpeed: Math.min(batch.averageSpeed, AVERAGE_SPEED_CAP_BYTES),
    requestDate: batch.requestedAt.toISOString(),
    startedAt: iso(batch.startedAt),
    finishedAt: iso(batch.finishedAt),
    sourceCloudAccount: {
      id: batch.sourceCloudAccountId,
      name: batch.sourceAccountName ?? transferMessages.removedAccount,
    },
    destinationCloudAccount: {
      id: batch.destinationCloudAccountId,
      name: batch.destinationAccountName ?? transferMessages.removedAccount,
    },
    sourceBucket: batch.sourceBucket,
    destinationBucket: batch.destinationBucket,
    sourcePath: batch.sourcePath,
    destinationPath: batch.destinationPath,
    skipExisting: batch.skipExisting,
    bandwidthLimit: batch.bandwidthLimit,
    syncJobId: batch.syncJobId,
    syncCycleId: batch.syncCycleId,
    retryOf: batch.retryOfId,
    Retried: batch.retried,
    createdBy: batch.userId,
    error: batch.error,
  };
}

/** Spec 001 §4 "Migration statuses" of a batch. */
function migrationStatus(batch: Pick<BatchView, 'status' | 'phase' | 'bytesDone'>): MigrationStatus {
  switch (batch.status) {
    case BATCH_STATUS.completed:
      return 'Succeeded';
    case BATCH_STATUS.failed:
      return 'Failed';
    case BATCH_STATUS.canceled:
    case BATCH_STATUS.canceling:
      return 'Canceled';
    default:
      if (batch.phase === 'planning') return 'Enqueued';
      return batch.bytesDone > 0 ? 'Processing' : 'Started';
  }
}

const secondsLeft = (remaining: number, rate: number) => (rate > 0 ? Math.ceil(remaining / rate) : null);

/** The live state of a batch (contract `migrationProgress`); `rate` in bytes/s, now. */
export function toMigrationProgress(
  batch: BatchView,
  rate: number,
  files: Record<string, MigrationFile>,
  now = new Date(),
): MigrationProgress {
  const size = batch.totalSize;
  const moved = batch.bytesDone + batch.skippedSize;
  return {
    id: batch.id,
    status: migrationStatus(batch),
    transferStatus: batch.status,
    transferType: batch.transferType,
    createdBy: batch.userId,
    percent:
      size > 0 ? Math.min(100, Math.floor((moved / size) * 100)) : batch.phase === 'finished' ? 100 : 0,
    cloud: batch.destinationAccountName ?? transferMessages.removedAccount,
    bucket: batch.destinationBucket,
    rate: Math.round(rate),
    transferred: batch.bytesDone,
    size,
    skipped_size: batch.skippedSize,
    time_left: secondsLeft(Math.max(0, size - moved), rate),
    updated: now.toISOString(),
    files,
  };
}

/** One object of a live batch, from its row (a page opened mid-transfer) or from a worker's counters. */
export function toMigrationFile(
  batch: Pick<BatchView, 'sourceAccountName' | 'sourceBucket'>,
  item: Pick<ItemRow, 'sourceKey' | 'size' | 'bytesDone' | 'startedAt' | 'finishedAt' | 'error'> & {
    status: MigrationStatus;
  },
  rate: number,
  now = new Date(),
): MigrationFile {
  return {
    cloud: batch.sourceAccountName ?? transferMessages.removedAccount,
    bucket: batch.sourceBucket,
    path: item.sourceKey,
    status: item.status,
    percent: item.size > 0 ? Math.min(100, Math.floor((item.bytesDone / item.size) * 100)) : 100,
    rate: Math.round(rate),
    size: item.size,
    transferred: item.bytesDone,
    started: iso(item.startedAt),
    ended: iso(item.finishedAt),
    time_left: secondsLeft(Math.max(0, item.size - item.bytesDone), rate),
    message: item.error,
    updated: now.toISOString(),
  };
}

import type { MigrationFile, MigrationProgress, TransferBatch } from '@cumulo/contract';
import { buildProfile } from '../../test/factories.ts';

export const MB = 1024 * 1024;

/** A live batch as GET /transfer/ongoing and `transfer.progress` carry it. */
export function buildMigration(overrides: Partial<MigrationProgress> = {}): MigrationProgress {
  return {
    id: '0b4e9a9e-4d0f-4a4c-9d55-0d9f2b1c0001',
    status: 'Processing',
    transferStatus: 2,
    transferType: 1,
    createdBy: buildProfile().id,
    percent: 40,
    cloud: 'Blob store',
    bucket: 'media-copy',
    rate: MB,
    transferred: 40 * MB,
    size: 100 * MB,
    skipped_size: 0,
    time_left: 60,
    updated: new Date().toISOString(),
    files: {},
    ...overrides,
  };
}

export function buildMigrationFile(overrides: Partial<MigrationFile> = {}): MigrationFile {
  return {
    cloud: 'Blob store',
    bucket: 'media-copy',
    path: 'videos/intro.mp4',
    status: 'Processing',
    percent: 50,
    rate: MB,
    size: 10 * MB,
    transferred: 5 * MB,
    started: '2025-05-01T10:00:00.000Z',
    ended: null,
    time_left: 5,
    message: null,
    updated: new Date().toISOString(),
    ...overrides,
  };
}

/** A batch as GET /transfer/get_all lists it. */
export function buildBatch(overrides: Partial<TransferBatch> = {}): TransferBatch {
  return {
    id: '0b4e9a9e-4d0f-4a4c-9d55-0d9f2b1c0001',
    transferType: 1,
    operation: 'copy',
    transferStatus: 4,
    phase: 'finished',
    total: 10,
    totalSize: 100 * MB,
    transferred: 10,
    transferredSize: 100 * MB,
    deleted: 0,
    failed: 0,
    skipped: 0,
    skippedSize: 0,
    bytesDone: 100 * MB,
    averageSpeed: 2 * MB,
    requestDate: '2025-05-01T10:00:00.000Z',
    startedAt: '2025-05-01T10:00:01.000Z',
    finishedAt: '2025-05-01T10:01:00.000Z',
    sourceCloudAccount: { id: 'aws-1', name: 'Main archive' },
    destinationCloudAccount: { id: 'azure-1', name: 'Blob store' },
    sourceBucket: 'media',
    destinationBucket: 'media-copy',
    sourcePath: '',
    destinationPath: '',
    skipExisting: false,
    bandwidthLimit: null,
    syncJobId: null,
    syncCycleId: null,
    retryOf: null,
    Retried: false,
    createdBy: buildProfile().id,
    error: null,
    ...overrides,
  };
}

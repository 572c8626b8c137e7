import type { HybrikJob, HybrikProfile, HybrikProfilesBucket } from '@cumulo/contract';
import type { HybrikJobRow, HybrikProfileRow, HybrikSettingsRow } from './hybrik.repo.ts';

export const toProfilesBucket = (row: HybrikSettingsRow): HybrikProfilesBucket => ({
  cloud_account_id: row.cloudAccountId,
  bucket_name: row.bucket,
  path: row.path,
});

export const toHybrikProfile = (row: HybrikProfileRow): HybrikProfile => ({
  id: row.id,
  name: row.name,
  created_at: row.createdAt.toISOString(),
  definitions: row.definitions,
  object: `s3://${row.bucket}/${row.objectKey}`,
});

export const toHybrikJob = (row: HybrikJobRow): HybrikJob => ({
  id: row.id,
  name: row.name,
  profile_id: row.profileId,
  status: row.status,
  creation_time: row.createdAt.toISOString(),
  end_time: row.endedAt?.toISOString() ?? null,
  progress: row.progress,
  error: row.error,
  outputs: row.outputs,
});

import type { EncodingJob } from '@cumulo/contract';
import type { EncodingJobRow } from './encoding.repo.ts';

/** A job row → spec 001 §3 "Encoding job". */
export function toEncodingJob(row: EncodingJobRow): EncodingJob {
  return {
    id: row.id,
    media_id: `${row.sourceCloudAccountId}/${row.sourceBucket}/${row.sourcePath}`,
    status: row.status,
    progress: row.progress,
    time_left: row.timeLeft,
    finished: row.finishedAt ? row.finishedAt.toISOString() : null,
    error: row.error,
    preset: { category: row.category, name: row.preset },
    source: {
      cloud_account_id: row.sourceCloudAccountId,
      bucket_name: row.sourceBucket,
      path: row.sourcePath,
    },
    destination: {
      cloud_account_id: row.destinationCloudAccountId,
      bucket_name: row.destinationBucket,
      path: row.destinationPath,
    },
    outputs: row.outputs,
    created_by: row.userId,
    created_at: row.createdAt.toISOString(),
  };
}

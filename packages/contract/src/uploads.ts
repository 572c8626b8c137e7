import { z } from 'zod';
import { BYTES_MAX, COUNT_MAX, text } from './text.ts';

/**
 * Direct browser uploads (spec 001 §2 /S3Direct and /wasabi, §4 "Direct upload", §7 signer/report/bucket config,
 * §9 constants). Bytes go from the browser straight to the store; the server only opens, signs, completes and
 * aborts. An upload session is kept server-side, keyed by the local file's fingerprint, so the same file picked
 * again after a reload resumes from the parts the provider already holds.
 */

export const MiB = 1024 * 1024;

/** Spec 001 §9 "Upload part size": at least 5 MiB, total / 10 000 rounded up, at most 5 GiB. */
export const UPLOAD_PART_MIN = 5 * MiB;
export const UPLOAD_PART_MAX = 5 * 1024 * MiB;
export const UPLOAD_MAX_PARTS = 10_000;
/** §9: parts in flight per file, files in parallel, retries per part. */
export const UPLOAD_CONCURRENT_PARTS = 5;
export const UPLOAD_PARALLEL_FILES = 2;
export const UPLOAD_RETRIES = 3;
/**
 * Issue 21, folder uploads: files of one part or less are sent many at a time (one PUT each, bounded), and opened
 * and completed in batches of up to UPLOAD_BATCH_MAX files per call instead of three calls per file.
 */
export const UPLOAD_SMALL_FILES_IN_FLIGHT = 24;
export const UPLOAD_BATCH_MAX = 100;
/** §9: progress shown at most once a second; a warning lasting 10 s becomes an error. */
export const UPLOAD_PROGRESS_INTERVAL_MS = 1000;
export const UPLOAD_WARNING_TO_ERROR_MS = 10_000;

/** The part size of a file of `size` bytes (spec 001 §9). */
export function uploadPartSize(size: number): number {
  return Math.min(UPLOAD_PART_MAX, Math.max(UPLOAD_PART_MIN, Math.ceil(size / UPLOAD_MAX_PARTS)));
}

/** §9 "Access control options"; private is the default. */
export const ACCESS_CONTROL_OPTIONS = [
  'private',
  'public-read',
  'public-read-write',
  'aws-exec-read',
  'authenticated-read',
  'bucket-owner-read',
  'bucket-owner-full-control',
] as const;
export type AccessControl = (typeof ACCESS_CONTROL_OPTIONS)[number];

/** Per-file status of the upload list (spec 001 §4). */
export const UPLOAD_STATUSES = ['queued', 'started', 'uploading', 'complete', 'exception'] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];
/** Directory upload status codes (spec 001 §4). */
export const DIRECTORY_UPLOAD_STATUS = { running: 2, done: 3, stop: 4 } as const;

/** Texts of spec 001 §8 "Upload" and §5. */
export const uploadMessages = {
  completeTitle: 'Upload Complete',
  complete: (name: string, bucket: string) => `${name} uploaded to ${bucket} successfully`,
  failedTitle: 'Upload Failed',
  failed: 'An error occured while trying to upload your file, please try again.',
  network: 'A network error occurred. This could be a CORS issue or a dropped internet connection.',
  corsFailed: 'Cors application failed',
  corsApply: 'Click apply to fix cors settings on the destination bucket',
  cancelled: 'Upload cancelled',
  selectBucket: 'Please select a bucket before uploading.',
  directoryOnFreePlan: 'You can not use upload directory feature while on free plan',
  quotaTitle: 'Transfers Quota Limit',
  hiddenSkipped: (count: number) => `${count} hidden file${count === 1 ? '' : 's'} skipped`,
  filesFailed: (count: number, name: string) =>
    `${count} file${count === 1 ? '' : 's'} of ${name} could not be uploaded. Use Retry failed to try again.`,
  corsNeeded:
    "This bucket's CORS settings do not let this site upload to it yet: the browser would refuse every file.",
  corsApplied: (bucket: string) => `CORS settings of ${bucket} updated so this site can upload to it.`,
  corsAskAdmin: 'Ask an Owner or an Admin of your organisation to apply them, then upload again.',
} as const;

/**
 * How the browser sends the parts:
 * - `single`: one PUT of the whole file to `urls[0]` (files up to one part).
 * - `s3-multipart`: a PUT of each part to its presigned UploadPart URL; the answer's ETag header is the part's etag.
 * - `azure-blocks`: a PUT of each part to its Put Block URL (SAS); no etag (the block id is fixed by the server).
 * - `gcs-resumable`: PUTs of consecutive chunks to one session URL with Content-Range, in order.
 */
export const UPLOAD_MODES = ['single', 's3-multipart', 'azure-blocks', 'gcs-resumable'] as const;
export type UploadMode = (typeof UPLOAD_MODES)[number];

/** POST /transfers/uploads — opens (or resumes) an upload session for one file. */
export const startUploadBody = z.object({
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
  /** Object key: the folder shown in the browser plus the file's relative path, no leading slash. */
  key: text({ max: 1024 }).min(1),
  size: z
    .number()
    .int()
    .nonnegative()
    .max(5 * 1024 ** 4),
  content_type: text({ max: 255 }).optional(),
  /** Identifies the local file (name, size, lastModified): the same fingerprint resumes an active session. */
  fingerprint: text({ max: 512 }).min(1),
  acl: z.enum(ACCESS_CONTROL_OPTIONS).optional(),
  /** aws only: use the transfer-acceleration endpoint. */
  s3Acceleration: z.boolean().optional(),
});
export type StartUploadBody = z.infer<typeof startUploadBody>;
/** POST /storage/{id}/content/upload: the same session start, the account and bucket taken from the storage id. */
export const storageUploadBody = startUploadBody.omit({ cloud_account_id: true, bucket_name: true });
export type StorageUploadBody = z.infer<typeof storageUploadBody>;

/**
 * POST /transfers/uploads/batch — opens sessions for up to UPLOAD_BATCH_MAX small files (each at most one part,
 * UPLOAD_PART_MIN) to one bucket and signs each file's single PUT, in one round trip.
 */
export const startUploadBatchBody = z.object({
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
  acl: z.enum(ACCESS_CONTROL_OPTIONS).optional(),
  s3Acceleration: z.boolean().optional(),
  files: z
    .array(
      z.object({
        key: text({ max: 1024 }).min(1),
        size: z.number().int().nonnegative().max(UPLOAD_PART_MIN),
        content_type: text({ max: 255 }).optional(),
        fingerprint: text({ max: 512 }).min(1),
      }),
    )
    .min(1)
    .max(UPLOAD_BATCH_MAX),
});
export type StartUploadBatchBody = z.infer<typeof startUploadBatchBody>;
export const startUploadBatchAnswer = z.object({
  /** In the order of the request's files. */
  files: z.array(
    z.object({
      session_id: z.string(),
      key: z.string(),
      url: z.string(),
      /**
       * PUT: the file as the body, with `headers`. POST: a form of `form_fields`, this file's `fields`, `key`,
       * `Content-Type`, `file`.
       */
      method: z.enum(['PUT', 'POST']),
      headers: z.record(z.string(), z.string()),
      /** POST: this file's own policy (its exact key and size) and signature; empty for a PUT. */
      fields: z.record(z.string(), z.string()),
    }),
  ),
  /** The form fields every POST of this batch carries (S3 family); null when each file has its PUT. */
  form_fields: z.record(z.string(), z.string()).nullable(),
});
export type StartUploadBatchAnswer = z.infer<typeof startUploadBatchAnswer>;

/** POST /transfers/uploads/batch/complete — checks and completes up to UPLOAD_BATCH_MAX of the caller's sessions. */
export const completeUploadBatchBody = z.object({
  session_ids: z.array(z.uuid()).min(1).max(UPLOAD_BATCH_MAX),
});
export const completeUploadBatchAnswer = z.object({
  files: z.array(
    z.object({
      session_id: z.string(),
      key: z.string(),
      /** null when the file is in the bucket with its size; otherwise why it is not. */
      error: z.string().nullable(),
    }),
  ),
});
export type CompleteUploadBatchAnswer = z.infer<typeof completeUploadBatchAnswer>;

export const uploadedPart = z.object({
  part_number: z.number().int().min(1).max(UPLOAD_MAX_PARTS),
  size: z.number().int().nonnegative(),
  etag: z.string().nullable(),
});
export type UploadedPart = z.infer<typeof uploadedPart>;

export const uploadSession = z.object({
  session_id: z.string(),
  mode: z.enum(UPLOAD_MODES),
  part_size: z.number().int().positive(),
  parts_total: z.number().int().positive(),
  /** Parts the provider already holds (resume); empty for a new session. */
  finished_parts: z.array(uploadedPart),
  resumed: z.boolean(),
});
export type UploadSession = z.infer<typeof uploadSession>;

/** GET /transfers/url_signer_v4?session_id&part_numbers=1,2,3 — short-lived URLs for the next parts. */
export const signPartsQuery = z.object({
  session_id: z.uuid(),
  /** Comma-separated part numbers (at most 100 per call). */
  part_numbers: text({ max: 1024 }).regex(/^\d+(,\d+){0,99}$/),
});
export const signedPart = z.object({
  part_number: z.number().int(),
  url: z.string(),
  method: z.literal('PUT'),
  /** Headers the browser must send with the PUT (e.g. x-ms-blob-type, Content-Range for gcs). */
  headers: z.record(z.string(), z.string()),
});
export const signPartsAnswer = z.object({ parts: z.array(signedPart) });
export type SignedPart = z.infer<typeof signedPart>;

/**
 * GET /transfers/s3_url_signer_v4: one Signature V4 presigned URL of one object of an S3-family account (aws,
 * wasabi, backblaze, generic S3, filebase): GET to read it, PUT to write it in one request. Files larger than one
 * part go through the upload session calls instead.
 */
export const s3SignerQuery = z.object({
  cloud_account_id: z.uuid({ error: 'Choose a cloud account.' }),
  bucket_name: text({ error: 'Choose a bucket.', max: 255 }).min(1, 'Choose a bucket.'),
  key: text({ max: 1024 }).min(1),
  method: z.enum(['GET', 'PUT']).default('GET'),
  content_type: text({ max: 255 }).optional(),
});
export type S3SignerQuery = z.infer<typeof s3SignerQuery>;
export const s3SignedUrl = z.object({
  url: z.string(),
  method: z.enum(['GET', 'PUT']),
  /** Headers the request must carry as signed (Content-Type of a PUT). */
  headers: z.record(z.string(), z.string()),
  expires_in: z.number(),
});
export type S3SignedUrl = z.infer<typeof s3SignedUrl>;

/** POST /transfers/uploads/{session_id}/complete */
export const completeUploadBody = z.object({
  parts: z
    .array(
      z.object({
        part_number: z.number().int().min(1).max(UPLOAD_MAX_PARTS),
        etag: text({ max: 1024 }).nullable(),
      }),
    )
    .max(UPLOAD_MAX_PARTS),
});
export const completeUploadAnswer = z.object({
  key: z.string(),
  size: z.number(),
  etag: z.string().nullable(),
});

/** DELETE /transfers/uploads/{session_id} aborts: nothing partial stays with the provider. */
export const abortUploadAnswer = z.object({ message: z.string() });

/** PUT /transfers/update_bucket_config/ (spec 001 §7). */
export const updateBucketConfigBody = z.object({
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
  /** Allow this app's origin to PUT parts and read ETag. */
  cors: z.boolean().optional(),
  s3Acceleration: z.boolean().optional(),
  /** Add a lifecycle rule aborting multipart uploads left incomplete for a day. */
  cleanup_incomplete_multipart: z.boolean().optional(),
});
export const updateBucketConfigAnswer = z.object({
  message: z.string(),
  cors: z.string().nullable().optional(),
  s3_acceleration: z.string().nullable().optional(),
});

/** GET /transfers/bucket_config — whether the bucket lets this app's pages upload, asked before the first upload. */
export const bucketCorsQuery = z.object({
  cloud_account_id: z.uuid(),
  bucket_name: text({ max: 255 }).min(1),
});
export const bucketCorsAnswer = z.object({
  /** true: a CORS rule lets this origin PUT and read ETag; false: none does; null: the provider cannot tell. */
  cors_ready: z.boolean().nullable(),
  /** The caller's role may apply the rule (`bucket.configure`). */
  may_apply: z.boolean(),
});
export type BucketCorsAnswer = z.infer<typeof bucketCorsAnswer>;

/** POST /transfers/report (spec 001 §3 "Upload report"). */
/** Longest upload duration a report takes, in its unit: anything longer is not a real measurement. */
const UPLOAD_DURATION_MAX = 1e12;
const reportedFile = z.object({
  name: text({ max: 1024 }).min(1),
  bucket_name: text({ max: 255 }).min(1),
  cloud_account_id: z.uuid(),
  contentType: text({ max: 255 }).optional().nullable(),
  size: z.number().int().nonnegative().max(BYTES_MAX),
  duration: z.number().nonnegative().max(UPLOAD_DURATION_MAX),
});
const reportedDirectory = z.object({
  is_directory: z.literal(true),
  name: text({ max: 1024 }).min(1),
  bucket_name: text({ max: 255 }).min(1),
  cloud_account_id: z.uuid(),
  size: z.number().int().nonnegative().max(BYTES_MAX),
  file_count: z.number().int().nonnegative().max(COUNT_MAX),
  duration: z.number().nonnegative().max(UPLOAD_DURATION_MAX),
});
export const uploadReportBody = z.object({
  s3_direct: z.object({
    direction: z.literal('upload'),
    s3Acceleration: z.boolean().optional(),
    files: z
      .array(z.union([reportedDirectory, reportedFile]))
      .min(1)
      .max(10_000),
  }),
});
export type UploadReportBody = z.infer<typeof uploadReportBody>;

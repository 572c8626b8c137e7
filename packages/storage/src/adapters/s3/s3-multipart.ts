import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  type ObjectCannedACL,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { ContentHeaders, DirectUploadPart } from '../../object-store.ts';
import { UNTYPED, sdkFieldsOf, taggingOf } from './s3-content-headers.ts';

/**
 * The multipart calls shared by uploads the browser sends (s3-direct-upload.ts) and uploads the server sends
 * (s3-parts.ts). They throw the SDK's own errors: each caller maps them in its own terms.
 */

/** A multipart upload as the S3 API names it. */
export interface S3UploadRef {
  bucket: string;
  key: string;
  uploadId: string;
}

export const stripQuotes = (etag: string | undefined): string | null =>
  etag ? etag.replace(/^"+|"+$/g, '') : null;

/** CopySource is "bucket/key" with each key segment URL-encoded (S3 decodes it once; `/` stays a separator). */
export function copySourceOf(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/** Opens an upload; content type and headers, canned ACL and user metadata are fixed here and kept by the object. */
export async function createUpload(
  client: S3Client,
  bucket: string,
  key: string,
  options: {
    contentType?: string;
    contentHeaders?: ContentHeaders;
    acl?: string;
    metadata?: Record<string, string>;
    tags?: Record<string, string>;
  },
): Promise<string> {
  const answer = await client.send(
    new CreateMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      ContentType: options.contentType || UNTYPED,
      ...sdkFieldsOf(options.contentHeaders),
      ACL: options.acl as ObjectCannedACL | undefined,
      Metadata: options.metadata,
      Tagging: taggingOf(options.tags),
    }),
  );
  if (!answer.UploadId) throw new Error('The provider opened the upload without an upload id');
  return answer.UploadId;
}

/** Every part the store holds, in part order (ListParts answers at most 1000 a page; an upload may have 10 000). */
export async function listUploadParts(client: S3Client, upload: S3UploadRef): Promise<DirectUploadPart[]> {
  const parts: DirectUploadPart[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = await client.send(
      new ListPartsCommand({
        Bucket: upload.bucket,
        Key: upload.key,
        UploadId: upload.uploadId,
        PartNumberMarker: marker,
      }),
    );
    for (const part of page.Parts ?? []) {
      if (part.PartNumber === undefined) continue;
      parts.push({ partNumber: part.PartNumber, size: part.Size ?? 0, etag: stripQuotes(part.ETag) });
    }
    if (!page.IsTruncated || !page.NextPartNumberMarker) break;
    marker = page.NextPartNumberMarker;
  }
  return parts.sort((a, b) => a.partNumber - b.partNumber);
}

/**
 * The uploads in progress of exactly `key`, oldest first. S3 lists by key then initiation, so with the key as prefix
 * the pages run from `key` itself to the keys it begins; the listing stops at the first other key.
 */
export async function listKeyUploads(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<Array<{ uploadId: string; initiated: Date | null }>> {
  const uploads: Array<{ uploadId: string; initiated: Date | null }> = [];
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const page = await client.send(
      new ListMultipartUploadsCommand({
        Bucket: bucket,
        Prefix: key,
        KeyMarker: keyMarker,
        UploadIdMarker: uploadIdMarker,
      }),
    );
    for (const upload of page.Uploads ?? []) {
      if (upload.Key !== key) return uploads;
      if (upload.UploadId) uploads.push({ uploadId: upload.UploadId, initiated: upload.Initiated ?? null });
    }
    if (!page.IsTruncated || !page.NextKeyMarker) return uploads;
    keyMarker = page.NextKeyMarker;
    uploadIdMarker = page.NextUploadIdMarker;
  }
}

/** Assembles the object; S3 wants the parts in ascending order whatever order they were sent in. */
export async function completeUpload(
  client: S3Client,
  upload: S3UploadRef,
  parts: Array<{ partNumber: number; etag: string | null }>,
): Promise<{ etag: string | null }> {
  const answer = await client.send(
    new CompleteMultipartUploadCommand({
      Bucket: upload.bucket,
      Key: upload.key,
      UploadId: upload.uploadId,
      MultipartUpload: {
        Parts: [...parts]
          .sort((a, b) => a.partNumber - b.partNumber)
          .map((part) => ({ PartNumber: part.partNumber, ETag: part.etag ?? undefined })),
      },
    }),
  );
  return { etag: stripQuotes(answer.ETag) };
}

/** Discards an upload and its parts. */
export async function abortUpload(client: S3Client, upload: S3UploadRef): Promise<void> {
  try {
    await client.send(
      new AbortMultipartUploadCommand({ Bucket: upload.bucket, Key: upload.key, UploadId: upload.uploadId }),
    );
  } catch (error) {
    // Already completed, aborted or expired by a lifecycle rule: nothing is left, which is the goal.
    if (error instanceof Error && error.name === 'NoSuchUpload') return;
    throw error;
  }
}

import { UploadPartCommand, UploadPartCopyCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ObjectStoreCapabilities } from '../../object-store.ts';
import { PART_LIMITS } from '../../part-size.ts';
import type { S3Provider } from '../../store-config.ts';
import { isAbortError, toStorageError } from './s3-errors.ts';
import {
  abortUpload,
  completeUpload,
  copySourceOf,
  createUpload,
  listUploadParts,
  stripQuotes,
} from './s3-multipart.ts';

type Parts = NonNullable<ObjectStoreCapabilities['parts']>;

/**
 * Multipart uploads the server sends itself (the transfer engine), on the account's one client. Each part carries
 * the Content-MD5 the engine computed, so the store refuses a part damaged on the way (BadDigest) instead of
 * assembling it into the object.
 */
export function s3Parts(client: S3Client, provider: S3Provider): Parts {
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (isAbortError(error)) throw error;
      throw toStorageError(error, provider);
    }
  };
  return {
    limits: { ...PART_LIMITS.s3 },

    start: (bucket, key, options) =>
      call(() =>
        createUpload(client, bucket, key, { contentType: options.contentType, metadata: options.metadata }),
      ),

    uploadPart: (upload, partNumber, body, options) =>
      call(async () => {
        const answer = await client.send(
          new UploadPartCommand({
            Bucket: upload.bucket,
            Key: upload.key,
            UploadId: upload.uploadId,
            PartNumber: partNumber,
            Body: body,
            ContentLength: body.length,
            ContentMD5: Buffer.from(options.md5, 'hex').toString('base64'),
          }),
          { abortSignal: options.signal },
        );
        return { etag: stripQuotes(answer.ETag) };
      }),

    copyPart: (upload, partNumber, source, range, options) =>
      call(async () => {
        const answer = await client.send(
          new UploadPartCopyCommand({
            Bucket: upload.bucket,
            Key: upload.key,
            UploadId: upload.uploadId,
            PartNumber: partNumber,
            CopySource: copySourceOf(source.bucket, source.key),
            CopySourceRange: `bytes=${range.start}-${range.end}`,
          }),
          { abortSignal: options.signal },
        );
        return { etag: stripQuotes(answer.CopyPartResult?.ETag) };
      }),

    listParts: (upload) => call(() => listUploadParts(client, upload)),

    // S3 fixed content type and metadata when the upload started; it keeps no whole-object MD5 of its own.
    complete: (upload, parts) => call(() => completeUpload(client, upload, parts)),

    abort: (upload) => call(() => abortUpload(client, upload)),
  };
}

/**
 * With the SDK's default checksums (real AWS), every UploadPart also carries a CRC32, and S3 refuses it on an
 * upload opened without a checksum algorithm ("Checksum Type mismatch occurred, expected checksum Type: null").
 * A part that already carries Content-MD5 is checked by the store anyway, so the CRC32 is dropped from it. Parts
 * sent by lib-storage carry no Content-MD5 and keep the SDK's checksums (lib-storage opens its uploads with
 * CRC32 and completes them with the part checksums).
 */
export function useContentMd5ForParts(client: S3Client): void {
  client.middlewareStack.addRelativeTo(
    <Args extends { request: unknown }, Output>(
      next: (args: Args) => Promise<Output>,
      context: { commandName?: string },
    ) =>
      async (args: Args): Promise<Output> => {
        const headers = headersOf(args.request);
        if (context.commandName === 'UploadPartCommand' && headers && 'content-md5' in lowerKeys(headers)) {
          for (const header of Object.keys(headers)) {
            if (/^x-amz-(sdk-)?checksum-/i.test(header)) delete headers[header];
          }
        }
        return next(args);
      },
    // After the SDK's checksum middleware (build step) has added its CRC32, before the request is signed.
    { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'cumuloUploadPartContentMd5' },
  );
}

function headersOf(request: unknown): Record<string, string> | null {
  if (typeof request !== 'object' || request === null) return null;
  const { headers } = request as { headers?: unknown };
  return typeof headers === 'object' && headers !== null ? (headers as Record<string, string>) : null;
}

const lowerKeys = (headers: Record<string, string>): Record<string, true> =>
  Object.fromEntries(Object.keys(headers).map((name) => [name.toLowerCase(), true as const]));

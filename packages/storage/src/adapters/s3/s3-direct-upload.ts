import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type ObjectCannedACL,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { DirectUploadPart, ObjectStoreCapabilities } from '../../object-store.ts';
import type { S3Provider } from '../../store-config.ts';
import { toStorageError } from './s3-errors.ts';

type DirectUpload = NonNullable<ObjectStoreCapabilities['directUpload']>;

/** A signed Content-Type must come back with the same value in the browser's PUT. */
const contentTypeHeader = (contentType: string | undefined): Record<string, string> =>
  contentType ? { 'Content-Type': contentType } : {};

const stripQuotes = (etag: string | undefined): string | null => (etag ? etag.replace(/^"+|"+$/g, '') : null);

export interface S3DirectUploadClients {
  /** The account's client, for the calls the server makes itself. */
  client: S3Client;
  /**
   * The client that presigns. Its checksum calculation must be WHEN_REQUIRED: otherwise each URL carries the
   * CRC32 of an empty body (`x-amz-checksum-crc32`) and the store refuses the browser's real bytes.
   */
  signer: (accelerate: boolean) => S3Client;
}

/** Multipart uploads the browser sends through presigned UploadPart URLs (the S3 family). */
export function s3DirectUpload(clients: S3DirectUploadClients, provider: S3Provider): DirectUpload {
  const { client, signer } = clients;
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw toStorageError(error, provider);
    }
  };
  return {
    start: (bucket, key, options) =>
      call(async () => {
        const answer = await client.send(
          new CreateMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            ContentType: options.contentType,
            ACL: options.acl as ObjectCannedACL | undefined,
          }),
        );
        if (!answer.UploadId) throw new Error('The provider opened the upload without an upload id');
        return answer.UploadId;
      }),

    signParts: (upload, partNumbers, options) =>
      call(async () => {
        const presigner = signer(options.accelerate === true);
        return Promise.all(
          partNumbers.map(async (partNumber) => ({
            partNumber,
            url: await getSignedUrl(
              presigner,
              new UploadPartCommand({
                Bucket: upload.bucket,
                Key: upload.key,
                UploadId: upload.uploadId,
                PartNumber: partNumber,
              }),
              { expiresIn: options.expiresInSeconds },
            ),
            headers: {},
          })),
        );
      }),

    signSingle: (bucket, key, options) =>
      call(async () => {
        const url = await getSignedUrl(
          signer(options.accelerate === true),
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            ContentType: options.contentType,
            ACL: options.acl as ObjectCannedACL | undefined,
          }),
          // The presigner moves x-amz-acl into the query string; Content-Type stays a signed header.
          { expiresIn: options.expiresInSeconds },
        );
        return {
          partNumber: 1,
          url,
          headers: contentTypeHeader(options.contentType),
        };
      }),

    listParts: (upload) =>
      call(async () => {
        const parts: DirectUploadPart[] = [];
        let marker: string | undefined;
        // ListParts answers at most 1000 parts a page; an upload may have 10 000.
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
      }),

    complete: (upload, parts) =>
      call(async () => {
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
      }),

    abort: async (upload) => {
      try {
        await client.send(
          new AbortMultipartUploadCommand({
            Bucket: upload.bucket,
            Key: upload.key,
            UploadId: upload.uploadId,
          }),
        );
      } catch (error) {
        // Already completed, aborted or expired by a lifecycle rule: nothing is left, which is the goal.
        if (error instanceof Error && error.name === 'NoSuchUpload') return;
        throw toStorageError(error, provider);
      }
    },
  };
}

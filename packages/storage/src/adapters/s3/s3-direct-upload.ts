import { PutObjectCommand, UploadPartCommand, type ObjectCannedACL, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ObjectStoreCapabilities } from '../../object-store.ts';
import type { S3Provider } from '../../store-config.ts';
import { toStorageError } from './s3-errors.ts';
import { abortUpload, completeUpload, createUpload, listUploadParts } from './s3-multipart.ts';

type DirectUpload = NonNullable<ObjectStoreCapabilities['directUpload']>;

/** A signed Content-Type must come back with the same value in the browser's PUT. */
const contentTypeHeader = (contentType: string | undefined): Record<string, string> =>
  contentType ? { 'Content-Type': contentType } : {};

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
      call(() => createUpload(client, bucket, key, { contentType: options.contentType, acl: options.acl })),

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

    listParts: (upload) => call(() => listUploadParts(client, upload)),

    complete: (upload, parts) => call(() => completeUpload(client, upload, parts)),

    abort: (upload) => call(() => abortUpload(client, upload)),
  };
}

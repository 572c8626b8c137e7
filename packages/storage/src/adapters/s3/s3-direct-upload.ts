import { PutObjectCommand, UploadPartCommand, type ObjectCannedACL, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createScope, getSigningKey } from '@smithy/signature-v4';
import type { DirectUploadForm, ObjectStoreCapabilities } from '../../object-store.ts';
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

    signForm: (bucket, options) => call(() => signPostForm(signer(false), bucket, options)),

    listParts: (upload) => call(() => listUploadParts(client, upload)),

    complete: (upload, parts) => call(() => completeUpload(client, upload, parts)),

    abort: (upload) => call(() => abortUpload(client, upload)),
  };
}

/** '20151229T000000Z' and '20151229' of `date`, as SigV4 writes them. */
function amzDates(date: Date): { amzDate: string; shortDate: string } {
  const amzDate = date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return { amzDate, shortDate: amzDate.slice(0, 8) };
}

/**
 * An S3 POST policy (SigV4, "Browser-Based Uploads Using POST"): the policy document is the string to sign, with
 * the SDK's own signing key and hash (no signing of our own beyond that last HMAC). The form's URL is the one the
 * presigner resolves for the bucket (path style or virtual-hosted, custom endpoint), without the object key.
 */
export async function signPostForm(
  presigner: S3Client,
  bucket: string,
  options: { files: Array<{ key: string; size: number }>; expiresInSeconds: number; acl?: string },
  now = new Date(),
): Promise<DirectUploadForm> {
  const probeKey = 'k';
  const probe = new URL(
    await getSignedUrl(presigner, new PutObjectCommand({ Bucket: bucket, Key: probeKey }), { expiresIn: 60 }),
  );
  const url = `${probe.origin}${probe.pathname.slice(0, -probeKey.length)}`;
  const credentials = await presigner.config.credentials();
  const region = await presigner.config.region();
  const { amzDate, shortDate } = amzDates(now);
  const credential = `${credentials.accessKeyId}/${createScope(shortDate, region, 's3')}`;
  const fields: Record<string, string> = {
    'x-amz-algorithm': 'AWS4-HMAC-SHA256',
    'x-amz-credential': credential,
    'x-amz-date': amzDate,
    ...(options.acl ? { acl: options.acl } : {}),
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  const expiration = new Date(now.getTime() + options.expiresInSeconds * 1000).toISOString();
  const signingKey = await getSigningKey(presigner.config.sha256, credentials, shortDate, region, 's3');
  const perFile = await Promise.all(
    options.files.map(async (file) => {
      const policy = Buffer.from(
        JSON.stringify({
          expiration,
          conditions: [
            { bucket },
            { key: file.key },
            ['starts-with', '$Content-Type', ''],
            ['content-length-range', file.size, file.size],
            ...Object.entries(fields).map(([name, value]) => ({ [name]: value })),
          ],
        }),
      ).toString('base64');
      const hmac = new presigner.config.sha256(signingKey);
      hmac.update(policy);
      return { policy, 'x-amz-signature': Buffer.from(await hmac.digest()).toString('hex') };
    }),
  );
  return { url, fields, perFile };
}

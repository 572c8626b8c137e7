import {
  AbortMultipartUploadCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';

/**
 * Direct calls on a test s3rver, for tests that check what Cumulo left with the provider (the multipart uploads
 * it holds), or that act behind its back as another tool or a lifecycle rule would.
 */
export interface MultipartUploadsView {
  /** The uploads open in a bucket (under a prefix), in S3's order: by key, then by initiation. */
  openUploads(bucket: string, prefix?: string): Promise<Array<{ key: string; uploadId: string }>>;
  abortUpload(bucket: string, key: string, uploadId: string): Promise<void>;
  /**
   * One PutObject of the whole body, however large (up to S3's 5 GiB), as a tool that uploads whole files does:
   * the object's ETag is then its MD5, where Cumulo's own writes above 8 MiB go in parts.
   */
  putWhole(
    bucket: string,
    key: string,
    body: Buffer,
    fields?: Omit<PutObjectCommandInput, 'Bucket' | 'Key' | 'Body'>,
  ): Promise<void>;
}

export function multipartUploadsView(endpoint: string, key: string): MultipartUploadsView {
  const withClient = async <T>(run: (client: S3Client) => Promise<T>): Promise<T> => {
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: key, secretAccessKey: key },
      // No CRC32 trailer on PutObject (s3rver would store the chunk framing as the body).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      maxAttempts: 1,
    });
    try {
      return await run(client);
    } finally {
      client.destroy();
    }
  };
  return {
    openUploads: (bucket, prefix) =>
      withClient(async (client) => {
        const answer = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }));
        return (answer.Uploads ?? []).map((upload) => ({
          key: upload.Key ?? '',
          uploadId: upload.UploadId ?? '',
        }));
      }),
    abortUpload: (bucket, objectKey, uploadId) =>
      withClient(async (client) => {
        await client.send(
          new AbortMultipartUploadCommand({ Bucket: bucket, Key: objectKey, UploadId: uploadId }),
        );
      }),
    putWhole: (bucket, objectKey, body, fields = {}) =>
      withClient(async (client) => {
        await client.send(new PutObjectCommand({ ...fields, Bucket: bucket, Key: objectKey, Body: body }));
      }),
  };
}

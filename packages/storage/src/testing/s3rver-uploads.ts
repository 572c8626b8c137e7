import { AbortMultipartUploadCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';

/**
 * Direct calls on the multipart uploads a test s3rver holds, for tests that check what Cumulo left with the
 * provider, or that act behind its back as another tool or a lifecycle rule would.
 */
export interface MultipartUploadsView {
  /** The uploads open in a bucket (under a prefix), in S3's order: by key, then by initiation. */
  openUploads(bucket: string, prefix?: string): Promise<Array<{ key: string; uploadId: string }>>;
  abortUpload(bucket: string, key: string, uploadId: string): Promise<void>;
}

export function multipartUploadsView(endpoint: string, key: string): MultipartUploadsView {
  const withClient = async <T>(run: (client: S3Client) => Promise<T>): Promise<T> => {
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: key, secretAccessKey: key },
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
  };
}

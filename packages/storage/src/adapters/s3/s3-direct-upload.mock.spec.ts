import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../object-store.ts';
import { S3ObjectStore } from './s3-store.ts';

const MiB = 1024 * 1024;

const stores: S3ObjectStore[] = [];
function buildStore(): S3ObjectStore {
  const store = new S3ObjectStore(
    {
      provider: 'aws',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    },
    { maxAttempts: 1 },
  );
  stores.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

function directOf(store: S3ObjectStore) {
  const direct = store.capabilities.directUpload;
  if (!direct) throw new Error('the S3 adapter must declare directUpload');
  return direct;
}

const upload = { bucket: 'media', key: 'big.iso', uploadId: 'up-7', size: 40 * MiB, partSize: 5 * MiB };

describe('S3 direct upload with aws-sdk-client-mock (wire format and error answers of ListParts, AbortMultipartUpload and CreateMultipartUpload)', () => {
  it('opens the multipart upload with the content type and the canned ACL', async () => {
    const store = buildStore();
    const s3 = mockClient(store.client);
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'up-1' });

    const id = await directOf(store).start('media', 'a.mov', {
      size: 20 * MiB,
      partSize: 5 * MiB,
      contentType: 'video/quicktime',
      acl: 'bucket-owner-full-control',
    });

    expect(id).toBe('up-1');
    expect(s3.commandCalls(CreateMultipartUploadCommand)[0]?.args[0].input).toEqual({
      Bucket: 'media',
      Key: 'a.mov',
      ContentType: 'video/quicktime',
      ACL: 'bucket-owner-full-control',
    });
    s3.restore();
  });

  it('lists the parts the provider holds across ListParts pages, with unquoted ETags', async () => {
    const store = buildStore();
    const s3 = mockClient(store.client);
    s3.on(ListPartsCommand, { PartNumberMarker: undefined }).resolves({
      Parts: [
        { PartNumber: 1, Size: 5 * MiB, ETag: '"e1"' },
        { PartNumber: 2, Size: 5 * MiB, ETag: '"e2"' },
      ],
      IsTruncated: true,
      NextPartNumberMarker: '2',
    });
    s3.on(ListPartsCommand, { PartNumberMarker: '2' }).resolves({
      Parts: [{ PartNumber: 4, Size: 5 * MiB, ETag: '"e4"' }],
      IsTruncated: false,
    });

    const parts = await directOf(store).listParts(upload);

    expect(parts).toEqual([
      { partNumber: 1, size: 5 * MiB, etag: 'e1' },
      { partNumber: 2, size: 5 * MiB, etag: 'e2' },
      { partNumber: 4, size: 5 * MiB, etag: 'e4' },
    ]);
    expect(s3.commandCalls(ListPartsCommand).map((call) => call.args[0].input)).toEqual([
      { Bucket: 'media', Key: 'big.iso', UploadId: 'up-7', PartNumberMarker: undefined },
      { Bucket: 'media', Key: 'big.iso', UploadId: 'up-7', PartNumberMarker: '2' },
    ]);
    s3.restore();
  });

  it('completes with the parts in order, whatever order the browser reported them in', async () => {
    const store = buildStore();
    const s3 = mockClient(store.client);
    s3.on(CompleteMultipartUploadCommand).resolves({ ETag: '"whole-3"' });

    const done = await directOf(store).complete(
      upload,
      [
        { partNumber: 2, etag: '"b"' },
        { partNumber: 1, etag: '"a"' },
      ],
      {},
    );

    expect(done).toEqual({ etag: 'whole-3' });
    expect(s3.commandCalls(CompleteMultipartUploadCommand)[0]?.args[0].input.MultipartUpload).toEqual({
      Parts: [
        { PartNumber: 1, ETag: '"a"' },
        { PartNumber: 2, ETag: '"b"' },
      ],
    });
    s3.restore();
  });

  it('aborts the multipart upload, and counts an upload already gone (NoSuchUpload) as aborted', async () => {
    const store = buildStore();
    const s3 = mockClient(store.client);
    s3.on(AbortMultipartUploadCommand)
      .resolvesOnce({})
      .rejects(
        new S3ServiceException({
          name: 'NoSuchUpload',
          $fault: 'client',
          $metadata: { httpStatusCode: 404 },
          message: 'The specified upload does not exist.',
        }),
      );

    await directOf(store).abort(upload);
    await directOf(store).abort(upload);

    expect(s3.commandCalls(AbortMultipartUploadCommand).map((call) => call.args[0].input)).toEqual([
      { Bucket: 'media', Key: 'big.iso', UploadId: 'up-7' },
      { Bucket: 'media', Key: 'big.iso', UploadId: 'up-7' },
    ]);
    s3.restore();
  });

  it('reports any other abort refusal as a StorageError with the provider message', async () => {
    const store = buildStore();
    const s3 = mockClient(store.client);
    s3.on(AbortMultipartUploadCommand).rejects(
      new S3ServiceException({
        name: 'AccessDenied',
        $fault: 'client',
        $metadata: { httpStatusCode: 403 },
        message: 'Access Denied',
      }),
    );

    const error = await directOf(store)
      .abort(upload)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: 'AccessDenied', message: 'Access Denied' });
    s3.restore();
  });
});

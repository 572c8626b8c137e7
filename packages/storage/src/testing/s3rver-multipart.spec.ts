import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from './servers.ts';

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

function clientFor(endpoint: string, accessKeyId = S3RVER_KEY) {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey: S3RVER_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
  });
}

/** What the SDK throws for an S3 error answer: the XML error code as name, and the HTTP status. */
async function failure(promise: Promise<unknown>) {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return { name: error?.name, status: error?.$metadata?.httpStatusCode };
}

describe('s3rver with the multipart calls it lacks or answers otherwise than S3', () => {
  let server: TestStoreServer;
  let s3: S3Client;
  const bucket = `multipart-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    server = await startS3rver();
    s3 = clientFor(server.endpoint);
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(async () => {
    s3?.destroy();
    await server?.stop();
  });

  async function open(key: string) {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    if (!UploadId) throw new Error('s3rver opened an upload without an id');
    return UploadId;
  }

  async function putPart(key: string, uploadId: string, partNumber: number, body: Buffer) {
    const { ETag } = await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: partNumber,
        Body: body,
      }),
    );
    return ETag;
  }

  const uploadsOf = async (input: { Prefix?: string } = {}) =>
    (await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, ...input }))).Uploads ?? [];

  it('lists the parts put so far with their number, size, quoted MD5 ETag and time, whole and paged', async () => {
    const key = 'videos/part listing.bin';
    const uploadId = await open(key);
    const bodies = [randomBytes(3000), randomBytes(2000), randomBytes(700)];
    const etags = [];
    for (const [index, body] of bodies.entries()) etags.push(await putPart(key, uploadId, index + 1, body));

    const whole = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));

    expect(whole).toMatchObject({
      Bucket: bucket,
      Key: key,
      UploadId: uploadId,
      PartNumberMarker: '0',
      NextPartNumberMarker: '3',
      MaxParts: 1000,
      IsTruncated: false,
      StorageClass: 'STANDARD',
    });
    expect(whole.Parts?.map(({ PartNumber, Size, ETag }) => ({ PartNumber, Size, ETag }))).toEqual(
      bodies.map((body, index) => ({ PartNumber: index + 1, Size: body.length, ETag: `"${md5(body)}"` })),
    );
    // The ETag ListParts gives is the one UploadPart answered, which CompleteMultipartUpload checks.
    expect(whole.Parts?.map((part) => part.ETag)).toEqual(etags);
    for (const part of whole.Parts ?? []) expect(part.LastModified).toBeInstanceOf(Date);

    const firstPage = await s3.send(
      new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MaxParts: 2 }),
    );
    expect(firstPage).toMatchObject({ MaxParts: 2, IsTruncated: true, NextPartNumberMarker: '2' });
    expect(firstPage.Parts?.map((part) => part.PartNumber)).toEqual([1, 2]);
    const secondPage = await s3.send(
      new ListPartsCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MaxParts: 2,
        PartNumberMarker: firstPage.NextPartNumberMarker,
      }),
    );
    expect(secondPage).toMatchObject({
      PartNumberMarker: '2',
      IsTruncated: false,
      NextPartNumberMarker: '3',
    });
    expect(secondPage.Parts?.map((part) => part.PartNumber)).toEqual([3]);

    const wrongKey = s3.send(
      new ListPartsCommand({ Bucket: bucket, Key: 'videos/other.bin', UploadId: uploadId }),
    );
    expect(await failure(wrongKey)).toEqual({ name: 'NoSuchUpload', status: 404 });
    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
  });

  it('lists open uploads by key with their initiation time, filtered by prefix and paged with markers', async () => {
    const a = await open('list/a.bin');
    const b1 = await open('list/b.bin');
    const b2 = await open('list/b.bin');
    const other = await open('elsewhere/c.bin');
    const before = Date.now();

    const listed = await uploadsOf({ Prefix: 'list/' });

    expect(listed.map(({ Key, UploadId }) => ({ Key, UploadId }))).toEqual([
      { Key: 'list/a.bin', UploadId: a },
      { Key: 'list/b.bin', UploadId: b1 },
      { Key: 'list/b.bin', UploadId: b2 },
    ]);
    for (const upload of listed) {
      expect(upload.Initiated).toBeInstanceOf(Date);
      expect(upload.Initiated?.getTime()).toBeLessThanOrEqual(before);
    }
    expect((await uploadsOf()).map((upload) => upload.UploadId)).toContain(other);

    const pages = [];
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await s3.send(
        new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: 'list/', MaxUploads: 2, ...markers }),
      );
      pages.push(page.Uploads?.map((upload) => upload.UploadId));
      if (!page.IsTruncated) break;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
    expect(pages).toEqual([[a, b1], [b2]]);
    // A key marker alone skips every upload of that key.
    const afterA = await s3.send(
      new ListMultipartUploadsCommand({ Bucket: bucket, KeyMarker: 'list/a.bin' }),
    );
    expect(afterA.Uploads?.map((upload) => upload.UploadId)).toEqual([b1, b2]);

    for (const [key, id] of [
      ['list/a.bin', a],
      ['list/b.bin', b1],
      ['list/b.bin', b2],
      ['elsewhere/c.bin', other],
    ] as const) {
      await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: id }));
    }
  });

  it('aborts an upload: 204, then it is gone from the listing and ListParts answers NoSuchUpload', async () => {
    const key = 'aborted/file.bin';
    const uploadId = await open(key);
    await putPart(key, uploadId, 1, randomBytes(1000));
    expect((await uploadsOf({ Prefix: 'aborted/' })).map((upload) => upload.UploadId)).toEqual([uploadId]);

    const aborted = await s3.send(
      new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }),
    );

    expect(aborted.$metadata.httpStatusCode).toBe(204);
    expect(await uploadsOf({ Prefix: 'aborted/' })).toEqual([]);
    const listParts = s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    expect(await failure(listParts)).toEqual({ name: 'NoSuchUpload', status: 404 });
    const again = s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    expect(await failure(again)).toEqual({ name: 'NoSuchUpload', status: 404 });
    const unknown = s3.send(
      new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: '../../../etc' }),
    );
    expect(await failure(unknown)).toEqual({ name: 'NoSuchUpload', status: 404 });
    const noBucket = s3.send(new ListMultipartUploadsCommand({ Bucket: `${bucket}-missing` }));
    expect(await failure(noBucket)).toEqual({ name: 'NoSuchBucket', status: 404 });
  });

  it('still completes an upload after its parts were listed, from the listed ETags', async () => {
    const key = 'completed/after listing.bin';
    const uploadId = await open(key);
    const bodies = [randomBytes(4000), randomBytes(1500)];
    for (const [index, body] of bodies.entries()) await putPart(key, uploadId, index + 1, body);
    const { Parts } = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));

    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: Parts?.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })) },
      }),
    );

    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const bytes = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    expect(md5(bytes)).toBe(md5(Buffer.concat(bodies)));
    expect(await uploadsOf({ Prefix: 'completed/' })).toEqual([]);
  });

  /** An object completed from `bodies` as its parts, and the completion's answer. */
  async function completedFrom(key: string, bodies: Buffer[]) {
    const uploadId = await open(key);
    const parts = [];
    for (const [index, body] of bodies.entries()) {
      parts.push({ PartNumber: index + 1, ETag: await putPart(key, uploadId, index + 1, body) });
    }
    return s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
  }

  it("gives an object completed from parts S3's ETag: the MD5 of the parts' MD5s and the part count", async () => {
    const bodies = [randomBytes(5000), randomBytes(5000), randomBytes(1234)];
    const composite = `${createHash('md5')
      .update(Buffer.concat(bodies.map((body) => createHash('md5').update(body).digest())))
      .digest('hex')}-3`;

    const completed = await completedFrom('layout/three.bin', bodies);

    expect(completed.ETag).toBe(`"${composite}"`);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'layout/three.bin' }));
    expect(head.ETag).toBe(`"${composite}"`);
    expect(head.ContentLength).toBe(11_234);
  });

  it('reads each part back by its number (GET and HEAD ?partNumber), with its range and the part count', async () => {
    const bodies = [randomBytes(5000), randomBytes(5000), randomBytes(1234)];
    await completedFrom('layout/by part.bin', bodies);

    const second = await s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: 'layout/by part.bin', PartNumber: 2 }),
    );
    expect(second.$metadata.httpStatusCode).toBe(206);
    expect(second.PartsCount).toBe(3);
    expect(second.ContentRange).toBe('bytes 5000-9999/11234');
    expect(Buffer.from((await second.Body?.transformToByteArray()) ?? [])).toEqual(bodies[1]);
    const last = await s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key: 'layout/by part.bin', PartNumber: 3 }),
    );
    expect({ length: last.ContentLength, parts: last.PartsCount }).toEqual({ length: 1234, parts: 3 });

    const beyond = s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key: 'layout/by part.bin', PartNumber: 4 }),
    );
    expect((await failure(beyond)).status).toBe(416);
    const withRange = s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: 'layout/by part.bin', PartNumber: 1, Range: 'bytes=0-9' }),
    );
    expect(await failure(withRange)).toEqual({ name: 'InvalidRequest', status: 400 });
  });

  it('reads an object written whole as one part, and forgets the layout once the object is written again', async () => {
    const whole = randomBytes(3000);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'layout/whole.bin', Body: whole }));
    const one = await s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key: 'layout/whole.bin', PartNumber: 1 }),
    );
    expect({ length: one.ContentLength, parts: one.PartsCount }).toEqual({ length: 3000, parts: undefined });
    const second = s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'layout/whole.bin', PartNumber: 2 }));
    expect((await failure(second)).status).toBe(416);

    await completedFrom('layout/rewritten.bin', [randomBytes(5000), randomBytes(10)]);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'layout/rewritten.bin', Body: whole }));
    const rewritten = await s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key: 'layout/rewritten.bin', PartNumber: 1 }),
    );
    expect({ etag: rewritten.ETag, length: rewritten.ContentLength, parts: rewritten.PartsCount }).toEqual({
      etag: `"${md5(whole)}"`,
      length: 3000,
      parts: undefined,
    });
  });

  it("refuses to complete from a part whose ETag is not the stored part's (InvalidPart)", async () => {
    const key = 'layout/wrong etag.bin';
    const uploadId = await open(key);
    await putPart(key, uploadId, 1, randomBytes(5000));
    const completing = s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: `"${md5(Buffer.from('other'))}"` }] },
      }),
    );
    expect(await failure(completing)).toEqual({ name: 'InvalidPart', status: 400 });
    expect((await uploadsOf({ Prefix: key })).map((upload) => upload.UploadId)).toEqual([uploadId]);
  });

  it('completes from ETags quoted as Go writes them (&#34;), as rclone sends them', async () => {
    const key = 'layout/from go.bin';
    const uploadId = await open(key);
    const body = randomBytes(5000);
    const etag = await putPart(key, uploadId, 1, body);
    const goClient = clientFor(server.endpoint);
    // The SDK escapes quotes in XML as &quot;; Go's encoding/xml as &#34;.
    goClient.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body?: unknown; headers: Record<string, string> };
        if (typeof request.body === 'string') {
          const body = request.body.replaceAll('&quot;', '&#34;');
          request.body = body;
          request.headers['content-length'] = String(Buffer.byteLength(body));
        }
        return next(args);
      },
      { step: 'finalizeRequest', name: 'goXmlQuotes' },
    );

    try {
      const completed = await goClient.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: etag }] },
        }),
      );
      expect(completed.ETag).toBe(
        `"${createHash('md5').update(createHash('md5').update(body).digest()).digest('hex')}-1"`,
      );
    } finally {
      goClient.destroy();
    }
  });

  it("gives a CopyObject of a parts object the copy's own MD5 as ETag, as S3 does", async () => {
    const bodies = [randomBytes(5000), randomBytes(700)];
    await completedFrom('layout/copied.bin', bodies);

    const { CopyObjectResult } = await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'layout/copy.bin',
        CopySource: `${bucket}/layout/copied.bin`,
      }),
    );

    expect(CopyObjectResult?.ETag).toBe(`"${md5(Buffer.concat(bodies))}"`);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'layout/copy.bin' }));
    expect(head.ETag).toBe(`"${md5(Buffer.concat(bodies))}"`);
  });

  it('keeps s3rver authentication in front: an unknown key id is refused on all three calls', async () => {
    const key = 'guarded/file.bin';
    const uploadId = await open(key);
    const stranger = clientFor(server.endpoint, 'NOT-S3RVER');
    try {
      const answers = await Promise.all([
        failure(stranger.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))),
        failure(stranger.send(new ListMultipartUploadsCommand({ Bucket: bucket }))),
        failure(
          stranger.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })),
        ),
      ]);
      expect(answers).toEqual(Array(3).fill({ name: 'InvalidAccessKeyId', status: 403 }));
      expect((await uploadsOf({ Prefix: 'guarded/' })).map((upload) => upload.UploadId)).toEqual([uploadId]);
    } finally {
      stranger.destroy();
      await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    }
  });

  /*
   * s3rver checks Signature V2 only (it accepts any V4 signature from a known key id), and the SDK v3 signs V4
   * alone, so the signature check is shown with V2-signed requests sent by fetch: the right signature passes, a
   * wrong one is refused before the call runs. (s3rver leaves the Date out of a V2 Authorization header's string
   * to sign; its presigned-URL form is the one it checks as S3 does, hence URLs here.)
   */
  it('refuses a wrong signature on all three calls, and takes the right one', async () => {
    const key = 'signed/file.bin';
    const uploadId = await open(key);
    const resources = [
      { method: 'GET', resource: `/${bucket}?uploads` },
      { method: 'GET', resource: `/${bucket}/signed/file.bin?uploadId=${uploadId}` },
      { method: 'DELETE', resource: `/${bucket}/signed/file.bin?uploadId=${uploadId}` },
    ];
    // A V2 presigned URL: the string to sign is method, two empty lines (Content-MD5, Content-Type), expiry, resource.
    const send = (method: string, resource: string, secret: string) => {
      const expires = String(Math.floor(Date.now() / 1000) + 300);
      const signature = createHmac('sha1', secret)
        .update([method, '', '', expires, resource].join('\n'))
        .digest('base64');
      const query = new URLSearchParams({
        AWSAccessKeyId: S3RVER_KEY,
        Expires: expires,
        Signature: signature,
      });
      return fetch(`${server.endpoint}${resource}&${query}`, { method });
    };

    for (const { method, resource } of resources) {
      const wrong = await send(method, resource, 'not-the-secret');
      expect(wrong.status).toBe(403);
      expect(await wrong.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    }
    expect((await uploadsOf({ Prefix: 'signed/' })).map((upload) => upload.UploadId)).toEqual([uploadId]);

    const right = [];
    for (const { method, resource } of resources) right.push(await send(method, resource, S3RVER_KEY));
    expect(right.map((answer) => answer.status)).toEqual([200, 200, 204]);
    const listing = await right[0]?.text();
    expect(listing).toContain('<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">');
    expect(listing).toContain(`<Upload><Key>signed/file.bin</Key><UploadId>${uploadId}</UploadId>`);
    expect(await right[1]?.text()).toContain(
      `<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`,
    );
    expect(await uploadsOf({ Prefix: 'signed/' })).toEqual([]);
  });
});

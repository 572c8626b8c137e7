import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_KEY, startS3rver, type S3rverServer } from '../../testing/servers.ts';
import { S3ObjectStore } from './s3-store.ts';
import { s3Parts, useContentMd5ForParts } from './s3-parts.ts';
import { readAll } from '../../testing/objects.ts';

const md5 = (body: Buffer) => createHash('md5').update(body).digest('hex');

/**
 * Real AWS keeps the SDK's default checksums (s3-client-config.ts), which add a CRC32 to every UploadPart; S3
 * refuses it on an upload opened without a checksum algorithm. s3rver ignores checksum headers, so the client
 * here is built with AWS's defaults against s3rver, and the headers each UploadPart really carried are recorded
 * after signing.
 */
describe('S3 parts with the SDK default checksums (as on real AWS), against s3rver', () => {
  let server: S3rverServer;
  const bucket = `parts-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    server = await startS3rver();
    const store = new S3ObjectStore({
      provider: 'genericS3',
      accessKeyId: S3RVER_KEY,
      secretAccessKey: S3RVER_KEY,
      endpoint: server.endpoint,
    });
    await store.createBucket(bucket);
    await store.close();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A client as real AWS gets it, recording the headers of each UploadPart as signed and sent. */
  function awsLikeClient(withMd5Only: boolean) {
    const client = new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
      requestChecksumCalculation: 'WHEN_SUPPORTED',
    });
    if (withMd5Only) useContentMd5ForParts(client);
    const sent: Array<Record<string, string>> = [];
    client.middlewareStack.addRelativeTo(
      <Args extends { request: unknown }, Output>(
        next: (args: Args) => Promise<Output>,
        context: { commandName?: string },
      ) =>
        async (args: Args): Promise<Output> => {
          const { headers } = args.request as { headers: Record<string, string> };
          if (context.commandName === 'UploadPartCommand') sent.push({ ...headers });
          return next(args);
        },
      { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'recordUploadPartHeaders' },
    );
    return { client, sent };
  }

  it('sends parts with Content-MD5 only, the body left out of the signature, and completes to the exact bytes', async () => {
    const { client, sent } = awsLikeClient(true);
    const parts = s3Parts(client, 'aws');
    const whole = randomBytes(5 * 1024 * 1024 + 99);
    const key = 'md5-only.bin';
    const upload = { bucket, key, uploadId: await parts.start(bucket, key, {}) };
    const second = whole.subarray(5 * 1024 * 1024);
    const first = whole.subarray(0, 5 * 1024 * 1024);
    const done = [
      { partNumber: 2, ...(await parts.uploadPart(upload, 2, second, { md5: md5(second) })) },
      { partNumber: 1, ...(await parts.uploadPart(upload, 1, first, { md5: md5(first) })) },
    ];
    await parts.complete(upload, done, {});
    expect(sent).toHaveLength(2);
    for (const headers of sent) {
      const names = Object.keys(headers).map((name) => name.toLowerCase());
      expect(names).toContain('content-md5');
      expect(names.filter((name) => /^x-amz-(sdk-)?checksum-/.test(name))).toEqual([]);
      // The signed Content-MD5 guards the body; no second hash pass over it for the signature.
      expect(headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
      expect(headers['authorization']).toMatch(/SignedHeaders=[^,]*content-md5/);
    }
    expect(sent.map((headers) => headers['content-md5'] ?? headers['Content-MD5'])).toEqual([
      Buffer.from(md5(second), 'hex').toString('base64'),
      Buffer.from(md5(first), 'hex').toString('base64'),
    ]);
    const store = new S3ObjectStore({
      provider: 'genericS3',
      accessKeyId: S3RVER_KEY,
      secretAccessKey: S3RVER_KEY,
      endpoint: server.endpoint,
    });
    const info = await store.stat(bucket, key);
    const read = await readAll(store, bucket, key);
    await store.close();
    expect(info?.size).toBe(whole.length);
    expect(md5(read)).toBe(md5(whole));
    // A parts object's ETag is S3's MD5 of the part MD5s, which no whole-object MD5 compares with.
    const composite = createHash('md5')
      .update(Buffer.concat([first, second].map((part) => Buffer.from(md5(part), 'hex'))))
      .digest('hex');
    expect({ etag: info?.etag, md5: info?.md5 }).toEqual({ etag: `${composite}-2`, md5: null });
    client.destroy();
  });

  it('sends a streamed part through the SDK, where no direct request is made, gathered and with Content-MD5', async () => {
    const { client, sent } = awsLikeClient(true);
    // No direct requests: the SDK sends every call, as for a bucket whose URL could not be resolved.
    const parts = s3Parts(client, 'aws');
    const key = 'streamed-sdk.bin';
    const upload = { bucket, key, uploadId: await parts.start(bucket, key, {}) };
    const body = randomBytes(300_000);
    const answer = await parts.uploadPart(upload, 1, {
      stream: Readable.from([body.subarray(0, 100_000), body.subarray(100_000)]),
      length: body.length,
    });
    expect(answer).toEqual({ etag: md5(body), md5: md5(body) });
    const names = Object.keys(sent[0] ?? {}).map((name) => name.toLowerCase());
    expect(names).toContain('content-md5');
    expect(names.filter((name) => /^x-amz-(sdk-)?checksum-/.test(name))).toEqual([]);
    await parts.abort(upload);
    client.destroy();
  });

  it('without it the SDK adds the CRC32 that AWS refuses on such an upload (why it exists)', async () => {
    const { client, sent } = awsLikeClient(false);
    const parts = s3Parts(client, 'aws');
    const key = 'with-crc.bin';
    const upload = { bucket, key, uploadId: await parts.start(bucket, key, {}) };
    const body = randomBytes(1024);
    await parts.uploadPart(upload, 1, body, { md5: md5(body) });
    await parts.abort(upload);
    expect(Object.keys(sent[0] ?? {}).map((name) => name.toLowerCase())).toContain('x-amz-checksum-crc32');
    client.destroy();
  });
});

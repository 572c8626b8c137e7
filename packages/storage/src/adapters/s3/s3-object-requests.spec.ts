import { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { HttpRequest } from '@smithy/types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { S3ObjectRequests, encodeKeyPath, errorFields } from './s3-object-requests.ts';

// The requests below would go to AWS itself, which no test here can reach: the client's handler is replaced by
// one that records the request and answers 200, so what is checked is the request as it would leave (host,
// path, signing scope). Requests that do travel are in s3-store.mock.spec.ts (a local HTTP server) and
// s3-store.s3rver.spec.ts (s3rver).
const clients: S3Client[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
});

function recordingClient(config: {
  region: string;
  forcePathStyle?: boolean;
  endpoint?: string;
  sessionToken?: string;
}) {
  const sent: HttpRequest[] = [];
  const { sessionToken, ...rest } = config;
  const client = new S3Client({
    ...rest,
    credentials: {
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      ...(sessionToken ? { sessionToken } : {}),
    },
    requestHandler: {
      handle: (request: HttpRequest) => {
        sent.push(request);
        return Promise.resolve({
          response: { statusCode: 200, headers: { etag: '"e"' }, body: Readable.from([]) },
        });
      },
    },
  });
  clients.push(client);
  return { client, sent };
}

describe('S3ObjectRequests: where a request goes, as the SDK itself resolves it', () => {
  it('addresses an AWS bucket virtual-hosted in its region, over HTTPS, signed for that region', async () => {
    const { client, sent } = recordingClient({ region: 'eu-west-1' });
    const requests = new S3ObjectRequests(client, client);

    await requests.get('media', 'photos/a b.jpg', {});

    expect(sent[0]).toMatchObject({
      method: 'GET',
      protocol: 'https:',
      hostname: 'media.s3.eu-west-1.amazonaws.com',
      path: '/photos/a%20b.jpg',
    });
    expect(sent[0]?.headers.host).toBe('media.s3.eu-west-1.amazonaws.com');
    expect(sent[0]?.headers.authorization).toMatch(
      /Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request/,
    );
  });

  it('falls back to path style where the SDK does: a bucket name with dots cannot be a TLS host name', async () => {
    const { client, sent } = recordingClient({ region: 'us-east-1' });
    const requests = new S3ObjectRequests(client, client);

    await requests.put('my.dotted.bucket', 'k.txt', Buffer.from('x'), {
      headers: { 'content-md5': 'LZLeAcQw6HRhYqvlo5D6rA==' },
      payloadHash: 'UNSIGNED-PAYLOAD',
    });

    expect(sent[0]).toMatchObject({
      method: 'PUT',
      hostname: 's3.us-east-1.amazonaws.com',
      path: '/my.dotted.bucket/k.txt',
    });
    expect(sent[0]?.headers['content-length']).toBe('1');
    expect(sent[0]?.headers.authorization).toMatch(/SignedHeaders=content-length;content-md5;host;/);
  });

  it('sends an UploadPart with its part number and upload id in the signed query', async () => {
    const { client, sent } = recordingClient({ region: 'us-west-2' });
    const requests = new S3ObjectRequests(client, client);

    await requests.put('media', 'big.bin', Buffer.alloc(4), {
      headers: {},
      payloadHash: 'UNSIGNED-PAYLOAD',
      query: { partNumber: '7', uploadId: 'abc/def+1' },
    });

    expect(sent[0]?.query).toEqual({ partNumber: '7', uploadId: 'abc/def+1' });
    expect(sent[0]?.hostname).toBe('media.s3.us-west-2.amazonaws.com');
  });
});

describe('S3ObjectRequests helpers', () => {
  it("escapes each key segment as the SDK does (RFC 3986, !'()* too) and keeps '/'", () => {
    expect(encodeKeyPath("a b/c+d/e!'()*/ü.txt")).toBe('a%20b/c%2Bd/e%21%27%28%29%2A/%C3%BC.txt');
  });

  it('reads the code and message of an error document, entities decoded, and where an archived object lies', () => {
    expect(
      errorFields(
        '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Not &amp; never</Message></Error>',
      ),
    ).toEqual({ code: 'AccessDenied', message: 'Not & never', storageClass: null, accessTier: null });
    expect(
      errorFields(
        '<Error><Code>InvalidObjectState</Code><Message>The operation is not valid for the object&apos;s storage ' +
          'class</Message><StorageClass>INTELLIGENT_TIERING</StorageClass><AccessTier>DEEP_ARCHIVE_ACCESS</AccessTier></Error>',
      ),
    ).toEqual({
      code: 'InvalidObjectState',
      message: "The operation is not valid for the object's storage class",
      storageClass: 'INTELLIGENT_TIERING',
      accessTier: 'DEEP_ARCHIVE_ACCESS',
    });
    expect(errorFields('')).toEqual({ code: null, message: null, storageClass: null, accessTier: null });
  });
});

describe('S3ObjectRequests.presignGet: the URL getSignedUrl makes, without its per-URL middleware stack', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const cases = [
    { name: 'AWS, virtual-hosted in its region', config: { region: 'eu-west-1' }, bucket: 'media' },
    {
      name: 'AWS, temporary credentials',
      config: { region: 'ap-south-1', sessionToken: 'FwoGZXIvYXdzE/token+with=signs' },
      bucket: 'media',
    },
    {
      name: 'AWS, a dotted bucket (path style)',
      config: { region: 'us-east-1' },
      bucket: 'my.dotted.bucket',
    },
    {
      name: 'an S3-compatible endpoint with a port, path style',
      config: { region: 'us-east-1', endpoint: 'http://127.0.0.1:4569', forcePathStyle: true },
      bucket: 'media',
    },
  ];
  const keys = ['photos/a b.jpg', "dir/ünï cödé/(1)*!'~.mp4", 'deep/a+b=c&d?.txt', '%41 already escaped'];

  for (const { name, config, bucket } of cases) {
    it(`answers the SDK's URL, byte for byte: ${name}`, async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-11-28T04:40:12Z'));
      const { client } = recordingClient(config);
      const requests = new S3ObjectRequests(client, client);
      for (const key of keys) {
        const disposition = `attachment; filename="${key.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(key)}`;
        const sdkUrl = await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), {
          expiresIn: 3600,
        });
        // What the comparison covers: the session token travels in the query, where there is one.
        expect(sdkUrl.includes('X-Amz-Security-Token=')).toBe('sessionToken' in config);
        expect(await requests.presignGet(bucket, key, 3600)).toBe(sdkUrl);
        expect(
          await requests.presignGet(bucket, key, 600, { 'response-content-disposition': disposition }),
        ).toBe(
          await getSignedUrl(
            client,
            new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: disposition }),
            { expiresIn: 600 },
          ),
        );
      }
    });
  }
});

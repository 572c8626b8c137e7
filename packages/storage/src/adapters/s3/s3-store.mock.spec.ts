import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetBucketAclCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchBucket,
  PutBucketAclCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../object-store.ts';
import { partSizeFor } from '../../part-size.ts';
import type { S3StoreConfig } from '../../store-config.ts';
import { readAll } from '../../testing/objects.ts';
import { S3ObjectStore } from './s3-store.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

function buildStore(overrides: Partial<S3StoreConfig> = {}, maxAttempts = 3): S3ObjectStore {
  return new S3ObjectStore(
    {
      provider: 'aws',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      ...overrides,
    },
    { maxAttempts },
  );
}

/** The first page of a listing: the call that reaches the provider. */
const firstPage = (store: S3ObjectStore, bucket: string) => store.list(bucket)[Symbol.asyncIterator]().next();

const stores: S3ObjectStore[] = [];
function track(store: S3ObjectStore): S3ObjectStore {
  stores.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

describe('S3 adapter with aws-sdk-client-mock (s3rver lacks ACLs, AbortMultipartUpload and UploadPartCopy and fails on CopySource keys with + & = ?)', () => {
  it('aborts the multipart upload when the caller aborts a write, and rejects with AbortError', async () => {
    const store = track(buildStore());
    const s3 = mockClient(store.client);
    const controller = new AbortController();
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-1' });
    s3.on(UploadPartCommand).callsFake(async () => {
      controller.abort();
      return { ETag: '"part"' };
    });
    // s3rver answers 405 here; the adapter must still report the abort, not this answer.
    s3.on(AbortMultipartUploadCommand).rejects(
      new S3ServiceException({
        name: 'MethodNotAllowed',
        $fault: 'client',
        $metadata: { httpStatusCode: 405 },
        message: 'The specified method is not allowed against this resource.',
      }),
    );

    const error = await store
      .write('media', 'movie.mp4', Buffer.alloc(20 * MiB), { signal: controller.signal })
      .catch((e: unknown) => e);

    expect((error as Error).name).toBe('AbortError');
    expect(s3.commandCalls(AbortMultipartUploadCommand).map((call) => call.args[0].input)).toContainEqual({
      Bucket: 'media',
      Key: 'movie.mp4',
      UploadId: 'upload-1',
    });
    expect(s3.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
    s3.restore();
  });

  it("copies an object above 5 GiB with UploadPartCopy ranges that cover every byte once, with the source's tags", async () => {
    const store = track(buildStore());
    const s3 = mockClient(store.client);
    const size = 6 * GiB + 17;
    s3.on(HeadObjectCommand).resolves({
      ContentLength: size,
      ContentType: 'video/mp4',
      Metadata: { a: 'b' },
      TagCount: 2,
    });
    s3.on(GetObjectTaggingCommand).resolves({
      TagSet: [
        { Key: 'team', Value: 'media ops' },
        { Key: 'keep', Value: 'a&b' },
      ],
    });
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'copy-1' });
    s3.on(UploadPartCopyCommand).callsFake(async (input: { PartNumber?: number }) => ({
      CopyPartResult: { ETag: `"etag-${input.PartNumber}"` },
    }));
    s3.on(CompleteMultipartUploadCommand).resolves({});

    await store.copy({ bucket: 'src', key: 'raw/big file.mov' }, { bucket: 'dst', key: 'copy.mov' });

    expect(s3.commandCalls(CopyObjectCommand)).toHaveLength(0);
    expect(s3.commandCalls(CreateMultipartUploadCommand)[0]?.args[0].input).toEqual({
      Bucket: 'dst',
      Key: 'copy.mov',
      ContentType: 'video/mp4',
      Metadata: { a: 'b' },
      // An upload starts with no tags, unlike a CopyObject: they are sent as x-amz-tagging.
      Tagging: 'team=media%20ops&keep=a%26b',
    });
    expect(s3.commandCalls(GetObjectTaggingCommand)[0]?.args[0].input).toEqual({
      Bucket: 'src',
      Key: 'raw/big file.mov',
    });
    const partSize = partSizeFor('aws', size);
    const copies = s3
      .commandCalls(UploadPartCopyCommand)
      .map((call) => call.args[0].input)
      .sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    expect(copies).toHaveLength(Math.ceil(size / partSize));
    let nextByte = 0;
    for (const [index, part] of copies.entries()) {
      expect(part).toMatchObject({
        Bucket: 'dst',
        Key: 'copy.mov',
        UploadId: 'copy-1',
        PartNumber: index + 1,
        CopySource: 'src/raw/big%20file.mov',
      });
      const [first, last] = (part.CopySourceRange ?? '').replace('bytes=', '').split('-').map(Number);
      expect(first).toBe(nextByte);
      expect((last ?? 0) - (first ?? 0) + 1).toBeLessThanOrEqual(5 * GiB);
      nextByte = (last ?? 0) + 1;
    }
    expect(nextByte).toBe(size);
    const completed = s3.commandCalls(CompleteMultipartUploadCommand)[0]?.args[0].input;
    expect(completed?.UploadId).toBe('copy-1');
    expect(completed?.MultipartUpload?.Parts?.map((p) => p.PartNumber)).toEqual(
      copies.map((c) => c.PartNumber),
    );
    expect(completed?.MultipartUpload?.Parts?.[0]?.ETag).toBe('"etag-1"');
    s3.restore();
  });

  it('copies with a listed size and ETag in one conditional CopyObject, no HEAD, and answers the MD5 ETag', async () => {
    const store = track(buildStore());
    const s3 = mockClient(store.client);
    s3.on(CopyObjectCommand).resolves({ CopyObjectResult: { ETag: '"9e107d9d372bb6826bd81d3542a419d6"' } });

    const copied = await store.copy(
      { bucket: 'src', key: 'docs/a.txt' },
      { bucket: 'dst', key: 'docs/a.txt' },
      { size: 43, ifMatch: '9e107d9d372bb6826bd81d3542a419d6' },
    );

    expect(copied).toEqual({
      etag: '9e107d9d372bb6826bd81d3542a419d6',
      md5: '9e107d9d372bb6826bd81d3542a419d6',
    });
    expect(s3.calls()).toHaveLength(1);
    expect(s3.commandCalls(CopyObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'dst',
      Key: 'docs/a.txt',
      CopySource: 'src/docs/a.txt',
      CopySourceIfMatch: '"9e107d9d372bb6826bd81d3542a419d6"',
    });
    s3.restore();
  });

  it('encodes every segment of the CopySource key, keeping / as the separator', async () => {
    const store = track(buildStore());
    const s3 = mockClient(store.client);
    s3.on(HeadObjectCommand).resolves({ ContentLength: 10 });
    s3.on(CopyObjectCommand).resolves({});
    const key = 'reports/a+b & c=d?e f é.txt';

    await store.copy({ bucket: 'src', key }, { bucket: 'dst', key: 'copy.txt' });

    const copySource = s3.commandCalls(CopyObjectCommand)[0]?.args[0].input.CopySource;
    expect(copySource).toBe('src/reports/a%2Bb%20%26%20c%3Dd%3Fe%20f%20%C3%A9.txt');
    expect(decodeURIComponent(copySource ?? '')).toBe(`src/${key}`);
    s3.restore();
  });

  it('deletes in batches of 1000 in quiet mode, counting missing keys as deleted', async () => {
    const store = track(buildStore());
    const s3 = mockClient(store.client);
    s3.on(DeleteObjectsCommand).resolves({
      Errors: [
        { Key: 'k-00001', Code: 'NoSuchKey', Message: 'The specified key does not exist.' },
        { Key: 'k-01500', Code: 'AccessDenied', Message: 'Access Denied' },
      ],
    });
    const keys = Array.from({ length: 2500 }, (_, i) => `k-${String(i).padStart(5, '0')}`);

    const result = await store.deleteMany('media', keys);

    const batches = s3.commandCalls(DeleteObjectsCommand).map((call) => call.args[0].input.Delete);
    expect(batches.map((batch) => batch?.Objects?.length)).toEqual([1000, 1000, 500]);
    expect(batches.every((batch) => batch?.Quiet === true)).toBe(true);
    expect(result.errors).toEqual([{ key: 'k-01500', message: 'Access Denied' }]);
    expect(result.deleted).toHaveLength(2499);
    expect(result.deleted).toContain('k-00001');
    s3.restore();
  });

  it("creates a bucket in another region through that region's endpoint, with its location constraint", async () => {
    const s3 = mockClient(S3Client);
    s3.on(CreateBucketCommand).resolves({});
    const wasabi = track(buildStore({ provider: 'wasabi' }));
    const aws = track(buildStore({ provider: 'aws', region: 'eu-west-1' }));

    await wasabi.createBucket('eu-photos', { region: 'eu-central-1' });
    await wasabi.createBucket('us-photos');
    await aws.createBucket('us-logs', { region: 'us-east-1' });

    const calls = s3.commandCalls(CreateBucketCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      { Bucket: 'eu-photos', CreateBucketConfiguration: { LocationConstraint: 'eu-central-1' } },
      { Bucket: 'us-photos' },
      { Bucket: 'us-logs' },
    ]);
    const clients = calls.map((call) => call.thisValue as S3Client);
    expect(await clients[0]?.config.endpoint?.()).toMatchObject({
      hostname: 's3.eu-central-1.wasabisys.com',
    });
    expect(clients[1]).toBe(wasabi.client);
    expect(await clients[2]?.config.region()).toBe('us-east-1');
    s3.restore();
  });

  it('writes ACL grants as one policy that keeps the owner, in the S3 grantee shapes', async () => {
    const s3 = mockClient(S3Client);
    const owner = { ID: 'owner-canonical-id', DisplayName: 'owner' };
    s3.on(GetBucketAclCommand).resolves({
      Owner: owner,
      Grants: [{ Grantee: { Type: 'CanonicalUser', ID: owner.ID }, Permission: 'FULL_CONTROL' }],
    });
    s3.on(PutBucketAclCommand).resolves({});
    const store = track(buildStore());
    const acl = store.capabilities.acl;
    if (!acl) throw new Error('aws offers ACLs');
    const current = await acl.getBucketAcl('team');
    await acl.putBucketAcl('team', [
      ...current,
      { grantee: { type: 'email', email: 'partner@example.com' }, permission: 'READ' },
      {
        grantee: { type: 'group', uri: 'http://acs.amazonaws.com/groups/global/AllUsers' },
        permission: 'READ',
      },
    ]);
    expect(s3.commandCalls(PutBucketAclCommand)[0]?.args[0].input).toEqual({
      Bucket: 'team',
      AccessControlPolicy: {
        Owner: owner,
        Grants: [
          { Grantee: { Type: 'CanonicalUser', ID: owner.ID }, Permission: 'FULL_CONTROL' },
          {
            Grantee: { Type: 'AmazonCustomerByEmail', EmailAddress: 'partner@example.com' },
            Permission: 'READ',
          },
          {
            Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/global/AllUsers' },
            Permission: 'READ',
          },
        ],
      },
    });
    s3.restore();
  });

  it('maps provider errors to StorageError codes with the provider message', async () => {
    const store = track(buildStore());
    const s3 = mockClient(store.client);
    s3.on(ListObjectsV2Command).rejects(
      new NoSuchBucket({
        $metadata: { httpStatusCode: 404 },
        message: 'The specified bucket does not exist',
      }),
    );

    await expect(firstPage(store, 'gone')).rejects.toMatchObject({
      code: 'BucketNotFound',
      status: 404,
      message: 'The specified bucket does not exist',
    });
    s3.restore();
  });
});

describe('S3 adapter retries against a local HTTP server answering 503 SlowDown (client-mock would bypass the SDK retry middleware)', () => {
  let server: Server;
  let requests = 0;
  let endpoint = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      requests += 1;
      request.resume();
      response.writeHead(503, { 'content-type': 'application/xml' });
      response.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>' +
          '<Message>Please reduce your request rate.</Message></Error>',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('retries SlowDown with the SDK strategy, then reports Throttled with the provider message', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }, 3));
    requests = 0;

    const error = await firstPage(store, 'busy').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({
      code: 'Throttled',
      status: 503,
      message: 'Please reduce your request rate.',
    });
    expect(requests).toBe(3);
    expect((error as StorageError).cause).toMatchObject({ $metadata: { attempts: 3 } });
  });
});

describe('S3 adapter against a server that accepts connections and never answers', () => {
  let server: Server;
  let requests = 0;
  let endpoint = '';
  beforeAll(async () => {
    server = createServer(() => {
      requests += 1; // never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // A listing page goes through the SDK; an object read is sent directly, through the client's own handler.
  it.each([
    ['a listing page', (store: S3ObjectStore) => firstPage(store, 'silent')],
    ['an object read', (store: S3ObjectStore) => store.read('silent', 'a.txt')],
  ])(
    'gives up on a silent socket for %s after the idle timeout and retries, instead of hanging forever',
    async (_call, call) => {
      const store = track(
        new S3ObjectStore(
          { provider: 'genericS3', accessKeyId: 'AKIA', secretAccessKey: 'secret', endpoint },
          { maxAttempts: 2, idleTimeoutMs: 300 },
        ),
      );
      requests = 0;
      const error = await call(store).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({
        code: 'Network',
        message: 'The provider could not be reached: it did not answer in time',
      });
      expect(requests).toBe(2);
    },
  );

  it('stops a read waiting on a silent provider when its signal aborts', async () => {
    const store = track(
      new S3ObjectStore({ provider: 'genericS3', accessKeyId: 'AKIA', secretAccessKey: 'secret', endpoint }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await store.read('silent', 'a.txt', { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
  });
});

describe('S3 adapter endpoint and region rules per provider', () => {
  const hostOf = async (store: S3ObjectStore) => {
    const url = new URL(await store.signedUrl('photos', 'a.jpg', { method: 'GET', expiresInSeconds: 60 }));
    return { host: url.host, path: url.pathname };
  };

  it('aws: the SDK resolves the regional endpoint, us-east-1 by default, virtual-hosted', async () => {
    const byDefault = track(buildStore());
    expect(await byDefault.client.config.region()).toBe('us-east-1');
    expect(byDefault.client.config.endpoint).toBeUndefined();
    expect(await hostOf(byDefault)).toEqual({ host: 'photos.s3.us-east-1.amazonaws.com', path: '/a.jpg' });
    const ireland = track(buildStore({ region: 'eu-west-1' }));
    expect(await hostOf(ireland)).toEqual({ host: 'photos.s3.eu-west-1.amazonaws.com', path: '/a.jpg' });
  });

  it('aws: presigned PUT URLs carry no empty-body checksum', async () => {
    const store = track(buildStore());
    const url = await store.signedUrl('photos', 'up.jpg', {
      method: 'PUT',
      expiresInSeconds: 60,
      contentType: 'image/jpeg',
    });
    expect(url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum-algorithm/i);
  });

  it('wasabi eu-central-1: s3.eu-central-1.wasabisys.com with checksums only when required', async () => {
    const store = track(buildStore({ provider: 'wasabi', region: 'eu-central-1' }));
    expect(await store.client.config.region()).toBe('eu-central-1');
    expect(await store.client.config.endpoint?.()).toMatchObject({
      protocol: 'https:',
      hostname: 's3.eu-central-1.wasabisys.com',
    });
    expect(await store.client.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
    expect(await store.client.config.responseChecksumValidation()).toBe('WHEN_REQUIRED');
    expect(await hostOf(store)).toEqual({ host: 'photos.s3.eu-central-1.wasabisys.com', path: '/a.jpg' });
  });

  it('wasabi without a region: us-east-1', async () => {
    const store = track(buildStore({ provider: 'wasabi' }));
    expect(await store.client.config.region()).toBe('us-east-1');
    expect(await hostOf(store)).toEqual({ host: 'photos.s3.us-east-1.wasabisys.com', path: '/a.jpg' });
  });

  it('backblaze us-west-004: the S3 endpoint of the key region', async () => {
    const store = track(buildStore({ provider: 'backblaze', region: 'us-west-004' }));
    expect(await store.client.config.region()).toBe('us-west-004');
    expect(await store.client.config.endpoint?.()).toMatchObject({
      hostname: 's3.us-west-004.backblazeb2.com',
    });
    expect(await hostOf(store)).toEqual({ host: 'photos.s3.us-west-004.backblazeb2.com', path: '/a.jpg' });
  });

  it('backblaze without a region is refused with a clear message', () => {
    expect(() => buildStore({ provider: 'backblaze' })).toThrow(
      new StorageError(
        'Unsupported',
        'A Backblaze account needs the region of its key (for example us-west-004)',
        'backblaze',
      ),
    );
  });

  it('filebase: the fixed endpoint in us-east-1, whatever region is given', async () => {
    const store = track(buildStore({ provider: 'filebase', region: 'eu-west-1' }));
    expect(await store.client.config.region()).toBe('us-east-1');
    expect(await store.client.config.endpoint?.()).toMatchObject({ hostname: 's3.filebase.com' });
    expect(await hostOf(store)).toEqual({ host: 'photos.s3.filebase.com', path: '/a.jpg' });
  });

  it('genericS3: the service URL, path style by default, virtual-hosted when asked', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint: 'https://minio.example.org:9000' }));
    expect(store.client.config.forcePathStyle).toBe(true);
    expect(await hostOf(store)).toEqual({ host: 'minio.example.org:9000', path: '/photos/a.jpg' });
    const virtual = track(
      buildStore({ provider: 'genericS3', endpoint: 'https://s3.example.org', forcePathStyle: false }),
    );
    expect(await hostOf(virtual)).toEqual({ host: 'photos.s3.example.org', path: '/a.jpg' });
  });

  it('an overridden endpoint replaces the provider rule (PROVIDER_ENDPOINTS in tests and private deployments)', async () => {
    const store = track(buildStore({ provider: 'aws', endpoint: 'http://127.0.0.1:4568' }));
    expect(await hostOf(store)).toEqual({ host: '127.0.0.1:4568', path: '/photos/a.jpg' });
    expect(await store.client.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
  });

  it('genericS3 with Signature V2 is refused: the SDK signs V4 only', () => {
    expect(() =>
      buildStore({ provider: 'genericS3', endpoint: 'https://s3.example.org', signatureVersion: 'v2' }),
    ).toThrow(new StorageError('Unsupported', 'Signature V2 is not supported; use V4', 'genericS3'));
  });

  it('declares only the capabilities each provider offers', () => {
    const declared = (provider: S3StoreConfig['provider']) =>
      Object.keys(
        track(buildStore({ provider, region: 'us-west-004', endpoint: 'https://s3.example.org' }))
          .capabilities,
      ).sort();
    expect(declared('aws')).toEqual([
      'accelerate',
      'acl',
      'cors',
      'directUpload',
      'lifecycle',
      'objectTags',
      'partLayout',
      'parts',
      'tags',
      'versioning',
    ]);
    expect(declared('wasabi')).toEqual([
      'acl',
      'cors',
      'directUpload',
      'lifecycle',
      'objectTags',
      'partLayout',
      'parts',
      'tags',
      'versioning',
    ]);
    expect(declared('genericS3')).toEqual([
      'acl',
      'cors',
      'directUpload',
      'lifecycle',
      'objectTags',
      'partLayout',
      'parts',
      'tags',
      'versioning',
    ]);
    expect(declared('backblaze')).toEqual(['cors', 'directUpload', 'parts']);
    expect(declared('filebase')).toEqual(['cors', 'directUpload', 'parts']);
  });
});

describe('S3 adapter request headers, seen by a local HTTP server (s3rver checks neither Content-MD5 nor the payload hash)', () => {
  let server: Server;
  let endpoint = '';
  const received: Array<{ headers: Record<string, unknown>; body: Buffer }> = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end('<?xml version="1.0" encoding="UTF-8"?><DeleteResult></DeleteResult>');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the Content-MD5 of the body that S3-compatible stores require, not a CRC32 they refuse', async () => {
    const store = track(buildStore({ provider: 'wasabi', endpoint }));

    const result = await store.deleteMany('media', ['a.txt', 'b/c.txt']);

    expect(result).toEqual({ deleted: ['a.txt', 'b/c.txt'], errors: [] });
    const [request] = received;
    expect(request?.body.toString()).toContain('<Key>b/c.txt</Key>');
    expect(request?.headers['content-md5']).toBe(
      createHash('md5')
        .update(request?.body ?? Buffer.alloc(0))
        .digest('base64'),
    );
    expect(Object.keys(request?.headers ?? {}).filter((name) => name.includes('checksum'))).toEqual([]);
  });

  it('signs a small write with the SHA-256 its caller computed, else leaves the body to its signed Content-MD5', async () => {
    const store = track(buildStore({ provider: 'wasabi', endpoint }));
    const body = Buffer.from('bytes the copy engine already hashed\n'.repeat(100));
    const md5 = createHash('md5').update(body).digest('hex');
    const sha256 = createHash('sha256').update(body).digest('hex');
    received.splice(0);

    await store.write('media', 'known.txt', body, { md5, sha256 });
    await store.write('media', 'md5-only.txt', body, { md5 });
    await store.write('media', 'nothing-known.txt', body);

    const [known, md5Only, nothingKnown] = received;
    expect(known?.headers['x-amz-content-sha256']).toBe(sha256);
    expect(known?.body.equals(body)).toBe(true);
    // No SHA-256 pass over the body: the store checks the signed Content-MD5 against the bytes it receives.
    expect(md5Only?.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    // A write whose caller knew no checksum still carries the MD5 of what was sent.
    expect(nothingKnown?.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    for (const request of [known, md5Only, nothingKnown]) {
      expect(request?.headers['content-md5']).toBe(Buffer.from(md5, 'hex').toString('base64'));
      // The signature covers both headers: a different body or payload hash would make the store refuse it.
      expect(String(request?.headers.authorization)).toMatch(/SignedHeaders=[^,]*content-md5/);
      expect(String(request?.headers.authorization)).toMatch(/SignedHeaders=[^,]*x-amz-content-sha256/);
    }
  });
});

describe('S3 adapter object reads and writes sent without the SDK middleware (s3-object-requests.ts), against a scripted local HTTP server', () => {
  interface Seen {
    method: string;
    url: string;
    headers: Record<string, unknown>;
    body: Buffer;
  }
  type Answer = (response: import('node:http').ServerResponse) => void;
  let server: Server;
  let endpoint = '';
  const seen: Seen[] = [];
  /** Answers for the next requests, in order; once spent, every request gets 200 with an ETag. */
  const script: Answer[] = [];
  const xmlError =
    (status: number, code: string, message: string): Answer =>
    (response) => {
      response.writeHead(status, { 'content-type': 'application/xml' });
      response.end(
        `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
      );
    };
  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
        const answer = script.shift();
        if (answer) return answer(response);
        const payload = request.method === 'GET' ? Buffer.from('stored bytes') : Buffer.alloc(0);
        response.writeHead(200, {
          etag: `"${createHash('md5')
            .update(request.method === 'GET' ? payload : body)
            .digest('hex')}"`,
          'content-length': String(payload.length),
          'content-type': 'text/plain',
          'last-modified': 'Wed, 25 Nov 2026 09:00:00 GMT',
          'x-amz-meta-cumulo-sha256': 'abc',
          'content-disposition': 'inline; filename="a.txt"',
        });
        response.end(payload);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    seen.splice(0);
    script.splice(0);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  it('sends a GetObject to the path the SDK resolves, signed, and tells the object info from its answer', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }));
    let info: unknown;
    const body = await readAll(store, 'media', 'dir/a b+c%d?e#f.txt', { onInfo: (i) => (info = i) });

    expect(body.toString()).toBe('stored bytes');
    expect(seen[0]?.method).toBe('GET');
    expect(seen[0]?.url).toBe('/media/dir/a%20b%2Bc%25d%3Fe%23f.txt');
    expect(String(seen[0]?.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    expect(info).toEqual({
      key: 'dir/a b+c%d?e#f.txt',
      size: 12,
      lastModified: new Date('2026-11-25T09:00:00Z'),
      etag: createHash('md5').update('stored bytes').digest('hex'),
      md5: createHash('md5').update('stored bytes').digest('hex'),
      contentType: 'text/plain',
      metadata: { 'cumulo-sha256': 'abc' },
      contentHeaders: { contentDisposition: 'inline; filename="a.txt"' },
    });
  });

  it('maps error answers to StorageError codes with the provider message', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }, 1));
    script.push(
      xmlError(403, 'AccessDenied', 'Access Denied'),
      xmlError(404, 'NoSuchKey', 'The specified key does not exist.'),
      xmlError(404, 'NoSuchBucket', 'The specified bucket does not exist'),
    );

    await expect(store.write('media', 'a.txt', Buffer.from('a'))).rejects.toMatchObject({
      code: 'AccessDenied',
      status: 403,
      message: 'Access Denied',
    });
    await expect(store.read('media', 'gone.txt')).rejects.toMatchObject({
      code: 'ObjectNotFound',
      status: 404,
      message: 'The specified key does not exist.',
    });
    await expect(store.read('gone', 'a.txt')).rejects.toMatchObject({
      code: 'BucketNotFound',
      message: 'The specified bucket does not exist',
    });
  });

  it('refuses an archived object with Archived at once, naming its storage class, on reads and server copies', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }, 3));
    const archived =
      (storageClass: string, accessTier = ''): Answer =>
      (response) => {
        response.writeHead(403, { 'content-type': 'application/xml' });
        response.end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidObjectState</Code><Message>The operation is ' +
            `not valid for the object's storage class</Message><StorageClass>${storageClass}</StorageClass>` +
            `${accessTier ? `<AccessTier>${accessTier}</AccessTier>` : ''}</Error>`,
        );
      };
    script.push(archived('GLACIER'), archived('INTELLIGENT_TIERING', 'DEEP_ARCHIVE_ACCESS'));

    await expect(store.read('media', 'cold.mov')).rejects.toMatchObject({
      code: 'Archived',
      status: 403,
      message: 'The object is archived (GLACIER): restore it before reading or copying it',
    });
    // Not a transient answer: one request, no retry.
    expect(seen).toHaveLength(1);
    await expect(
      store.copy({ bucket: 'media', key: 'cold.mov' }, { bucket: 'backup', key: 'cold.mov' }, { size: 12 }),
    ).rejects.toMatchObject({
      code: 'Archived',
      message:
        'The object is archived (INTELLIGENT_TIERING, DEEP_ARCHIVE_ACCESS): restore it before reading or copying it',
    });
    expect(seen.map((request) => request.method)).toEqual(['GET', 'PUT']);
  });

  it('retries SlowDown as the SDK would, then reports Throttled with the provider message', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }, 3));
    const slowDown = xmlError(503, 'SlowDown', 'Please reduce your request rate.');
    script.push(slowDown, slowDown, slowDown);

    const error = await store.write('media', 'busy.txt', Buffer.from('busy')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({
      code: 'Throttled',
      status: 503,
      message: 'Please reduce your request rate.',
    });
    expect((error as StorageError).cause).toMatchObject({ $metadata: { attempts: 3 } });
    expect(seen).toHaveLength(3);
  });

  it('sends a write again after a 500, the same bytes signed anew, and answers the ETag of the retry', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }, 3));
    script.push(xmlError(500, 'InternalError', 'We encountered an internal error. Please try again.'));
    const body = Buffer.from('sent twice');

    const written = await store.write('media', 'retry.txt', body);

    expect(seen).toHaveLength(2);
    expect(seen.map((request) => request.body.equals(body))).toEqual([true, true]);
    expect(seen[1]?.headers.authorization).toMatch(/Signature=[0-9a-f]{64}$/);
    expect(written.etag).toBe(createHash('md5').update(body).digest('hex'));
  });

  it('hands a bucket answering with a region redirect to the SDK, for this call and every later one', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }));
    script.push(
      xmlError(
        301,
        'PermanentRedirect',
        'The bucket you are attempting to access must be addressed using the specified endpoint.',
      ),
    );

    await store.write('moved', 'a.txt', Buffer.from('a'));
    await store.read('moved', 'a.txt');

    // The SDK's requests name their operation in the query (x-id); the direct ones do not.
    expect(seen.map((request) => request.url)).toEqual([
      '/moved/a.txt',
      '/moved/a.txt?x-id=PutObject',
      '/moved/a.txt?x-id=GetObject',
    ]);
  });

  it('tells no MD5 for an object encrypted with SSE-KMS or a customer key, whose ETag is not one', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }));
    const encrypted =
      (headers: Record<string, string>): Answer =>
      (response) => {
        response.writeHead(200, {
          etag: '"c4ca4238a0b923820dcc509a6f75849b"',
          'content-length': '3',
          ...headers,
        });
        response.end('abc');
      };
    script.push(
      encrypted({ 'x-amz-server-side-encryption': 'aws:kms' }),
      encrypted({ 'x-amz-server-side-encryption': 'aws:kms:dsse' }),
      encrypted({ 'x-amz-server-side-encryption-customer-algorithm': 'AES256' }),
      encrypted({ 'x-amz-server-side-encryption': 'aws:kms' }),
      encrypted({ 'x-amz-server-side-encryption': 'AES256' }),
    );
    const infos: Array<{ etag: string | null; md5: string | null }> = [];
    for (let i = 0; i < 3; i++) {
      await readAll(store, 'media', 'secret.bin', { onInfo: (info) => infos.push(info) });
    }
    const headed = await store.stat('media', 'secret.bin');
    const sseS3 = await store.stat('media', 'plain.bin');

    expect(infos.map(({ etag, md5 }) => ({ etag, md5 }))).toEqual([
      { etag: 'c4ca4238a0b923820dcc509a6f75849b', md5: null },
      { etag: 'c4ca4238a0b923820dcc509a6f75849b', md5: null },
      { etag: 'c4ca4238a0b923820dcc509a6f75849b', md5: null },
    ]);
    expect(headed).toMatchObject({ etag: 'c4ca4238a0b923820dcc509a6f75849b', md5: null });
    // SSE-S3 (AES256) keeps the MD5 ETag of a plain object.
    expect(sseS3).toMatchObject({ md5: 'c4ca4238a0b923820dcc509a6f75849b' });
  });

  it("tells a parts ETag as the MD5 of the parts' MD5s, except under SSE-KMS or a customer key, or from Backblaze", async () => {
    const partsEtag = 'c4ca4238a0b923820dcc509a6f75849b-12';
    const answer =
      (headers: Record<string, string>): Answer =>
      (response) => {
        response.writeHead(200, { etag: `"${partsEtag}"`, 'content-length': '3', ...headers });
        response.end();
      };
    script.push(
      answer({ 'x-amz-server-side-encryption': 'AES256' }),
      answer({ 'x-amz-server-side-encryption': 'aws:kms' }),
      answer({ 'x-amz-server-side-encryption-customer-algorithm': 'AES256' }),
      answer({}),
    );
    const store = track(buildStore({ provider: 'genericS3', endpoint }));
    const backblaze = track(buildStore({ provider: 'backblaze', region: 'us-west-004', endpoint }));

    const sseS3 = await store.stat('media', 'a.bin');
    const kms = await store.stat('media', 'a.bin');
    const sseC = await store.stat('media', 'a.bin');
    const fromBackblaze = await backblaze.stat('media', 'a.bin');

    expect(sseS3).toMatchObject({
      md5: null,
      partsMd5: { md5: 'c4ca4238a0b923820dcc509a6f75849b', parts: 12 },
    });
    for (const info of [kms, sseC, fromBackblaze]) {
      expect(info).toMatchObject({ etag: partsEtag, md5: null });
      expect(info?.partsMd5).toBeUndefined();
    }
  });

  it('sends nothing for a read whose signal is already aborted, and rejects with AbortError', async () => {
    const store = track(buildStore({ provider: 'genericS3', endpoint }));
    const controller = new AbortController();
    const reason = new Error('lease lost');
    controller.abort(reason);

    const error = await store.read('media', 'a.txt', { signal: controller.signal }).catch((e: unknown) => e);

    // As the SDK's handler reports an abort: an AbortError carrying the signal's reason.
    expect(error).toMatchObject({ name: 'AbortError', cause: reason });
    expect(seen).toHaveLength(0);
  });
});

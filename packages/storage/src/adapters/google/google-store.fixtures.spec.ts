import { createHash, createVerify } from 'node:crypto';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { Gaxios, type GaxiosOptions } from 'gaxios';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { StorageError } from '../../object-store.ts';
import {
  buildServiceAccount,
  crc32cOf,
  loadFixture,
  multipartResource,
  startFixtureServer,
} from './fixture-server.ts';
import { GoogleObjectStore } from './google-store.ts';
import { readAll } from '../../testing/objects.ts';

/** gtoken 7 posts to this fixed URL whatever the key's token_uri says; the test sends it to the fixture server. */
const GOOGLE_TOKEN_URL = 'https://www.googleapis.com/oauth2/v4/token';

async function failure(promise: Promise<unknown>): Promise<StorageError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

describe('Google adapter against recorded GCS JSON API fixtures (no GCS emulator can be installed here)', () => {
  let server: Awaited<ReturnType<typeof startFixtureServer>>;
  let account: ReturnType<typeof buildServiceAccount>;
  let store: GoogleObjectStore;
  const token = loadFixture('token');

  /** A store with its own client, so each test starts without a cached token. */
  const newStore = (maxAttempts = 1) =>
    new GoogleObjectStore(
      { provider: 'google', credentialsJson: account.credentialsJson, endpoint: server.origin },
      { maxAttempts },
    );
  const apiRequests = () => server.requests.filter((r) => r.path !== '/oauth2/v4/token');

  beforeAll(async () => {
    server = await startFixtureServer();
    account = buildServiceAccount(server.origin);
    const request = Gaxios.prototype.request;
    vi.spyOn(Gaxios.prototype, 'request').mockImplementation(function (
      this: Gaxios,
      options: GaxiosOptions = {},
    ) {
      const redirected =
        options.url === GOOGLE_TOKEN_URL ? { ...options, url: `${server.origin}/oauth2/v4/token` } : options;
      return request.call(this, redirected);
    });
  });

  beforeEach(async () => {
    await store?.close();
    store = newStore();
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await store?.close();
    await server?.stop();
  });

  it('refuses a key that is not JSON with InvalidCredentials before any request', () => {
    server.use(token);
    expect(
      () => new GoogleObjectStore({ provider: 'google', credentialsJson: '{"type": "service_account",' }),
    ).toThrow(
      expect.objectContaining({
        code: 'InvalidCredentials',
        message: expect.stringMatching(/not valid JSON/),
      }),
    );
    expect(
      () => new GoogleObjectStore({ provider: 'google', credentialsJson: '{"type":"service_account"}' }),
    ).toThrow(/missing project_id, client_email, private_key/);
    expect(server.requests).toEqual([]);
  });

  it('verifies with one authenticated bucket page, signing the token request with the generated key', async () => {
    server.use(token, loadFixture('buckets'));
    await store.verify();
    const [tokenRequest, list] = server.requests;
    expect(tokenRequest?.method).toBe('POST');
    const assertion = new URLSearchParams(tokenRequest?.body.toString()).get('assertion') ?? '';
    const [header, claims, signature] = assertion.split('.');
    const verifier = createVerify('RSA-SHA256').update(`${header}.${claims}`);
    expect(verifier.verify(account.publicKey, signature ?? '', 'base64url')).toBe(true);
    expect(JSON.parse(Buffer.from(claims ?? '', 'base64url').toString())).toMatchObject({
      iss: account.clientEmail,
      scope: expect.stringContaining('devstorage.full_control'),
    });
    expect(list?.method).toBe('GET');
    expect(list?.path).toBe('/storage/v1/b');
    expect(list?.query.get('project')).toBe('cumulo-fixtures');
    expect(list?.query.get('maxResults')).toBe('1');
    expect(list?.headers.authorization).toBe('Bearer ya29.c.fixture-access-token');
  });

  it('reports a revoked key (token endpoint invalid_grant) as InvalidCredentials with the OAuth message', async () => {
    server.use(loadFixture('token-revoked'));
    const error = await failure(store.verify());
    expect(error.code).toBe('InvalidCredentials');
    expect(error.message).toMatch(/invalid_grant/);
    expect(error.message).toMatch(/Invalid JWT Signature/);
    expect(apiRequests()).toEqual([]);
  });

  it('reports a 401 from the token endpoint as InvalidCredentials', async () => {
    server.use(loadFixture('token-unauthorized'));
    const error = await failure(store.verify());
    expect(error.code).toBe('InvalidCredentials');
    expect(error.message).toMatch(/OAuth client was not found/);
  });

  it('reports a 401 from the API as InvalidCredentials with the API message', async () => {
    server.use(token, loadFixture('api-unauthorized'));
    const error = await failure(store.verify());
    expect(error).toMatchObject({ code: 'InvalidCredentials', status: 401, message: 'Invalid Credentials' });
  });

  it('lists buckets with lower-cased locations and creation dates', async () => {
    server.use(token, loadFixture('buckets'));
    expect(await store.listBuckets()).toEqual([
      { name: 'photos', region: 'europe-west1', createdAt: new Date('2024-03-01T10:20:30.123Z') },
      { name: 'archive', region: 'us', createdAt: new Date('2023-11-15T08:00:00.000Z') },
    ]);
    expect(apiRequests().map((r) => r.query.get('maxResults'))).toEqual(['1000']);
  });

  it('heads a bucket (its location) and answers null for a missing one', async () => {
    server.use(token, loadFixture('buckets'));
    expect(await store.headBucket('photos')).toEqual({ region: 'europe-west1' });
    expect(await store.headBucket('no-such-bucket')).toBeNull();
  });

  it('creates a bucket in the project with its location; a taken name is BucketAlreadyExists', async () => {
    server.use(token, loadFixture('buckets'));
    await store.createBucket('cumulo-new-bucket', { region: 'europe-west3' });
    const insert = apiRequests()[0];
    expect(insert?.method).toBe('POST');
    expect(insert?.path).toBe('/storage/v1/b');
    expect(insert?.query.get('project')).toBe('cumulo-fixtures');
    expect(JSON.parse(insert?.body.toString() ?? '{}')).toMatchObject({
      name: 'cumulo-new-bucket',
      location: 'europe-west3',
    });
    const error = await failure(store.createBucket('cumulo-new-bucket'));
    expect(error).toMatchObject({ code: 'BucketAlreadyExists', status: 409 });
    expect(error.message).toMatch(/already own it/);
  });

  it('reports an invalid bucket name as InvalidBucketName', async () => {
    server.use(token, loadFixture('bucket-name-invalid'));
    const error = await failure(store.createBucket('Bad_Name!'));
    expect(error).toMatchObject({ code: 'InvalidBucketName', message: "Invalid bucket name: 'Bad_Name!'" });
  });

  it('lists one level with folders from the prefixes of the answer', async () => {
    server.use(token, loadFixture('list-objects'));
    const pages = [];
    for await (const page of store.list('photos', { prefix: 'tree/', delimiter: '/' })) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(pages[0]?.prefixes).toEqual(['tree/b/', 'tree/c/']);
    expect(pages[0]?.continuationToken).toBeNull();
    // objects.list answers whole object resources (projection noAcl, no `fields` filter): user metadata and
    // content headers included, which the capability tells the transfer planner.
    expect(apiRequests()[0]?.query.has('fields')).toBe(false);
    expect(store.capabilities.metadataInListings).toBe(true);
    expect(pages[0]?.objects[0]).toEqual({
      key: 'tree/a.txt',
      size: 10,
      lastModified: new Date('2024-04-25T12:00:01.000Z'),
      etag: 'CIHAgICAgICDARAB',
      md5: '22430f85a4fa979c314c74302ccccfdf',
      contentType: 'text/plain',
      metadata: { 'cumulo-sha256': '7bfb5fa8' },
      contentHeaders: {},
    });
    expect(pages[0]?.objects[1]).toMatchObject({ key: 'tree/d.txt', size: 3, md5: null, contentType: null });
  });

  it('pages with the continuation token and resumes from one', async () => {
    server.use(token, loadFixture('list-objects'));
    const pages = [];
    for await (const page of store.list('photos', { prefix: 'tree/', pageSize: 2 })) pages.push(page);
    expect(pages.map((p) => p.objects.map((o) => o.key))).toEqual([
      ['tree/a.txt', 'tree/b/1.txt'],
      ['tree/b/2.txt', 'tree/c/3.txt'],
    ]);
    expect(pages[0]?.continuationToken).toBe('Cgx0cmVlL2IvMS50eHQ=');
    expect(apiRequests().map((r) => [r.query.get('maxResults'), r.query.get('pageToken')])).toEqual([
      ['2', null],
      ['2', 'Cgx0cmVlL2IvMS50eHQ='],
    ]);

    server.use(token, loadFixture('list-objects'));
    const resumed = [];
    for await (const page of store.list('photos', {
      prefix: 'tree/',
      pageSize: 2,
      continuationToken: 'Cgx0cmVlL2IvMS50eHQ=',
    })) {
      resumed.push(...page.objects.map((o) => o.key));
    }
    expect(resumed).toEqual(['tree/b/2.txt', 'tree/c/3.txt']);
  });

  it('clamps the page size to the API maximum of 1000', async () => {
    server.use(token, loadFixture('list-objects'));
    const pages = store.list('photos', { prefix: 'tree/', delimiter: '/', pageSize: 50_000 });
    for await (const page of pages) expect(page.prefixes).toHaveLength(2);
    expect(apiRequests()[0]?.query.get('maxResults')).toBe('1000');
  });

  it('stats an object into ObjectInfo and answers null for a missing one', async () => {
    server.use(token, loadFixture('objects'));
    expect(await store.stat('photos', 'docs/hello.txt')).toEqual({
      key: 'docs/hello.txt',
      size: 14,
      lastModified: new Date('2024-04-25T12:10:00.000Z'),
      etag: 'CJCAgICAgICDARAB',
      md5: '22430f85a4fa979c314c74302ccccfdf',
      contentType: 'text/plain',
      metadata: { 'cumulo-sha256': '7bfb5fa8871131b0561397e203693926be15861254735394e10bbfd6a76d2314' },
      contentHeaders: {
        cacheControl: 'public, max-age=3600',
        contentDisposition: 'attachment; filename="hello.txt"',
        contentLanguage: 'en',
      },
    });
    expect(apiRequests()[0]?.path).toBe('/storage/v1/b/photos/o/docs%2Fhello.txt');
    expect(await store.stat('photos', 'nope/missing.txt')).toBeNull();
  });

  it('reads a byte range with alt=media and an inclusive Range header', async () => {
    server.use(token, loadFixture('objects'));
    const body = await readAll(store, 'photos', 'range.bin', { range: { start: 3, end: 7 } });
    expect(body.toString()).toBe('34567');
    const download = apiRequests()[0];
    expect(download?.method).toBe('GET');
    expect(download?.query.get('alt')).toBe('media');
    expect(download?.headers.range).toBe('bytes=3-7');
  });

  it('reads an object stored gzip-encoded as its stored bytes, which its size and MD5 describe', async () => {
    const stored = gzipSync(Buffer.from('hello, cumulo\n'.repeat(20)));
    server.use(token, [
      {
        request: { method: 'GET', path: '/storage/v1/b/photos/o/site%2Fapp.js', query: { alt: 'media' } },
        response: {
          status: 200,
          headers: {
            'content-encoding': 'gzip',
            'x-goog-stored-content-encoding': 'gzip',
            'x-goog-hash': `crc32c=${crc32cOf(stored)},md5=${createHash('md5').update(stored).digest('base64')}`,
          },
          body: stored,
        },
      },
    ]);
    const body = await readAll(store, 'photos', 'site/app.js');
    expect(body.equals(stored)).toBe(true);
    expect(apiRequests()[0]?.headers['accept-encoding']).toMatch(/gzip/);
  });

  it('rejects from read() itself with ObjectNotFound for a missing object', async () => {
    server.use(token, loadFixture('objects'));
    const error = await failure(store.read('photos', 'nope/missing.txt'));
    expect(error).toMatchObject({ code: 'ObjectNotFound', status: 404 });
    expect(error.message).toBe('No such object: photos/nope/missing.txt');
  });

  it('maps a 403 to AccessDenied with the API message', async () => {
    server.use(token, loadFixture('objects'));
    const error = await failure(store.stat('private', 'secret.txt'));
    expect(error).toMatchObject({ code: 'AccessDenied', status: 403 });
    expect(error.message).toMatch(/does not have storage.objects.get access/);
  });

  it('retries a 503 with the library backoff and succeeds on the next attempt', async () => {
    server.use(token, loadFixture('throttled'));
    const retrying = newStore(2);
    expect(await retrying.stat('photos', 'busy.txt')).toMatchObject({ key: 'busy.txt', size: 4 });
    expect(apiRequests().map((r) => r.path)).toEqual([
      '/storage/v1/b/photos/o/busy.txt',
      '/storage/v1/b/photos/o/busy.txt',
    ]);
    await retrying.close();
  });

  it('gives up after maxAttempts and reports Throttled', async () => {
    server.use(token, loadFixture('throttled'));
    const error = await failure(store.stat('photos', 'always-busy.txt'));
    expect(error).toMatchObject({ code: 'Throttled', status: 429 });
    expect(apiRequests()).toHaveLength(1);
  });

  it('writes a small buffer in one multipart request with content type and metadata', async () => {
    server.use(token, loadFixture('uploads'));
    const body = Buffer.from('hello, cumulo\n');
    const progress: number[] = [];
    const result = await store.write('photos', 'docs/hello.txt', body, {
      contentType: 'text/plain',
      metadata: { 'cumulo-sha256': createHash('sha256').update(body).digest('hex') },
      onProgress: (n) => progress.push(n),
    });
    expect(result).toEqual({ etag: 'CJCAgICAgICDARAB', size: 14 });
    expect(progress).toEqual([14]);
    const upload = apiRequests()[0];
    expect(upload?.method).toBe('POST');
    expect(upload?.path).toBe('/upload/storage/v1/b/photos/o');
    expect(upload?.query.get('uploadType')).toBe('multipart');
    expect(upload && multipartResource(upload)).toMatchObject({
      contentType: 'text/plain',
      metadata: { 'cumulo-sha256': createHash('sha256').update(body).digest('hex') },
    });
  });

  it('writes content headers as the object resource fields GCS serves them from', async () => {
    server.use(token, loadFixture('uploads'));
    const contentHeaders = {
      cacheControl: 'no-cache',
      contentDisposition: 'inline',
      contentEncoding: 'gzip',
      contentLanguage: 'fr',
    };
    await store.write('photos', 'docs/hello.txt', Buffer.from('small'), { contentHeaders });
    await store.write('photos', 'big/large.bin', Readable.from([Buffer.alloc(9 * 1024 * 1024)]), {
      size: 9 * 1024 * 1024,
      contentHeaders,
    });
    const [small, resumable] = apiRequests();
    expect(small && multipartResource(small)).toMatchObject(contentHeaders);
    expect(resumable?.query.get('uploadType')).toBe('resumable');
    expect(JSON.parse(resumable?.body.toString() ?? '{}')).toMatchObject(contentHeaders);
  });

  it("sends the caller's MD5 of a buffer as md5Hash, which GCS checks the received bytes against", async () => {
    server.use(token, loadFixture('uploads'));
    const body = Buffer.from('hello, cumulo\n');
    const md5 = createHash('md5').update(body);
    await store.write('photos', 'docs/hello.txt', body, { md5: md5.copy().digest('hex') });
    const upload = apiRequests()[0];
    expect(upload && multipartResource(upload)).toMatchObject({ md5Hash: md5.digest('base64') });
  });

  it('writes a large stream as a resumable upload in 256 KiB-multiple chunks, progress ending at the total', async () => {
    server.use(token, loadFixture('uploads'));
    const total = 9 * 1024 * 1024 + 77;
    const bytes = Buffer.alloc(total, 'cumulo');
    const progress: number[] = [];
    const result = await store.write('photos', 'big/large.bin', Readable.from([bytes]), {
      size: total,
      onProgress: (n) => progress.push(n),
    });
    expect(result).toEqual({ etag: 'CMCAgICAgICDARAB', size: total });
    expect(progress.at(-1)).toBe(total);
    const [start, ...chunks] = apiRequests();
    expect(start?.method).toBe('POST');
    expect(start?.query.get('uploadType')).toBe('resumable');
    expect(chunks.map((c) => c.method)).toEqual(['PUT', 'PUT']);
    expect(chunks.map((c) => c.headers['content-range'])).toEqual([
      `bytes 0-${8 * 1024 * 1024 - 1}/*`,
      `bytes ${8 * 1024 * 1024}-${total - 1}/${total}`,
    ]);
    expect((chunks[0]?.body.length ?? 0) % (256 * 1024)).toBe(0);
    expect(Buffer.concat(chunks.map((c) => c.body)).equals(bytes)).toBe(true);
  });

  it('cancels the resumable session when the write is aborted, so no object is created', async () => {
    server.use(token, loadFixture('uploads'));
    const total = 20 * 1024 * 1024;
    const controller = new AbortController();
    let sent = 0;
    const source = new Readable({
      read() {
        if (sent >= total) return void this.push(null);
        sent += 1024 * 1024;
        if (sent > 9 * 1024 * 1024) controller.abort();
        this.push(Buffer.alloc(1024 * 1024, 'x'));
      },
    });
    await expect(
      store.write('photos', 'big/large.bin', source, { size: total, signal: controller.signal }),
    ).rejects.toThrow(/abort/i);
    const methods = apiRequests().map((r) => r.method);
    expect(methods.at(-1)).toBe('DELETE');
    expect(apiRequests().at(-1)?.query.get('upload_id')).toBe('ADPycdvFixtureSession');
    expect(apiRequests().some((r) => /\/\d+$/.test(String(r.headers['content-range'] ?? '')))).toBe(false);
  });

  it('deletes many keys, counting missing ones as deleted and reporting per-key failures', async () => {
    server.use(token, loadFixture('objects'));
    const result = await store.deleteMany('photos', ['old/1.txt', 'old/gone.txt', 'old/locked.txt']);
    expect(result.deleted.sort()).toEqual(['old/1.txt', 'old/gone.txt']);
    expect(result.errors).toEqual([
      { key: 'old/locked.txt', message: expect.stringMatching(/retention policy/) },
    ]);
    expect(apiRequests().map((r) => r.method)).toEqual(['DELETE', 'DELETE', 'DELETE']);
  });

  it('copies server side with objects.rewrite', async () => {
    server.use(token, loadFixture('objects'));
    await store.copy(
      { bucket: 'photos', key: 'docs/hello.txt' },
      { bucket: 'archive', key: '2024/hello.txt' },
    );
    expect(apiRequests().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /storage/v1/b/photos/o/docs%2Fhello.txt/rewriteTo/b/archive/o/2024%2Fhello.txt',
    ]);
  });

  it('adds metadata to a copy with objects.patch, which merges it into the metadata the copy kept', async () => {
    server.use(token, loadFixture('objects'), [
      {
        request: { method: 'PATCH', path: '/storage/v1/b/archive/o/2024%2Fhello.txt' },
        response: {
          status: 200,
          body: {
            kind: 'storage#object',
            name: '2024/hello.txt',
            bucket: 'archive',
            size: '14',
            md5Hash: 'IkMPhaT6l5wxTHQwLMzP3w==',
            etag: 'CKCAgICAgICDARAC',
            metadata: { 'cumulo-sha256': 'abc', 'cumulo-source-etag': 'CJCAgICAgICDARAB' },
          },
        },
      },
    ]);
    const copied = await store.copy(
      { bucket: 'photos', key: 'docs/hello.txt' },
      { bucket: 'archive', key: '2024/hello.txt' },
      { addMetadata: { 'cumulo-source-etag': 'CJCAgICAgICDARAB' } },
    );
    expect(copied).toEqual({ etag: 'CKCAgICAgICDARAC', md5: '22430f85a4fa979c314c74302ccccfdf' });
    const [rewrite, patch] = apiRequests();
    expect(rewrite?.path).toMatch(/\/rewriteTo\//);
    expect(patch?.method).toBe('PATCH');
    expect(JSON.parse(patch?.body.toString() ?? '{}')).toEqual({
      metadata: { 'cumulo-source-etag': 'CJCAgICAgICDARAB' },
    });
  });

  it('signs v4 URLs locally with the service-account key', async () => {
    server.use(token);
    const url = new URL(
      await store.signedUrl('photos', 'docs/hello.txt', {
        method: 'GET',
        expiresInSeconds: 300,
        downloadName: 'hello.txt',
      }),
    );
    expect(url.origin).toBe(server.origin);
    expect(url.pathname).toBe('/photos/docs/hello.txt');
    expect(url.searchParams.get('X-Goog-Algorithm')).toBe('GOOG4-RSA-SHA256');
    expect(url.searchParams.get('X-Goog-Expires')).toBe('300');
    expect(url.searchParams.get('X-Goog-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Goog-Credential')).toMatch(
      /^cumulo@cumulo-fixtures\.iam\.gserviceaccount\.com\/\d{8}\/auto\/storage\/goog4_request$/,
    );
    expect(url.searchParams.get('response-content-disposition')).toMatch(/attachment; filename="hello.txt"/);
    expect(server.requests).toEqual([]);

    // The V4 string to sign (Google's documented canonical request), checked against the generated public key.
    const signature = url.searchParams.get('X-Goog-Signature') ?? '';
    const query = [...url.searchParams.entries()]
      .filter(([name]) => name !== 'X-Goog-Signature')
      .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
      .sort()
      .join('&');
    // The library signs the host name without the port (real GCS has none).
    const canonical = ['GET', url.pathname, query, `host:${url.hostname}\n`, 'host', 'UNSIGNED-PAYLOAD'].join(
      '\n',
    );
    const credential = url.searchParams.get('X-Goog-Credential') ?? '';
    const scope = credential.split('/').slice(1).join('/');
    const stringToSign = [
      'GOOG4-RSA-SHA256',
      url.searchParams.get('X-Goog-Date'),
      scope,
      createHash('sha256').update(canonical).digest('hex'),
    ].join('\n');
    expect(createVerify('RSA-SHA256').update(stringToSign).verify(account.publicKey, signature, 'hex')).toBe(
      true,
    );

    const put = new URL(
      await store.signedUrl('photos', 'up.txt', {
        method: 'PUT',
        expiresInSeconds: 60,
        contentType: 'text/plain',
      }),
    );
    expect(put.searchParams.get('X-Goog-SignedHeaders')).toBe('content-type;host');
    expect(put.searchParams.get('X-Goog-Expires')).toBe('60');
  });

  it('reads and writes bucket CORS, versioning, lifecycle and labels through bucket metadata', async () => {
    server.use(token, loadFixture('buckets'));
    const { cors, versioning, lifecycle, tags } = store.capabilities;
    expect(await cors?.getCors('photos')).toEqual([
      {
        allowedOrigins: ['https://app.cumulo.test'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['Content-Type', 'x-goog-meta-cumulo-sha256'],
        exposeHeaders: ['Content-Type', 'x-goog-meta-cumulo-sha256'],
        maxAgeSeconds: 3600,
      },
    ]);
    expect(await versioning?.getVersioning('photos')).toBe('enabled');
    expect(await tags?.getBucketTags('photos')).toEqual({ team: 'media', env: 'prod' });

    server.use(token, loadFixture('buckets'));
    await cors?.putCors('photos', [
      {
        allowedOrigins: ['*'],
        allowedMethods: ['GET'],
        allowedHeaders: ['Content-Type'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 60,
      },
    ]);
    await versioning?.putVersioning('photos', false);
    await lifecycle?.putAbortIncompleteUploads('photos', 7);
    await tags?.putBucketTags('photos', { team: 'archive' });
    const patches = apiRequests()
      .filter((r) => r.method === 'PATCH')
      .map((r) => JSON.parse(r.body.toString()) as Record<string, unknown>);
    expect(patches).toEqual([
      {
        cors: [
          { origin: ['*'], method: ['GET'], responseHeader: ['Content-Type', 'ETag'], maxAgeSeconds: 60 },
        ],
      },
      { versioning: { enabled: false } },
      {
        lifecycle: {
          rule: [
            { action: { type: 'Delete' }, condition: { age: 365 } },
            { action: { type: 'AbortIncompleteMultipartUpload' }, condition: { age: 7 } },
          ],
        },
      },
      { labels: { env: null, team: 'archive' } },
    ]);
  });

  it('closes safely twice', async () => {
    await store.close();
    await store.close();
  });
});

/** RFC 3986 encoding, as the V4 canonical query string requires. */
function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

import { createHash, randomBytes } from 'node:crypto';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROLE_ID,
  authzMessages,
  UPLOAD_BATCH_MAX,
  uploadMessages,
  type CompleteUploadBatchAnswer,
  type SignedPart,
  type StartUploadBatchAnswer,
  type UploadSession,
} from '@cumulo/contract';
import { AzureObjectStore, S3ObjectStore } from '@cumulo/storage/adapters';
import {
  AZURITE_ACCOUNT,
  AZURITE_KEY,
  readAll,
  startAzurite,
  startS3rver,
  type S3rverServer,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import {
  callApi,
  connectLabAccounts,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { uploadErrors } from './uploads.service.ts';
import { bucketConfigMessages } from './bucket-config.service.ts';

const MiB = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let server: TestServer;
let s3rver: S3rverServer;
let azurite: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let stranger: Awaited<ReturnType<typeof signedInMember>>;
let awsId: string;
let azureId: string;
let s3: S3ObjectStore;
let blob: AzureObjectStore;
let blobService: BlobServiceClient;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, azure: azurite.endpoint }),
  });
  owner = await signedInMember(server, 'owner');
  stranger = await signedInMember(server, 'stranger');
  ({ awsId, azureId, s3, blob } = await connectLabAccounts(server, owner.token, {
    s3rver: s3rver.endpoint,
    azurite: azurite.endpoint,
  }));
  blobService = new BlobServiceClient(
    azurite.endpoint,
    new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY),
  );
  await s3.createBucket('uploads');
  await blob.createBucket('uploads');
});
afterAll(async () => {
  await s3?.close();
  await blob?.close();
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

interface StartFields {
  cloud_account_id: string;
  key: string;
  size: number;
  fingerprint?: string;
  content_type?: string;
}

async function start(fields: StartFields, token = owner.token): Promise<UploadSession> {
  const res = await call('POST', '/api/transfers/uploads', token, {
    bucket_name: 'uploads',
    fingerprint: `${fields.key}:${fields.size}:1700000000000`,
    ...fields,
  });
  expect(res.status).toBe(200);
  return res.body as UploadSession;
}

async function sign(sessionId: string, parts: number[], token = owner.token) {
  const res = await call(
    'GET',
    `/api/transfers/url_signer_v4?session_id=${sessionId}&part_numbers=${parts.join(',')}`,
    token,
  );
  expect(res.status).toBe(200);
  return (res.body as { parts: SignedPart[] }).parts;
}

/** The browser's side: PUT each part to its signed URL, keep the ETag the store answers. */
async function putParts(session: UploadSession, file: Buffer, parts: number[]) {
  const sent: Array<{ part_number: number; etag: string | null }> = [];
  for (const target of await sign(session.session_id, parts)) {
    expect(target.url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum/i);
    const first = (target.part_number - 1) * session.part_size;
    const answer = await fetch(target.url, {
      method: target.method,
      headers: target.headers,
      body: file.subarray(first, first + session.part_size),
    });
    expect(answer.status).toBeLessThan(300);
    sent.push({ part_number: target.part_number, etag: answer.headers.get('etag') });
  }
  return sent;
}

describe('direct uploads against s3rver (aws) and Azurite (azure) with embedded PostgreSQL', () => {
  it('uploads a 12 MiB file to s3rver in three presigned 5 MiB parts, byte-identical', async () => {
    const file = randomBytes(12 * MiB);
    const session = await start({
      cloud_account_id: awsId,
      key: 'media/movie one.mp4',
      size: file.length,
      content_type: 'video/mp4',
    });
    expect(session).toMatchObject({
      mode: 's3-multipart',
      part_size: 5 * MiB,
      parts_total: 3,
      finished_parts: [],
      resumed: false,
    });
    const parts = await putParts(session, file, [1, 2, 3]);

    const done = await call('POST', `/api/transfers/uploads/${session.session_id}/complete`, owner.token, {
      parts,
    });

    expect(done).toMatchObject({ status: 200, body: { key: 'media/movie one.mp4', size: file.length } });
    expect(await s3.stat('uploads', 'media/movie one.mp4')).toMatchObject({ contentType: 'video/mp4' });
    expect(sha256(await readAll(s3, 'uploads', 'media/movie one.mp4'))).toBe(sha256(file));
    // The session is over: its URLs are no longer handed out.
    const again = await call(
      'GET',
      `/api/transfers/url_signer_v4?session_id=${session.session_id}&part_numbers=1`,
      owner.token,
    );
    expect(again).toMatchObject({ status: 400, body: { message: uploadErrors.inactive } });
  });

  it('sends a small file in one presigned PUT and checks its size on completion', async () => {
    const file = randomBytes(100 * 1024);
    const session = await start({
      cloud_account_id: awsId,
      key: 'notes/small.txt',
      size: file.length,
      content_type: 'text/plain',
    });
    expect(session).toMatchObject({ mode: 'single', parts_total: 1 });
    await putParts(session, file, [1]);

    const done = await call('POST', `/api/transfers/uploads/${session.session_id}/complete`, owner.token, {
      parts: [],
    });

    expect(done).toMatchObject({ status: 200, body: { size: file.length } });
    expect(sha256(await readAll(s3, 'uploads', 'notes/small.txt'))).toBe(sha256(file));
  });

  it('fails clearly and discards the object when the store holds another size than the file', async () => {
    const session = await start({ cloud_account_id: awsId, key: 'notes/short.txt', size: 4096 });
    await putParts(session, randomBytes(4096), [1]);
    await s3.write('uploads', 'notes/short.txt', randomBytes(1000));

    const done = await call('POST', `/api/transfers/uploads/${session.session_id}/complete`, owner.token, {
      parts: [],
    });

    expect(done).toMatchObject({ status: 400, body: { message: uploadErrors.sizeMismatch(1000, 4096) } });
    expect(await s3.stat('uploads', 'notes/short.txt')).toBeNull();
  });

  it('uploads a 12 MiB file to Azurite in blocks, and resumes from the staged block after a reload', async () => {
    const file = randomBytes(12 * MiB);
    const fields = { cloud_account_id: azureId, key: 'media/resumed.bin', size: file.length };
    const first = await start(fields);
    expect(first).toMatchObject({ mode: 'azure-blocks', parts_total: 3, resumed: false });
    await putParts(first, file, [2]);

    // The page reloads; the same file is picked again.
    const resumed = await start(fields);

    expect(resumed).toMatchObject({
      session_id: first.session_id,
      resumed: true,
      finished_parts: [{ part_number: 2, size: 5 * MiB, etag: null }],
    });
    await putParts(resumed, file, [1, 3]);
    const done = await call('POST', `/api/transfers/uploads/${resumed.session_id}/complete`, owner.token, {
      parts: [1, 2, 3].map((part_number) => ({ part_number, etag: null })),
    });
    expect(done).toMatchObject({ status: 200, body: { size: file.length } });
    expect(sha256(await readAll(blob, 'uploads', 'media/resumed.bin'))).toBe(sha256(file));
  });

  it('cancelling an Azure upload leaves no blob and no uncommitted block', async () => {
    const file = randomBytes(11 * MiB);
    const session = await start({ cloud_account_id: azureId, key: 'media/cancelled.bin', size: file.length });
    await putParts(session, file, [1, 2]);

    const cancelled = await call('DELETE', `/api/transfers/uploads/${session.session_id}`, owner.token);

    expect(cancelled).toMatchObject({ status: 200, body: { message: uploadMessages.cancelled } });
    expect(await blob.stat('uploads', 'media/cancelled.bin')).toBeNull();
    const blocks = await blobService
      .getContainerClient('uploads')
      .getBlockBlobClient('media/cancelled.bin')
      .getBlockList('all')
      .catch((error: { statusCode?: number }) => error);
    expect(blocks).toMatchObject({ statusCode: 404 });
    // A second cancel (a double click) is answered the same way.
    const twice = await call('DELETE', `/api/transfers/uploads/${session.session_id}`, owner.token);
    expect(twice.status).toBe(200);
  });

  it('resumes an s3rver upload after a reload from the parts ListParts reports, byte-identical', async () => {
    const file = randomBytes(12 * MiB);
    const fields = { cloud_account_id: awsId, key: 'media/resumed.mp4', size: file.length };
    const first = await start(fields);
    const [part1] = await putParts(first, file, [1]);

    // The page reloads; the same file is picked again.
    const resumed = await start(fields);

    expect(resumed).toMatchObject({
      session_id: first.session_id,
      mode: 's3-multipart',
      resumed: true,
      finished_parts: [{ part_number: 1, size: 5 * MiB, etag: part1?.etag?.replace(/"/g, '') }],
    });
    const rest = await putParts(resumed, file, [2, 3]);
    const done = await call('POST', `/api/transfers/uploads/${resumed.session_id}/complete`, owner.token, {
      parts: [...resumed.finished_parts.map(({ part_number, etag }) => ({ part_number, etag })), ...rest],
    });
    expect(done).toMatchObject({ status: 200, body: { key: 'media/resumed.mp4', size: file.length } });
    expect(sha256(await readAll(s3, 'uploads', 'media/resumed.mp4'))).toBe(sha256(file));
    expect(await s3rver.openUploads('uploads', 'media/resumed.mp4')).toEqual([]);
  });

  it('cancelling an s3rver upload aborts it with the provider: no upload stays open, no object appears', async () => {
    const file = randomBytes(11 * MiB);
    const session = await start({ cloud_account_id: awsId, key: 'media/cancelled.mp4', size: file.length });
    await putParts(session, file, [1, 2]);
    expect(await s3rver.openUploads('uploads', 'media/cancelled.mp4')).toHaveLength(1);

    const cancelled = await call('DELETE', `/api/transfers/uploads/${session.session_id}`, owner.token);

    expect(cancelled).toMatchObject({ status: 200, body: { message: uploadMessages.cancelled } });
    expect(await s3rver.openUploads('uploads')).toEqual([]);
    expect(await s3.stat('uploads', 'media/cancelled.mp4')).toBeNull();
    const signAgain = await call(
      'GET',
      `/api/transfers/url_signer_v4?session_id=${session.session_id}&part_numbers=3`,
      owner.token,
    );
    expect(signAgain).toMatchObject({ status: 400, body: { message: uploadErrors.inactive } });
  });

  it('starts over when s3rver no longer knows the earlier upload (aborted outside Cumulo)', async () => {
    const file = randomBytes(11 * MiB);
    const fields = { cloud_account_id: awsId, key: 'media/restart.bin', size: file.length };
    const first = await start(fields);
    await putParts(first, file, [1]);
    const [earlier] = await s3rver.openUploads('uploads', 'media/restart.bin');
    if (!earlier) throw new Error('s3rver should hold the first upload');
    // Another tool (or a lifecycle rule) aborts the upload behind Cumulo's back.
    await s3rver.abortUpload('uploads', earlier.key, earlier.uploadId);

    const second = await start(fields);

    expect(second).toMatchObject({ resumed: false, finished_parts: [] });
    expect(second.session_id).not.toBe(first.session_id);
    const { rows } = await server.db.pool.query<{ status: string }>(
      'select status from upload_sessions where id = $1',
      [first.session_id],
    );
    expect(rows).toEqual([{ status: 'aborted' }]);
    const parts = await putParts(second, file, [1, 2, 3]);
    const done = await call('POST', `/api/transfers/uploads/${second.session_id}/complete`, owner.token, {
      parts,
    });
    expect(done.status).toBe(200);
    expect(sha256(await readAll(s3, 'uploads', 'media/restart.bin'))).toBe(sha256(file));
    expect(await s3rver.openUploads('uploads', 'media/restart.bin')).toEqual([]);
  });

  it('answers 404 to another organisation for its sessions and accounts', async () => {
    const session = await start({ cloud_account_id: azureId, key: 'private/mine.bin', size: 11 * MiB });
    const id = session.session_id;

    const results = await Promise.all([
      call('GET', `/api/transfers/url_signer_v4?session_id=${id}&part_numbers=1`, stranger.token),
      call('POST', `/api/transfers/uploads/${id}/complete`, stranger.token, { parts: [] }),
      call('DELETE', `/api/transfers/uploads/${id}`, stranger.token),
      call('POST', '/api/transfers/uploads', stranger.token, {
        cloud_account_id: azureId,
        bucket_name: 'uploads',
        key: 'x',
        size: 1,
        fingerprint: 'x',
      }),
      call('PUT', '/api/transfers/update_bucket_config/', stranger.token, {
        cloud_account_id: awsId,
        bucket_name: 'uploads',
        cors: true,
      }),
      call('POST', '/api/transfers/report', stranger.token, {
        s3_direct: {
          direction: 'upload',
          files: [{ name: 'a', bucket_name: 'uploads', cloud_account_id: awsId, size: 1, duration: 1 }],
        },
      }),
    ]);

    expect(results.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404]);
    // The owner's session is untouched.
    expect((await sign(id, [1])).length).toBe(1);
  });

  it('answers 400 to bad input', async () => {
    const session = await start({ cloud_account_id: azureId, key: 'bad/input.bin', size: 11 * MiB });
    const noKey = await call('POST', '/api/transfers/uploads', owner.token, {
      cloud_account_id: azureId,
      bucket_name: 'uploads',
      size: -1,
      fingerprint: '',
    });
    const badList = await call(
      'GET',
      `/api/transfers/url_signer_v4?session_id=${session.session_id}&part_numbers=1;2`,
      owner.token,
    );
    const outOfRange = await call(
      'GET',
      `/api/transfers/url_signer_v4?session_id=${session.session_id}&part_numbers=1,4`,
      owner.token,
    );
    const missing = await call('POST', `/api/transfers/uploads/${session.session_id}/complete`, owner.token, {
      parts: [{ part_number: 1, etag: null }],
    });
    const badAcl = await call('POST', '/api/transfers/uploads', owner.token, {
      cloud_account_id: azureId,
      bucket_name: 'uploads',
      key: 'x',
      size: 1,
      fingerprint: 'x',
      acl: 'everyone',
    });

    expect([noKey.status, badList.status, outOfRange.status, missing.status, badAcl.status]).toEqual([
      400, 400, 400, 400, 400,
    ]);
    expect(outOfRange.body).toMatchObject({ message: uploadErrors.partRange(3) });
    expect(missing.body).toMatchObject({ message: uploadErrors.missingParts([2, 3]) });
  });

  it('records each reported upload, files and directories', async () => {
    const res = await call('POST', '/api/transfers/report', owner.token, {
      s3_direct: {
        direction: 'upload',
        s3Acceleration: false,
        files: [
          {
            name: 'media/movie one.mp4',
            bucket_name: 'uploads',
            cloud_account_id: awsId,
            contentType: 'video/mp4',
            size: 12 * MiB,
            duration: 1500,
          },
          {
            is_directory: true,
            name: 'holiday',
            bucket_name: 'uploads',
            cloud_account_id: azureId,
            size: 3000,
            file_count: 3,
            duration: 900,
          },
        ],
      },
    });

    expect(res.status).toBe(201);
    const { rows } = await server.db.pool.query<{
      name: string;
      size: string;
      duration_ms: number;
      is_directory: boolean;
      file_count: number | null;
      content_type: string | null;
    }>(
      `select name, size, duration_ms, is_directory, file_count, content_type from upload_reports
       where organization_id = $1 order by name`,
      [owner.principal.organizationId],
    );
    expect(rows).toEqual([
      {
        name: 'holiday',
        size: '3000',
        duration_ms: 900,
        is_directory: true,
        file_count: 3,
        content_type: null,
      },
      {
        name: 'media/movie one.mp4',
        size: String(12 * MiB),
        duration_ms: 1500,
        is_directory: false,
        file_count: null,
        content_type: 'video/mp4',
      },
    ]);
    const empty = await call('POST', '/api/transfers/report', owner.token, {
      s3_direct: { direction: 'upload', files: [] },
    });
    expect(empty.status).toBe(400);
  });

  it('aborts sessions left without activity for a day (the pg-boss sweep)', async () => {
    const file = randomBytes(11 * MiB);
    const session = await start({ cloud_account_id: azureId, key: 'media/abandoned.bin', size: file.length });
    await putParts(session, file, [1]);
    const fresh = await start({ cloud_account_id: azureId, key: 'media/recent.bin', size: file.length });
    await server.db.pool.query(
      `update upload_sessions set updated_at = now() - interval '25 hours' where id = $1`,
      [session.session_id],
    );

    const result = await server.services.uploads.sweepAbandoned();

    expect(result).toEqual({ aborted: 1, failed: 0 });
    const { rows } = await server.db.pool.query<{ id: string; status: string }>(
      'select id, status from upload_sessions where id = any($1)',
      [[session.session_id, fresh.session_id]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      [session.session_id]: 'aborted',
      [fresh.session_id]: 'active',
    });
    const blocks = await blobService
      .getContainerClient('uploads')
      .getBlockBlobClient('media/abandoned.bin')
      .getBlockList('all')
      .catch((error: { statusCode?: number }) => error);
    expect(blocks).toMatchObject({ statusCode: 404 });
  });

  it('puts a CORS rule for this app on the bucket, and says what the provider cannot do', async () => {
    const s3Cors = await call('PUT', '/api/transfers/update_bucket_config/', owner.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      cors: true,
    });
    expect(s3Cors).toMatchObject({
      status: 200,
      body: { message: bucketConfigMessages.updated, cors: null },
    });
    expect(await s3.capabilities.cors?.getCors('uploads')).toEqual([
      {
        allowedOrigins: ['http://cumulo.test'],
        allowedMethods: ['PUT', 'GET', 'HEAD', 'POST'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 3600,
      },
    ]);

    const azureCors = await call('PUT', '/api/transfers/update_bucket_config/', owner.token, {
      cloud_account_id: azureId,
      bucket_name: 'uploads',
      cors: true,
      s3Acceleration: true,
    });
    expect(azureCors).toMatchObject({
      status: 400,
      body: { cors: null, s3_acceleration: bucketConfigMessages.accelerationUnsupported },
    });
    expect((await blob.capabilities.cors?.getCors('uploads'))?.[0]?.allowedOrigins).toEqual([
      'http://cumulo.test',
    ]);

    // s3rver has no PutBucketAccelerateConfiguration (it takes the PUT for a CreateBucket of an existing name):
    // the provider's own refusal is passed on in s3_acceleration.
    const accelerate = await call('PUT', '/api/transfers/update_bucket_config/', owner.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      s3Acceleration: true,
    });
    expect(accelerate).toMatchObject({
      status: 400,
      body: { cors: null, s3_acceleration: 'The requested bucket already exists' },
    });

    const missingBucket = await call('PUT', '/api/transfers/update_bucket_config/', owner.token, {
      cloud_account_id: awsId,
      bucket_name: 'no-such-bucket',
      cors: true,
    });
    expect(missingBucket).toMatchObject({
      status: 400,
      body: { message: uploadMessages.corsFailed, cors: uploadMessages.corsFailed },
    });
  });

  it('lets the browser reach the stores under the CSP, and tells the upload gate through the profile', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/health' });
    const csp = res.headers['content-security-policy'];
    const connectSrc = String(csp)
      .split(';')
      .find((d) => d.trim().startsWith('connect-src'));
    expect(connectSrc?.trim().split(/\s+/)).toEqual(
      expect.arrayContaining(["'self'", 'https:', s3rver.endpoint, new URL(azurite.endpoint).origin]),
    );
    const me = await call('GET', '/api/users/_me', owner.token);
    expect(me.body).toMatchObject({ in_trial: true, package: { has_s3_native: true } });
  });
});

describe('folder uploads: many small files per call (issue 21)', () => {
  const batchOf = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      key: `${prefix}/f${i}.txt`,
      size: 4 + String(i).length,
      fingerprint: `${prefix}/f${i}.txt:1700000000000`,
      content_type: 'text/plain',
    }));

  it('opens and signs 100 small files in one call, completes them in one call; bytes in the bucket', async () => {
    const files = batchOf('batch', UPLOAD_BATCH_MAX);
    const opened = await call('POST', '/api/transfers/uploads/batch', owner.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      files,
    });
    expect(opened.status).toBe(200);
    const answer = opened.body as StartUploadBatchAnswer;
    const signed = answer.files;
    expect(signed.map((f) => f.key)).toEqual(files.map((f) => f.key));
    expect(new Set(signed.map((f) => f.session_id)).size).toBe(UPLOAD_BATCH_MAX);
    // A signed form (S3 POST policy) per file, bound to that file's exact key and size.
    expect(signed.every((f) => f.method === 'POST' && f.url === `${s3rver.endpoint}/uploads/`)).toBe(true);
    const policy = JSON.parse(Buffer.from(signed[7]?.fields.policy ?? '', 'base64').toString()) as {
      conditions: unknown[];
    };
    expect(policy.conditions).toContainEqual({ key: 'batch/f7.txt' });
    expect(policy.conditions).toContainEqual(['content-length-range', 5, 5]);
    // The browser's side: one form POST per file straight to s3rver.
    await Promise.all(
      signed.map(async (target, i) => {
        const form = new FormData();
        const fields = { ...answer.form_fields, ...target.fields };
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        form.append('key', target.key);
        form.append('Content-Type', 'text/plain');
        form.append('file', new Blob([`file${i}`]));
        const put = await fetch(target.url, { method: target.method, body: form });
        expect(put.status).toBe(204);
      }),
    );
    const done = await call('POST', '/api/transfers/uploads/batch/complete', owner.token, {
      session_ids: signed.map((f) => f.session_id),
    });
    expect(done.status).toBe(200);
    const results = (done.body as CompleteUploadBatchAnswer).files;
    expect(results).toHaveLength(UPLOAD_BATCH_MAX);
    expect(results.every((r) => r.error === null)).toBe(true);
    expect((await readAll(s3, 'uploads', 'batch/f42.txt')).toString()).toBe('file42');
    // The bucket is counted again shortly (one walk for the uploads of that while), so the dashboard follows.
    const recount = await server.db.pool.query(
      `select data from pgboss.job where name = 'inventory.account' and singleton_key = $1 and state = 'created'`,
      [`${awsId}/uploads`],
    );
    expect(recount.rows).toEqual([
      {
        data: expect.objectContaining({
          organizationId: owner.principal.organizationId,
          accountId: awsId,
          bucket: 'uploads',
        }),
      },
    ]);
    // The sessions are complete: completing one again through the one-file call is refused.
    const again = await call(
      'POST',
      `/api/transfers/uploads/${signed[0]?.session_id}/complete`,
      owner.token,
      {
        parts: [],
      },
    );
    expect(again.status).toBe(400);
  });

  it('says per file what did not arrive or arrived with another size', async () => {
    const files = batchOf('partial', 3);
    const opened = await call('POST', '/api/transfers/uploads/batch', owner.token, {
      cloud_account_id: azureId,
      bucket_name: 'uploads',
      files,
    });
    // Azure has no signed forms: a signed PUT per file.
    expect((opened.body as StartUploadBatchAnswer).form_fields).toBeNull();
    const [ok, wrong, missing] = (opened.body as StartUploadBatchAnswer).files;
    if (!ok || !wrong || !missing) throw new Error('three files expected');
    expect(ok.method).toBe('PUT');
    for (const [target, body] of [
      [ok, 'file0'],
      [wrong, 'far too long for its size'],
    ] as const) {
      const answer = await fetch(target.url, { method: 'PUT', headers: target.headers, body });
      expect(answer.status).toBe(201);
    }
    const done = await call('POST', '/api/transfers/uploads/batch/complete', owner.token, {
      session_ids: [ok.session_id, wrong.session_id, missing.session_id],
    });
    expect((done.body as CompleteUploadBatchAnswer).files.map((f) => f.error)).toEqual([
      null,
      uploadErrors.sizeMismatch(25, 5),
      uploadErrors.notUploaded,
    ]);
    expect(await blob.stat('uploads', wrong.key)).toBeNull();
  });

  it("refuses another member's sessions (role User), another organisation, and input outside the rules", async () => {
    const user = await signedInMember(server, 'uploader', {
      principal: owner.principal,
      roleId: ROLE_ID.User,
    });
    const opened = await call('POST', '/api/transfers/uploads/batch', owner.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      files: batchOf('owners', 2),
    });
    const ownerIds = (opened.body as StartUploadBatchAnswer).files.map((f) => f.session_id);

    // A User may upload in batches to the organisation's accounts…
    const own = await call('POST', '/api/transfers/uploads/batch', user.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      files: batchOf('users', 1),
    });
    expect(own.status).toBe(200);
    const userIds = (own.body as StartUploadBatchAnswer).files.map((f) => f.session_id);
    // …but not complete the Owner's sessions, not even mixed with their own.
    const others = await call('POST', '/api/transfers/uploads/batch/complete', user.token, {
      session_ids: [...userIds, ...ownerIds],
    });
    expect(others.status).toBe(404);

    const results = await Promise.all([
      call('POST', '/api/transfers/uploads/batch', stranger.token, {
        cloud_account_id: awsId,
        bucket_name: 'uploads',
        files: batchOf('stranger', 1),
      }),
      call('POST', '/api/transfers/uploads/batch/complete', stranger.token, { session_ids: ownerIds }),
      call(
        'GET',
        `/api/transfers/bucket_config?cloud_account_id=${awsId}&bucket_name=uploads`,
        stranger.token,
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual([404, 404, 404]);

    const bad = await Promise.all([
      // More than UPLOAD_BATCH_MAX files.
      call('POST', '/api/transfers/uploads/batch', owner.token, {
        cloud_account_id: awsId,
        bucket_name: 'uploads',
        files: batchOf('many', UPLOAD_BATCH_MAX + 1),
      }),
      // A file of more than one part goes through the resumable session call.
      call('POST', '/api/transfers/uploads/batch', owner.token, {
        cloud_account_id: awsId,
        bucket_name: 'uploads',
        files: [{ key: 'big.bin', size: 5 * MiB + 1, fingerprint: 'big' }],
      }),
      // A NUL in a key (the input rule `text()`).
      call('POST', '/api/transfers/uploads/batch', owner.token, {
        cloud_account_id: awsId,
        bucket_name: 'uploads',
        files: [{ key: 'a\u0000b', size: 1, fingerprint: 'x' }],
      }),
      call('POST', '/api/transfers/uploads/batch/complete', owner.token, {
        session_ids: Array.from({ length: UPLOAD_BATCH_MAX + 1 }, () => ownerIds[0]),
      }),
    ]);
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400, 400]);
  });

  it('refuses a User an upload over an existing object (a replace loses its content), by every call; an Owner may', async () => {
    const user = await signedInMember(server, 'replacer', {
      principal: owner.principal,
      roleId: ROLE_ID.User,
    });
    await s3.write('uploads', 'kept/report.txt', Buffer.from('original report'));
    await s3.write('uploads', 'kept/notes.txt', Buffer.from('original notes'));
    const refusal = (names: string[]) => ({
      status: 403,
      message: authzMessages.replaceNeedsApprover(names),
    });
    const outcome = (res: { status: number; body: unknown }) => ({
      status: res.status,
      message: (res.body as { message?: string }).message,
    });
    const one = await call('POST', '/api/transfers/uploads', user.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      key: 'kept/report.txt',
      size: 6,
      fingerprint: 'report:6:1',
    });
    expect(outcome(one)).toEqual(refusal(['kept/report.txt']));
    const batch = await call('POST', '/api/transfers/uploads/batch', user.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      files: ['kept/new.txt', 'kept/report.txt', 'kept/notes.txt'].map((key) => ({
        key,
        size: 3,
        fingerprint: key,
      })),
    });
    expect(outcome(batch)).toEqual(refusal(['kept/notes.txt', 'kept/report.txt']));
    const signed = await call(
      'GET',
      `/api/transfers/s3_url_signer_v4?cloud_account_id=${awsId}&bucket_name=uploads&key=kept%2Freport.txt&method=PUT`,
      user.token,
    );
    expect(outcome(signed)).toEqual(refusal(['kept/report.txt']));
    expect((await readAll(s3, 'uploads', 'kept/report.txt')).toString()).toBe('original report');
    // A new name is the User's to upload; the Owner may replace.
    const fresh = await call('POST', '/api/transfers/uploads/batch', user.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      files: [{ key: 'kept/new.txt', size: 3, fingerprint: 'new' }],
    });
    expect(fresh.status).toBe(200);
    const replace = await call('POST', '/api/transfers/uploads', owner.token, {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      key: 'kept/report.txt',
      size: 6,
      fingerprint: 'report:6:2',
    });
    expect(replace.status).toBe(200);
  });

  it('tells before the first upload whether the bucket lets this app upload, and who may apply it', async () => {
    await s3.createBucket('fresh-cors');
    const user = await signedInMember(server, 'reader', { principal: owner.principal, roleId: ROLE_ID.User });
    const ask = (token: string) =>
      call('GET', `/api/transfers/bucket_config?cloud_account_id=${awsId}&bucket_name=fresh-cors`, token);
    expect(await ask(owner.token)).toMatchObject({
      status: 200,
      body: { cors_ready: false, may_apply: true },
    });
    expect((await ask(user.token)).body).toEqual({ cors_ready: false, may_apply: false });
    await call('PUT', '/api/transfers/update_bucket_config/', owner.token, {
      cloud_account_id: awsId,
      bucket_name: 'fresh-cors',
      cors: true,
    });
    expect((await ask(user.token)).body).toEqual({ cors_ready: true, may_apply: false });
  });
});

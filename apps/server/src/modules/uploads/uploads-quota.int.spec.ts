import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TRIAL_QUOTAS,
  billingMessages,
  formatBytes,
  type CompleteUploadBatchAnswer,
  type QuotaKey,
  type SignedPart,
  type StartUploadBatchAnswer,
  type UploadSession,
  type UserProfile,
} from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * Direct uploads of an organisation in trial count against s3_native (s3_acceleration when accelerated): the API
 * opens, signs and completes sessions against s3rver (aws), the bytes go from this test (the browser's side)
 * straight to s3rver, and the billing tables of embedded PostgreSQL count them. The trial's 10 GiB is brought
 * down by recording usage through the entitlements service, as earlier uploads would have.
 */
const KiB = 1024;
let server: TestServer;
let s3rver: S3rverServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let awsId: string;
let s3: S3ObjectStore;
let organizationId: string;
let recorded = 0;

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
  callApi(server, method, url, owner.token, body);

/** Leaves `bytes` of a trial quota: usage recorded as if earlier uploads had taken the rest. */
async function leave(quota: QuotaKey, bytes: number) {
  const { used } = await server.services.entitlements.remaining(organizationId, quota);
  recorded += 1;
  await server.services.entitlements.record(
    organizationId,
    quota,
    `test:earlier-${recorded}`,
    TRIAL_QUOTAS[quota] - used - bytes,
  );
}

async function counter(quota: QuotaKey) {
  const { rows } = await server.db.pool.query<{ used: string; reserved: string }>(
    `select used, reserved from quota_counters where organization_id = $1 and quota = $2 and period = 'trial'`,
    [organizationId, quota],
  );
  return { used: Number(rows[0]?.used ?? 0), reserved: Number(rows[0]?.reserved ?? 0) };
}

async function sessionCount(): Promise<number> {
  const { rows } = await server.db.pool.query<{ count: string }>(
    'select count(*) from upload_sessions where organization_id = $1',
    [organizationId],
  );
  return Number(rows[0]?.count ?? 0);
}

const open = (key: string, size: number, extra: Record<string, unknown> = {}) =>
  call('POST', '/api/transfers/uploads', {
    cloud_account_id: awsId,
    bucket_name: 'uploads',
    key,
    size,
    fingerprint: `${key}:${size}:1700000000000`,
    ...extra,
  });

/** The browser's side of a one-PUT upload: the signed URL, then the bytes straight to s3rver. */
async function put(session: UploadSession, file: Buffer) {
  const signed = await call(
    'GET',
    `/api/transfers/url_signer_v4?session_id=${session.session_id}&part_numbers=1`,
  );
  const [target] = (signed.body as { parts: SignedPart[] }).parts;
  if (!target) throw new Error('no signed URL');
  const answer = await fetch(target.url, { method: target.method, headers: target.headers, body: file });
  expect(answer.status).toBeLessThan(300);
}

const batchFiles = (prefix: string, sizes: number[]) =>
  sizes.map((size, i) => ({ key: `${prefix}/f${i}.bin`, size, fingerprint: `${prefix}/f${i}:${size}` }));

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'uploader');
  organizationId = owner.principal.organizationId;
  awsId = await connectS3rverAccount(server, owner.token, 'Lab AWS');
  s3 = s3rverStore(s3rver.endpoint);
  await s3.createBucket('uploads');
});
afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
});

describe('upload quotas in trial: s3rver (aws), embedded PostgreSQL', () => {
  it('refuses a file, or a whole batch, larger than the remaining s3_native quota, with the title and what is left', async () => {
    await leave('s3_native', 64 * KiB);
    const sessionsBefore = await sessionCount();

    const single = await open('big/one.bin', 100 * KiB);

    expect(single.status).toBe(403);
    expect(single.body).toMatchObject({
      title: billingMessages.transfersQuotaTitle,
      message: billingMessages.quotaRemaining(formatBytes(64 * KiB)),
      quota: 's3_native',
      remaining: 64 * KiB,
    });

    // Each file fits; together they do not: the batch is refused whole.
    const batch = await call('POST', '/api/transfers/uploads/batch', {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      files: batchFiles('big', [30 * KiB, 30 * KiB, 30 * KiB]),
    });

    expect(batch.status).toBe(403);
    expect(batch.body).toMatchObject({ title: billingMessages.transfersQuotaTitle, remaining: 64 * KiB });
    expect(await sessionCount()).toBe(sessionsBefore);
    expect(await counter('s3_native')).toMatchObject({ reserved: 0 });
  });

  it('holds a file while it uploads, counts its verified size when complete, and nothing when aborted', async () => {
    const before = await counter('s3_native');
    const file = randomBytes(40 * KiB);
    const opened = await open('counted/file.bin', file.length);
    expect(opened.status, opened.raw).toBe(200);
    const session = opened.body as UploadSession;
    expect(await counter('s3_native')).toEqual({ used: before.used, reserved: 40 * KiB });
    await put(session, file);

    const done = await call('POST', `/api/transfers/uploads/${session.session_id}/complete`, { parts: [] });

    expect(done).toMatchObject({ status: 200, body: { size: file.length } });
    expect(await counter('s3_native')).toEqual({ used: before.used + 40 * KiB, reserved: 0 });
    const me = await call('GET', '/api/users/_me');
    expect((me.body as UserProfile).quota.s3_native).toEqual({
      used: before.used + 40 * KiB,
      total: TRIAL_QUOTAS.s3_native,
    });

    const dropped = (await open('counted/dropped.bin', 10 * KiB)).body as UploadSession;
    const aborted = await call('DELETE', `/api/transfers/uploads/${dropped.session_id}`);
    expect(aborted.status).toBe(200);
    expect(await counter('s3_native')).toEqual({ used: before.used + 40 * KiB, reserved: 0 });
  });

  it('holds a batch until its last file ends, then counts the files that arrived', async () => {
    const before = await counter('s3_native');
    const opened = await call('POST', '/api/transfers/uploads/batch', {
      cloud_account_id: awsId,
      bucket_name: 'uploads',
      files: batchFiles('folder', [5, 7, 9]),
    });
    expect(opened.status, opened.raw).toBe(200);
    const answer = opened.body as StartUploadBatchAnswer;
    expect(await counter('s3_native')).toEqual({ used: before.used, reserved: 21 });
    const [first, second, never] = answer.files;
    if (!first || !second || !never) throw new Error('three files expected');
    for (const [target, size] of [
      [first, 5],
      [second, 7],
    ] as const) {
      const form = new FormData();
      for (const [name, value] of Object.entries({ ...answer.form_fields, ...target.fields }))
        form.append(name, value);
      form.append('key', target.key);
      form.append('file', new Blob([randomBytes(size)]));
      expect((await fetch(target.url, { method: target.method, body: form })).status).toBe(204);
    }

    // The first completion call ends one file: the batch is still held.
    const firstDone = await call('POST', '/api/transfers/uploads/batch/complete', {
      session_ids: [first.session_id],
    });
    expect((firstDone.body as CompleteUploadBatchAnswer).files[0]?.error).toBeNull();
    expect(await counter('s3_native')).toEqual({ used: before.used, reserved: 21 });

    // The second ends another; the third, never sent, is cancelled: the batch counts the 12 bytes that arrived.
    await call('POST', '/api/transfers/uploads/batch/complete', { session_ids: [second.session_id] });
    expect(await counter('s3_native')).toEqual({ used: before.used, reserved: 21 });
    expect((await call('DELETE', `/api/transfers/uploads/${never.session_id}`)).status).toBe(200);
    expect(await counter('s3_native')).toEqual({ used: before.used + 12, reserved: 0 });
  });

  it('counts an accelerated upload against s3_acceleration, not s3_native', async () => {
    const native = await counter('s3_native');
    const opened = await open('fast/clip.bin', 3 * KiB, { s3Acceleration: true });
    expect(opened.status, opened.raw).toBe(200);

    expect(await counter('s3_acceleration')).toEqual({ used: 0, reserved: 3 * KiB });
    expect(await counter('s3_native')).toEqual(native);

    await call('DELETE', `/api/transfers/uploads/${(opened.body as UploadSession).session_id}`);
    expect(await counter('s3_acceleration')).toEqual({ used: 0, reserved: 0 });
  });

  it('releases what a session abandoned for a day held when the sweep aborts it', async () => {
    const before = await counter('s3_native');
    const opened = await open('left/behind.bin', 2 * KiB);
    expect(opened.status, opened.raw).toBe(200);
    expect(await counter('s3_native')).toEqual({ used: before.used, reserved: 2 * KiB });

    const swept = await server.services.uploads.sweepAbandoned(new Date(Date.now() + 25 * 3600 * 1000));

    expect(swept.aborted).toBeGreaterThanOrEqual(1);
    expect(await counter('s3_native')).toEqual({ used: before.used, reserved: 0 });
  });
});

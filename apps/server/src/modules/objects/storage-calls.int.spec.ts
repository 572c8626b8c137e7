import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FS_FILE_TYPE,
  ROLE_ID,
  objectMessages,
  storageIdOf,
  type AccountMember,
  type DownloadLink,
  type S3SignedUrl,
  type StorageListItem,
  type UploadSession,
} from '@cumulo/contract';
import { startAzurite, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectLabAccounts,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * The storage, listing and signing calls of spec 002 §7 / 000 §7 that the bucket browser's module set left out
 * (GET /storages, GET /storage/{id}, POST /storage/{id}/content/download and /content/upload, POST
 * /cloudaccount/list_objects, GET /cloud_accounts/{id}/users, GET /transfers/s3_url_signer_v4), through the real
 * web role against s3rver (aws) and Azurite (azure) on embedded PostgreSQL.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Lab = Awaited<ReturnType<typeof connectLabAccounts>>;

let server: TestServer;
let s3rver: TestStoreServer;
let azurite: TestStoreServer;
let owner: Member;
let user: Member;
let stranger: Member;
let lab: Lab;
let strangerLab: Lab;

const call = (method: 'GET' | 'POST', url: string, member: Member, body?: unknown) =>
  callApi(server, method, url, member.token, body);
const storagePath = (accountId: string, bucket: string) =>
  `/api/storage/${encodeURIComponent(storageIdOf(accountId, bucket))}`;

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, azure: azurite.endpoint }),
  });
  owner = await signedInMember(server, 'owner');
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
  lab = await connectLabAccounts(server, owner.token, { s3rver: s3rver.endpoint, azurite: azurite.endpoint });
  strangerLab = await connectLabAccounts(
    server,
    stranger.token,
    { s3rver: s3rver.endpoint, azurite: azurite.endpoint },
    { aws: 'Their AWS', azure: 'Their Blob' },
  );
  await lab.s3.createBucket('calls-photos');
  for (const key of ['2025/a.jpg', '2025/b.jpg', '2025/raw/c.cr2', 'readme.txt']) {
    await lab.s3.write('calls-photos', key, Buffer.from(`bytes of ${key}`));
  }
  await lab.blob.createBucket('calls-media');
  await lab.blob.write('calls-media', 'clip.mp4', Buffer.from('a short clip'));
  await server.services.inventory.run(owner.principal.organizationId, lab.awsId);
  await server.services.inventory.run(owner.principal.organizationId, lab.azureId);
}, 60_000);

afterAll(async () => {
  await Promise.all([lab?.s3.close(), lab?.blob.close(), strangerLab?.s3.close(), strangerLab?.blob.close()]);
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

describe('storage calls of spec 002 §7 (s3rver, Azurite, PostgreSQL)', () => {
  it("GET /storages lists the inventory of every account of the caller's organisation, and only those", async () => {
    const res = await call('GET', '/api/storages', user);
    expect(res.status, res.raw).toBe(200);
    const storages = res.body as StorageListItem[];
    const photos = storages.find((s) => s.id === storageIdOf(lab.awsId, 'calls-photos'));
    expect(photos).toMatchObject({
      bucket_name: 'calls-photos',
      cloud_account_id: lab.awsId,
      provider: 'aws',
      project_name: 'Lab AWS',
      object_count: 4,
      inventory_status: 'done',
    });
    expect(storages.find((s) => s.bucket_name === 'calls-media')).toMatchObject({
      provider: 'azure',
      object_count: 1,
    });
    expect(storages.every((s) => [lab.awsId, lab.azureId].includes(s.cloud_account_id))).toBe(true);
  });

  it("GET /storage/{id} answers one bucket; another organisation's or an unknown one is 404, a bad id 400", async () => {
    const one = await call('GET', storagePath(lab.awsId, 'calls-photos'), user);
    expect(one.status, one.raw).toBe(200);
    expect(one.body).toMatchObject({ name: 'calls-photos', provider: 'aws', object_count: 4 });

    expect((await call('GET', storagePath(lab.awsId, 'calls-photos'), stranger)).status).toBe(404);
    expect((await call('GET', storagePath(lab.awsId, 'no-such-bucket'), owner)).status).toBe(404);
    const bad = await call('GET', `/api/storage/${encodeURIComponent('not-a-storage-id')}`, owner);
    expect(bad).toMatchObject({ status: 400, body: { message: objectMessages.storageIdInvalid } });
  });

  it("POST /cloudaccount/list_objects answers one folder page in the call's own field names, and pages on", async () => {
    type Page = { data: Array<{ key: string; type: number }>; continuationToken: string | null };
    const rows: Array<[string, number]> = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const res = await call('POST', '/api/cloudaccount/list_objects', user, {
        cloudAccountId: lab.awsId,
        bucketName: 'calls-photos',
        path: '2025',
        count: 1,
        ...(token ? { continuationToken: token } : {}),
      });
      expect(res.status, res.raw).toBe(200);
      const page = res.body as Page;
      rows.push(...page.data.map((item): [string, number] => [item.key, item.type]));
      token = page.continuationToken;
      pages += 1;
    } while (token && pages < 10);
    // One folder level: the files and the sub-folder, over more than one page of `count` rows.
    expect(pages).toBeGreaterThan(1);
    expect(rows).toEqual([
      ['2025/a.jpg', FS_FILE_TYPE.file],
      ['2025/b.jpg', FS_FILE_TYPE.file],
      ['2025/raw/', FS_FILE_TYPE.folder],
    ]);

    const theirs = await call('POST', '/api/cloudaccount/list_objects', stranger, {
      cloudAccountId: lab.awsId,
      bucketName: 'calls-photos',
    });
    expect(theirs.status).toBe(404);
  });

  it('POST /storage/{id}/content/download signs links that fetch the objects; another organisation gets 404', async () => {
    const res = await call('POST', `${storagePath(lab.azureId, 'calls-media')}/content/download`, user, {
      paths: ['clip.mp4'],
    });
    expect(res.status, res.raw).toBe(200);
    const [link] = res.body as DownloadLink[];
    expect(link).toMatchObject({ path: 'clip.mp4', name: 'clip.mp4' });
    const fetched = await fetch(link?.url ?? '');
    expect(await fetched.text()).toBe('a short clip');

    const missing = await call('POST', `${storagePath(lab.awsId, 'calls-photos')}/content/download`, user, {
      paths: ['nope.txt'],
    });
    expect(missing).toMatchObject({
      status: 400,
      body: { message: objectMessages.objectMissing('nope.txt') },
    });
    const theirs = await call(
      'POST',
      `${storagePath(lab.awsId, 'calls-photos')}/content/download`,
      stranger,
      {
        paths: ['readme.txt'],
      },
    );
    expect(theirs.status).toBe(404);
  });

  it('POST /storage/{id}/content/upload starts a session a User completes through the session calls', async () => {
    const body = 'uploaded by a User through the storage call';
    const started = await call('POST', `${storagePath(lab.awsId, 'calls-photos')}/content/upload`, user, {
      key: 'uploads/note.txt',
      size: Buffer.byteLength(body),
      content_type: 'text/plain',
      fingerprint: 'note.txt-44-1',
    });
    expect(started.status, started.raw).toBe(200);
    const session = started.body as UploadSession;
    expect(session).toMatchObject({ mode: 'single', parts_total: 1, resumed: false });

    const signed = await callApi(
      server,
      'GET',
      `/api/transfers/url_signer_v4?session_id=${session.session_id}&part_numbers=1`,
      user.token,
    );
    const [part] = (signed.body as { parts: Array<{ url: string; headers: Record<string, string> }> }).parts;
    const put = await fetch(part?.url ?? '', { method: 'PUT', headers: part?.headers, body });
    expect(put.status).toBe(200);
    const done = await call('POST', `/api/transfers/uploads/${session.session_id}/complete`, user, {
      parts: [{ part_number: 1, etag: put.headers.get('etag') }],
    });
    expect(done.status, done.raw).toBe(200);
    expect((await lab.s3.stat('calls-photos', 'uploads/note.txt'))?.size).toBe(Buffer.byteLength(body));

    const theirs = await call('POST', `${storagePath(lab.awsId, 'calls-photos')}/content/upload`, stranger, {
      key: 'intruder.txt',
      size: 1,
      fingerprint: 'intruder',
    });
    expect(theirs.status).toBe(404);
    expect(await lab.s3.stat('calls-photos', 'intruder.txt')).toBeNull();
  });

  it('GET /transfers/s3_url_signer_v4 signs a PUT a User writes through and a GET that reads it back', async () => {
    const query = (fields: Record<string, string>) =>
      `/api/transfers/s3_url_signer_v4?${new URLSearchParams({
        cloud_account_id: lab.awsId,
        bucket_name: 'calls-photos',
        ...fields,
      }).toString()}`;
    const put = await callApi(
      server,
      'GET',
      query({ key: 'signed/one.txt', method: 'PUT', content_type: 'text/plain' }),
      user.token,
    );
    expect(put.status, put.raw).toBe(200);
    const signedPut = put.body as S3SignedUrl;
    expect(signedPut).toMatchObject({ method: 'PUT', headers: { 'content-type': 'text/plain' } });
    expect(signedPut.url).toContain('X-Amz-Signature=');
    const written = await fetch(signedPut.url, { method: 'PUT', headers: signedPut.headers, body: 'one' });
    expect(written.status).toBe(200);

    const get = await callApi(server, 'GET', query({ key: 'signed/one.txt' }), user.token);
    const signedGet = get.body as S3SignedUrl;
    expect(signedGet.method).toBe('GET');
    expect(await (await fetch(signedGet.url)).text()).toBe('one');

    // Azure speaks no Signature V4; another organisation's account is unknown.
    const azure = await callApi(
      server,
      'GET',
      `/api/transfers/s3_url_signer_v4?cloud_account_id=${lab.azureId}&bucket_name=calls-media&key=clip.mp4`,
      user.token,
    );
    expect(azure.status).toBe(400);
    const theirs = await callApi(server, 'GET', query({ key: 'x.txt', method: 'PUT' }), stranger.token);
    expect(theirs.status).toBe(404);
  });

  it('GET /cloud_accounts/{id}/users lists the active members who can use the account, and who may manage it', async () => {
    const res = await call('GET', `/api/cloud_accounts/${lab.awsId}/users`, user);
    expect(res.status, res.raw).toBe(200);
    const members = res.body as AccountMember[];
    expect(members.map((m) => [m.email, m.role.title, m.can_manage]).sort()).toEqual(
      [
        [owner.email, 'Owner', true],
        [user.email, 'User', false],
      ].sort(),
    );
    expect(members.some((m) => m.email === stranger.email)).toBe(false);
    expect(JSON.stringify(members)).not.toMatch(/password|mfa/i);

    await server.db.pool.query('update users set active = false where id = $1', [user.principal.userId]);
    const after = await call('GET', `/api/cloud_accounts/${lab.awsId}/users`, owner);
    expect((after.body as AccountMember[]).map((m) => m.email)).toEqual([owner.email]);
    await server.db.pool.query('update users set active = true where id = $1', [user.principal.userId]);

    expect((await call('GET', `/api/cloud_accounts/${lab.awsId}/users`, stranger)).status).toBe(404);
  });
});

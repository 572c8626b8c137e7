import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_KEY_ACCESS_KEY_PATTERN,
  SIGN_IN_BACKOFF,
  apiKeyMessages,
  type ApiKeyView,
  type CreatedApiKey,
} from '@cumulo/contract';
import { startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

type Member = Awaited<ReturnType<typeof signedInMember>>;

let server: TestServer;
let s3rver: TestStoreServer;
let owner: Member;
let stranger: Member;
let ownerAccountId: string;
let strangerAccountId: string;

const basic = (accessKey: string, secret: string) =>
  `Basic ${Buffer.from(`${accessKey}:${secret}`).toString('base64')}`;

/** A call as a script would make it: HTTP Basic with the key, no session. */
async function withKey(
  key: { access_key: string; secret_key: string },
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: object,
) {
  const res = await server.app.inject({
    method,
    url,
    payload: body,
    headers: { authorization: basic(key.access_key, key.secret_key) },
  });
  return { status: res.statusCode, body: res.body ? (res.json() as unknown) : undefined, raw: res.body };
}

async function createKey(member: Member): Promise<CreatedApiKey> {
  const res = await callApi(server, 'POST', '/api/apikey/CreateKey', member.token);
  expect(res.status, res.raw).toBe(201);
  return res.body as CreatedApiKey;
}

const listBuckets = (key: CreatedApiKey, accountId: string) =>
  withKey(key, 'POST', '/api/cloudaccount/list_buckets', { id: accountId });

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });
  owner = await signedInMember(server, 'owner');
  stranger = await signedInMember(server, 'stranger');
  ownerAccountId = await connectS3rverAccount(server, owner.token, 'Key AWS');
  strangerAccountId = await connectS3rverAccount(server, stranger.token, 'Their AWS');
  await s3rverStore(s3rver.endpoint).createBucket('api-keys-photos');
});
afterAll(async () => {
  await server?.stop();
  await s3rver?.stop();
});

describe('API keys against embedded PostgreSQL and s3rver', () => {
  it('shows the secret once, never lists it and stores only a hash of it', async () => {
    const key = await createKey(owner);
    expect(key.access_key).toMatch(API_KEY_ACCESS_KEY_PATTERN);
    expect(key.secret_key.length).toBeGreaterThanOrEqual(43);
    expect(key.active).toBe(true);

    const list = await callApi(server, 'GET', '/api/apikey/ListApiKey', owner.token);
    expect(list.status, list.raw).toBe(200);
    expect((list.body as ApiKeyView[]).map((listed) => listed.access_key)).toContain(key.access_key);
    expect(list.raw).not.toContain(key.secret_key);

    const rows = await server.db.pool.query('select * from api_keys where access_key = $1', [key.access_key]);
    expect(rows.rowCount).toBe(1);
    expect(JSON.stringify(rows.rows)).not.toContain(key.secret_key);

    // Another member of another organisation sees none of the caller's keys.
    const theirs = await callApi(server, 'GET', '/api/apikey/ListApiKey', stranger.token);
    expect(theirs.raw).not.toContain(key.access_key);
  });

  it("lists buckets through the session's own route, as its creator, and stamps its last use", async () => {
    const key = await createKey(owner);
    const res = await listBuckets(key, ownerAccountId);
    expect(res.status, res.raw).toBe(200);
    expect(res.raw).toContain('api-keys-photos');
    expect(await listBuckets(key, ownerAccountId)).toMatchObject({ status: 200 });

    const list = await callApi(server, 'GET', '/api/apikey/ListApiKey', owner.token);
    const listed = (list.body as ApiKeyView[]).find((row) => row.id === key.id);
    expect(listed?.last_used).not.toBeNull();
  });

  it('refuses a wrong secret, an unknown key and a forged header with 401', async () => {
    const key = await createKey(owner);
    const wrong = {
      ...key,
      secret_key: `${key.secret_key.slice(0, -1)}${key.secret_key.endsWith('A') ? 'B' : 'A'}`,
    };
    expect((await listBuckets(wrong, ownerAccountId)).status).toBe(401);
    expect((await listBuckets({ ...key, access_key: 'CKAAAAAAAAAAAAAAAAAA' }, ownerAccountId)).status).toBe(
      401,
    );
    const garbled = await server.app.inject({
      method: 'GET',
      url: '/api/apikey/ListApiKey',
      headers: { authorization: 'Basic not-base64-at-all' },
    });
    expect(garbled.statusCode).toBe(401);
  });

  it('stops working at once when deleted or deactivated, and again when turned back on', async () => {
    const key = await createKey(owner);
    expect((await listBuckets(key, ownerAccountId)).status).toBe(200);

    const off = await callApi(server, 'PUT', `/api/apikey/UpdateApiKey?id=${key.id}`, owner.token, {
      active: false,
    });
    expect(off.status, off.raw).toBe(200);
    expect((await listBuckets(key, ownerAccountId)).status).toBe(401);
    const on = await callApi(server, 'PUT', `/api/apikey/UpdateApiKey?id=${key.id}`, owner.token, {
      active: true,
    });
    expect(on.status, on.raw).toBe(200);
    expect((await listBuckets(key, ownerAccountId)).status).toBe(200);

    const deleted = await callApi(server, 'DELETE', `/api/apikey/DeleteApiKey?id=${key.id}`, owner.token);
    expect(deleted.status, deleted.raw).toBe(200);
    expect(deleted.body).toEqual({ message: apiKeyMessages.deleted });
    expect((await listBuckets(key, ownerAccountId)).status).toBe(401);
    const list = await callApi(server, 'GET', '/api/apikey/ListApiKey', owner.token);
    expect(list.raw).not.toContain(key.access_key);
  });

  it('writes the audit trail of a key: added, turned off, deleted; its access key, never its secret', async () => {
    const key = await createKey(owner);
    const turnedOff = await callApi(server, 'PUT', `/api/apikey/UpdateApiKey?id=${key.id}`, owner.token, {
      active: false,
    });
    expect(turnedOff.status).toBe(200);
    expect(
      (await callApi(server, 'DELETE', `/api/apikey/DeleteApiKey?id=${key.id}`, owner.token)).status,
    ).toBe(200);
    const { rows } = await server.db.pool.query(
      `select entity, type, resource, author_user_id, author_name, changes from audits
       where organization_id = $1 and resource_id = $2 order by id`,
      [owner.principal.organizationId, key.id],
    );
    expect(rows).toEqual([
      {
        entity: 'API key',
        type: 'Added',
        resource: key.access_key,
        author_user_id: owner.principal.userId,
        author_name: 'owner Test',
        changes: [
          { property: 'access_key', initial: null, value: key.access_key },
          { property: 'active', initial: null, value: 'true' },
        ],
      },
      {
        entity: 'API key',
        type: 'Modified',
        resource: key.access_key,
        author_user_id: owner.principal.userId,
        author_name: 'owner Test',
        changes: [{ property: 'active', initial: 'true', value: 'false' }],
      },
      {
        entity: 'API key',
        type: 'Deleted',
        resource: key.access_key,
        author_user_id: owner.principal.userId,
        author_name: 'owner Test',
        changes: [{ property: 'access_key', initial: key.access_key, value: null }],
      },
    ]);
    const hash = await server.db.pool.query<{ secret_hash: string }>(
      'select secret_hash from api_keys where id = $1',
      [key.id],
    );
    expect(JSON.stringify(rows)).not.toContain(key.secret_key);
    expect(JSON.stringify(rows)).not.toContain(hash.rows[0]?.secret_hash);
  });

  it('stops working at once when its creator is deactivated', async () => {
    const member = await signedInMember(server, 'leaver');
    const accountId = await connectS3rverAccount(server, member.token, 'Leaver AWS');
    const key = await createKey(member);
    expect((await listBuckets(key, accountId)).status).toBe(200);
    await server.db.pool.query('update users set active = false where id = $1', [member.principal.userId]);
    expect((await listBuckets(key, accountId)).status).toBe(401);
  });

  it("keeps one organisation's key out of another's accounts and keys (404)", async () => {
    const key = await createKey(owner);
    expect((await listBuckets(key, strangerAccountId)).status).toBe(404);
    const strangersKey = await createKey(stranger);
    const res = await callApi(
      server,
      'DELETE',
      `/api/apikey/DeleteApiKey?id=${strangersKey.id}`,
      owner.token,
    );
    expect(res.status).toBe(404);
    expect((await listBuckets(strangersKey, strangerAccountId)).status).toBe(200);
  });

  it('cannot create or delete keys, change the password or MFA, only a sign-in can (403)', async () => {
    const key = await createKey(owner);
    const other = await createKey(owner);
    const create = await withKey(key, 'POST', '/api/apikey/CreateKey');
    expect(create.status, create.raw).toBe(403);
    expect(create.body).toMatchObject({ message: apiKeyMessages.sessionOnly });
    expect((await withKey(key, 'DELETE', `/api/apikey/DeleteApiKey?id=${other.id}`)).status).toBe(403);
    expect(
      (
        await withKey(key, 'PUT', '/api/users/_me/change_password', {
          old_password: 'Sunny#day7',
          new_password: 'Rainy#day8',
          confirm_password: 'Rainy#day8',
        })
      ).status,
    ).toBe(403);
    expect((await withKey(key, 'POST', '/api/user/generate_mfa_token')).status).toBe(403);
    expect(
      (await withKey(other, 'POST', '/api/cloudaccount/list_buckets', { id: ownerAccountId })).status,
    ).toBe(200);
    const keys = await withKey(key, 'GET', '/api/apikey/ListApiKey');
    expect((keys.body as ApiKeyView[]).length).toBeGreaterThanOrEqual(2);
  });

  it("answers 429 after repeated wrong secrets while the owner's password sign-in still works", async () => {
    const member = await signedInMember(server, 'target');
    const accountId = await connectS3rverAccount(server, member.token, 'Target AWS');
    const key = await createKey(member);
    const wrong = { ...key, secret_key: 'x'.repeat(43) };
    for (let attempt = 0; attempt < SIGN_IN_BACKOFF.freePerUser; attempt += 1) {
      expect((await listBuckets(wrong, accountId)).status).toBe(401);
    }
    const limited = await listBuckets(wrong, accountId);
    expect(limited.status).toBe(429);
    // The right secret waits too: the limit is on the access key, checked before the secret.
    expect((await listBuckets(key, accountId)).status).toBe(429);

    const tokenRes = await server.app.inject({ method: 'POST', url: '/api/authentication/request_token' });
    const login = await server.app.inject({
      method: 'POST',
      url: '/api/authentication/Login',
      payload: {
        requestToken: (tokenRes.json() as { token: string }).token,
        username: member.email,
        password: 'Sunny#day7',
      },
    });
    expect(login.statusCode, login.body).toBe(200);
    expect(login.json()).toMatchObject({ challenge: 0 });
  });

  it('documents the key scheme in the served OpenAPI page, with a curl example listing buckets', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      info: { description: string };
      components: { securitySchemes: Record<string, { type: string; scheme: string }> };
      paths: Record<string, unknown>;
    };
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(doc.info.description).toContain('curl -u');
    expect(doc.info.description).toContain('/api/cloudaccount/list_buckets');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/apikey/ListApiKey', '/api/apikey/CreateKey', '/api/apikey/DeleteApiKey']),
    );
  });
});

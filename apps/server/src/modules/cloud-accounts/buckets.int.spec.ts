import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketNameMessages } from '@cumulo/contract';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import { ALL_USERS_GROUP, LOG_DELIVERY_GROUP, requestedGrants } from './buckets.service.ts';
import {
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

let server: TestServer;
let s3rver: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let awsId: string;
/**
 * Wasabi's partner API cannot run here, so a local HTTP server answers like it (the only mock in this file):
 * it records the request and hands out s3rver's keys, which the connect step then checks for real.
 */
let partner: http.Server;
const partnerCalls: Array<{ url: string; auth: string | undefined; body: Record<string, unknown> }> = [];

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

beforeAll(async () => {
  s3rver = await startS3rver();
  partner = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      partnerCalls.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      res.setHeader('content-type', 'application/json');
      if (body.AcctName === 'taken@example.com') {
        res.statusCode = 409;
        res.end(JSON.stringify({ Msg: 'Account name already exists' }));
        return;
      }
      res.end(JSON.stringify({ AcctName: body.AcctName, AccessKey: S3RVER_KEY, SecretKey: S3RVER_KEY }));
    });
  });
  await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint, wasabi: s3rver.endpoint }),
    WASABI_PARTNER_URL: `http://127.0.0.1:${(partner.address() as AddressInfo).port}/`,
    WASABI_PARTNER_API_KEY: 'partner-test-key',
  });
  owner = await signedInMember(server, 'owner');
  awsId = await connectS3rverAccount(server, owner.token, 'Lab AWS');
});
afterAll(async () => {
  await server?.stop();
  await s3rver?.stop();
  await new Promise((resolve) => partner?.close(resolve));
});

const direct = () => s3rverStore(s3rver.endpoint);

describe('Create New Bucket calls against s3rver', () => {
  it('checks names with the provider: a free name is free, an existing one answers the spec message', async () => {
    await direct().createBucket('already-here');
    const free = await call(
      'GET',
      `/api/cloud_accounts/${awsId}/storages/exists?bucket_name=brand-new&account_type=aws`,
      owner.token,
    );
    expect(free).toMatchObject({ status: 200, body: { exists: false, message: null } });
    const taken = await call(
      'GET',
      `/api/cloud_accounts/${awsId}/storages/exists?bucket_name=already-here`,
      owner.token,
    );
    expect(taken.body).toEqual({ exists: true, message: bucketNameMessages.taken });
  });

  it('refuses a bad name with each broken rule, and a taken name with the spec message; nothing is created', async () => {
    const bad = await call('POST', `/api/cloud_accounts/${awsId}/storages`, owner.token, {
      bucket_name: 'Bad..Name-',
      region: 'us-east-1',
    });
    expect(bad.status).toBe(400);
    const messages = (bad.body as { errors: Record<string, string[]> }).errors.bucket_name;
    expect(messages).toEqual([
      bucketNameMessages.uppercase,
      bucketNameMessages.start,
      bucketNameMessages.adjacentPeriods,
      bucketNameMessages.end,
    ]);
    const taken = await call('POST', `/api/cloud_accounts/${awsId}/storages`, owner.token, {
      bucket_name: 'already-here',
      region: 'us-east-1',
    });
    expect(taken).toMatchObject({ status: 400, body: { message: bucketNameMessages.taken } });
    const names = (await direct().listBuckets()).map((b) => b.name);
    expect(names).not.toContain('bad..name-');
  });

  it('creates a bucket, copies CORS from an existing one, and lists it at once', async () => {
    const store = direct();
    const rules = [
      {
        allowedOrigins: ['https://app.example.com'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 3000,
      },
    ];
    await store.capabilities.cors?.putCors('already-here', rules);
    const res = await call('POST', `/api/cloud_accounts/${awsId}/storages`, owner.token, {
      bucket_name: 'made-by-cumulo',
      region: 'us-east-1',
      account_type: 'aws',
      config_bucket: 'already-here',
    });
    expect(res.status).toBe(201);
    const body = res.body as { message: string; copied: string[]; warning: string | null };
    expect(body.message).toContain('made-by-cumulo');
    expect(body.copied).toContain('CORS');
    expect(await store.headBucket('made-by-cumulo')).not.toBeNull();
    expect(await store.capabilities.cors?.getCors('made-by-cumulo')).toEqual(rules);
    const accounts = (await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{
      id: string;
      storages: Array<{ name: string; region: string }>;
    }>;
    const account = accounts.find((a) => a.id === awsId);
    expect(account?.storages.map((s) => s.name)).toContain('made-by-cumulo');
  });

  it('says plainly when the provider cannot apply the users and permissions, and keeps the bucket', async () => {
    const res = await call('POST', `/api/cloud_accounts/${awsId}/storages`, owner.token, {
      bucket_name: 'granted-bucket',
      region: 'us-east-1',
      users: [{ user: 'partner@example.com', permissions: { READ: true, WRITE: true } }],
      public: { permissions: { READ: true } },
      system: { permissions: { READ: false } },
    });
    expect(res.status).toBe(201);
    const body = res.body as { warning: string | null };
    // s3rver implements no ACLs (the S3 wire format of PutBucketAcl is covered by the storage package's mocked
    // spec, and the grants this body turns into by requestedGrants below), so the answer must say so plainly.
    expect(body.warning).toBe(
      'The bucket was created, but its permissions could not be applied: ' +
        'A parameter you provided implies functionality that is not implemented',
    );
    expect(await direct().headBucket('granted-bucket')).not.toBeNull();
  });

  it('turns users and public/system read into S3 ACL grants', () => {
    expect(
      requestedGrants({
        bucket_name: 'x-bucket',
        region: 'us-east-1',
        users: [
          { user: 'partner@example.com', permissions: { READ: true, WRITE_ACP: true } },
          {
            user: '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be',
            permissions: { WRITE: true },
          },
        ],
        public: { permissions: { READ: true } },
        system: { permissions: { READ: true } },
      }),
    ).toEqual([
      { grantee: { type: 'email', email: 'partner@example.com' }, permission: 'READ' },
      { grantee: { type: 'email', email: 'partner@example.com' }, permission: 'WRITE_ACP' },
      {
        grantee: { type: 'user', id: '79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be' },
        permission: 'WRITE',
      },
      { grantee: { type: 'group', uri: ALL_USERS_GROUP }, permission: 'READ' },
      { grantee: { type: 'group', uri: LOG_DELIVERY_GROUP }, permission: 'READ' },
    ]);
  });

  it('offers bucket creation only for aws and wasabi accounts, and only to Owners and Admins', async () => {
    const generic = await call('POST', '/api/cloudaccount/insert', owner.token, {
      cloudType: 8,
      name: 'Generic',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
      serviceUrl: s3rver.endpoint,
    });
    const genericId = (generic.body as { id: string }).id;
    const refused = await call('POST', `/api/cloud_accounts/${genericId}/storages`, owner.token, {
      bucket_name: 'not-here',
      region: 'us-east-1',
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('AWS and Wasabi') },
    });
    const member = await signedInMember(server, 'member', { principal: owner.principal, roleId: 3 });
    const forbidden = await call('POST', `/api/cloud_accounts/${awsId}/storages`, member.token, {
      bucket_name: 'member-bucket',
      region: 'us-east-1',
    });
    expect(forbidden.status).toBe(403);
    expect(await direct().headBucket('member-bucket')).toBeNull();
  });
});

describe('Wasabi sub-accounts through the partner API', () => {
  it('says the create path is enabled when the partner API is configured', async () => {
    const info = await call('GET', '/api/cloud_accounts/access_info', owner.token);
    expect((info.body as { wasabi_create: unknown }).wasabi_create).toMatchObject({ enabled: true });
  });

  it('creates the account at the partner API and connects it with the keys it returns', async () => {
    const res = await call('POST', '/api/wasabi_sub_accounts', owner.token, {
      acct_name: 'new-team@example.com',
      password: 'Str0ng#pass',
      project_name: 'Team Wasabi',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Team Wasabi', provider: 'wasabi', cloudType: 2 });
    expect(res.raw).not.toContain(S3RVER_KEY);
    expect(partnerCalls.at(-1)).toMatchObject({
      url: '/v1/accounts',
      auth: 'partner-test-key',
      body: { AcctName: 'new-team@example.com', Password: 'Str0ng#pass' },
    });
  });

  it("passes the partner's refusal on and connects nothing", async () => {
    const before = ((await call('GET', '/api/cloud_accounts/', owner.token)).body as unknown[]).length;
    const res = await call('POST', '/api/wasabi_sub_accounts', owner.token, {
      acct_name: 'taken@example.com',
      password: 'Str0ng#pass',
      project_name: 'Dup',
    });
    expect(res).toMatchObject({ status: 400, body: { message: 'Account name already exists' } });
    expect(((await call('GET', '/api/cloud_accounts/', owner.token)).body as unknown[]).length).toBe(before);
  });
});

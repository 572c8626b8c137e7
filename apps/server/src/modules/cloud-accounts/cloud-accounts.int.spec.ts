import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountFormMessages, connectedAccountMessages, MASK } from '@cumulo/contract';
import {
  AZURITE_ACCOUNT,
  AZURITE_KEY,
  S3RVER_KEY,
  startAzurite,
  startS3rver,
  type TestStoreServer,
} from '@cumulo/storage/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { REFUSED_HOST, closedPort, startRefusedListener } from '../../../test/refused-address.ts';

let server: TestServer;
let s3rver: TestStoreServer;
let azurite: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: unknown) =>
  callApi(server, method, url, token, body);

const genericS3 = (overrides: Record<string, unknown> = {}) => ({
  cloudType: 8,
  name: 'Lab S3',
  accessKey: S3RVER_KEY,
  secretKey: S3RVER_KEY,
  serviceUrl: s3rver.endpoint,
  ...overrides,
});

beforeAll(async () => {
  [s3rver, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({
      aws: s3rver.endpoint,
      wasabi: s3rver.endpoint,
      azure: azurite.endpoint,
    }),
  });
  owner = await signedInMember(server, 'owner');
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([s3rver?.stop(), azurite?.stop()]);
});

describe('cloud accounts API against s3rver, Azurite and embedded PostgreSQL', () => {
  it('connects a generic S3 account after a real credential check, and never answers its secret', async () => {
    const res = await call('POST', '/api/cloudaccount/insert', owner.token, genericS3());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Lab S3',
      project_name: 'Lab S3',
      provider: 'genericS3',
      cloudType: 16,
      serviceUrl: s3rver.endpoint,
      info: { access_key: `${MASK}RVER`, secret_key: MASK },
    });
    expect(res.raw).not.toContain(S3RVER_KEY);
    const stored = await server.db.pool.query('select credentials from cloud_accounts where name = $1', [
      'Lab S3',
    ]);
    expect(stored.rows[0].credentials).toMatch(/^v1\./);
    expect(stored.rows[0].credentials).not.toContain(S3RVER_KEY);

    const list = await call('GET', '/api/cloud_accounts/', owner.token);
    expect((list.body as Array<{ name: string }>).map((a) => a.name)).toContain('Lab S3');
    expect(list.raw).not.toContain(S3RVER_KEY);
    expect((await call('GET', '/api/cloudaccount/get_all', owner.token)).body).toEqual(list.body);
  });

  it('refuses wrong keys with the provider message and saves nothing', async () => {
    const before = (await call('GET', '/api/cloud_accounts/', owner.token)).body as unknown[];
    const res = await call(
      'POST',
      '/api/cloudaccount/insert',
      owner.token,
      genericS3({ name: 'Bad', accessKey: 'WRONG' }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: 'The AWS Access Key Id you provided does not exist in our records.',
    });
    const after = (await call('GET', '/api/cloud_accounts/', owner.token)).body as unknown[];
    expect(after).toHaveLength(before.length);
  });

  it('answers missing fields with the form messages of spec 000 §5', async () => {
    const res = await call('POST', '/api/cloudaccount/insert', owner.token, {
      cloudType: 1,
      name: 'No keys',
    });
    expect(res.status).toBe(400);
    expect((res.body as { errors: unknown }).errors).toEqual({
      accessKey: [accountFormMessages.accessKey],
      secretKey: [accountFormMessages.secretKey],
    });
    const noName = await call('POST', '/api/cloudaccount/insert', owner.token, genericS3({ name: '' }));
    expect((noName.body as { errors: Record<string, string[]> }).errors.name).toEqual([
      accountFormMessages.name,
    ]);
    const noUrl = await call('POST', '/api/cloudaccount/insert', owner.token, genericS3({ serviceUrl: '' }));
    expect((noUrl.body as { errors: Record<string, string[]> }).errors.serviceUrl).toEqual([
      accountFormMessages.field,
    ]);
  });

  it('connects aws and wasabi through PROVIDER_ENDPOINTS, and Azure with account name and key', async () => {
    for (const [cloudType, provider, flag] of [
      [1, 'aws', 1],
      [2, 'wasabi', 2],
    ] as const) {
      const res = await call('POST', '/api/cloudaccount/insert', owner.token, {
        cloudType,
        name: `My ${provider}`,
        accessKey: S3RVER_KEY,
        secretKey: S3RVER_KEY,
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ provider, cloudType: flag, info: { region: 'us-east-1' } });
    }
    const azure = await call('POST', '/api/cloudaccount/insert', owner.token, {
      cloudType: 4,
      name: 'Blob',
      accessKey: AZURITE_ACCOUNT,
      secretKey: AZURITE_KEY,
    });
    expect(azure.status).toBe(201);
    expect(azure.body).toMatchObject({ provider: 'azure', cloudType: 4 });
    expect(azure.raw).not.toContain(AZURITE_KEY);

    const wrongAzure = await call('POST', '/api/cloudaccount/insert', owner.token, {
      cloudType: 4,
      name: 'Bad blob',
      accessKey: AZURITE_ACCOUNT,
      secretKey: Buffer.from('not the key').toString('base64'),
    });
    expect(wrongAzure.status).toBe(400);
    expect((wrongAzure.body as { message: string }).message).toMatch(/authenticate/i);
  });

  it('opens the direct Wasabi screen (acl.has_wasabi, spec 001 §6) while the organisation has a Wasabi account', async () => {
    const member = await signedInMember(server, 'wasabi-less');
    const hasWasabi = async (token = member.token) =>
      ((await call('GET', '/api/users/_me', token)).body as { acl: { has_wasabi: boolean } }).acl.has_wasabi;
    // The owner's organisation connected a Wasabi account above; that opens nothing for another organisation.
    expect(await hasWasabi(owner.token)).toBe(true);
    expect(await hasWasabi()).toBe(false);
    const aws = await call('POST', '/api/cloudaccount/insert', member.token, {
      cloudType: 1,
      name: 'Only AWS',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
    });
    expect(aws.status).toBe(201);
    expect(await hasWasabi()).toBe(false);

    const wasabi = await call('POST', '/api/cloudaccount/insert', member.token, {
      cloudType: 2,
      name: 'Their Wasabi',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
    });
    expect(wasabi.status).toBe(201);
    expect(await hasWasabi()).toBe(true);

    const id = (wasabi.body as { id: string }).id;
    expect((await call('DELETE', `/api/cloudaccount/delete?id=${id}`, member.token)).status).toBe(200);
    expect(await hasWasabi()).toBe(false);
  });

  it('refuses a Google account whose service-account key is not valid JSON, naming the problem', async () => {
    const missing = await call('POST', '/api/cloudaccount/insert', owner.token, {
      cloudType: 16,
      name: 'GCS',
    });
    expect((missing.body as { errors: Record<string, string[]> }).errors.credentialsData).toEqual([
      accountFormMessages.serviceAccount,
    ]);
    const malformed = await call('POST', '/api/cloudaccount/insert', owner.token, {
      cloudType: 16,
      name: 'GCS',
      credentialsData: '{ not json',
    });
    expect(malformed.status).toBe(400);
    expect((malformed.body as { code: string }).code).toBe('CLOUD_INVALIDCREDENTIALS');
    const list = (await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{ name: string }>;
    expect(list.map((a) => a.name)).not.toContain('GCS');
  });

  it('lists the buckets of an account live from the provider', async () => {
    const direct = s3rverStore(s3rver.endpoint, { provider: 'genericS3' });
    await direct.createBucket('media-archive');
    await direct.close();
    const account = (
      await call('POST', '/api/cloudaccount/insert', owner.token, genericS3({ name: 'Buckets' }))
    ).body as { id: string };
    const res = await call('POST', '/api/cloudaccount/list_buckets', owner.token, { id: account.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'media-archive', creationDate: expect.any(String) }),
      ]),
    );
  });

  it('inventories every bucket as a stream of pages: real counts, sizes and cost estimates', async () => {
    const direct = s3rverStore(s3rver.endpoint, { provider: 'genericS3' });
    await direct.createBucket('inv-many');
    await direct.createBucket('inv-sized');
    const many = 1203; // more than one listing page of 1000
    for (let i = 0; i < many; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, many - i) }, (_, j) =>
          direct.write('inv-many', `k/${String(i + j).padStart(5, '0')}`, Buffer.from('ab'), { size: 2 }),
        ),
      );
    }
    await direct.write('inv-sized', 'one.bin', Buffer.alloc(3000), { size: 3000 });
    await direct.write('inv-sized', 'deep/two.bin', Buffer.alloc(1000), { size: 1000 });
    await direct.close();

    const account = (
      await call('POST', '/api/cloudaccount/insert', owner.token, genericS3({ name: 'Inventory' }))
    ).body as { id: string; storages: unknown[] };
    expect(account.storages).toEqual([]);
    const queued = await server.db.pool.query(
      "select count(*)::int as n from pgboss.job where name = 'inventory.account' and data->>'accountId' = $1",
      [account.id],
    );
    expect(queued.rows[0].n).toBe(1);

    const totals = await server.services.inventory.run(owner.principal.organizationId, account.id);
    expect(totals.objects).toBeGreaterThanOrEqual(many + 2);
    const view = (
      (await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{
        id: string;
        bucket_count: number;
        total_bytes_used: number;
        storages: Array<{
          name: string;
          size: number;
          object_count: number;
          inventory_status: string;
          cost: number;
        }>;
      }>
    ).find((a) => a.id === account.id);
    const byName = Object.fromEntries((view?.storages ?? []).map((b) => [b.name, b]));
    expect(byName['inv-many']).toMatchObject({
      size: many * 2,
      object_count: many,
      inventory_status: 'done',
    });
    expect(byName['inv-sized']).toMatchObject({ size: 4000, object_count: 2, inventory_status: 'done' });
    expect(byName['inv-sized']?.cost).toBeCloseTo((4000 / 1024 ** 3) * 0.023, 12);
    expect(view?.bucket_count).toBe(view?.storages.length);
    expect(view?.total_bytes_used).toBe((view?.storages ?? []).reduce((sum, b) => sum + b.size, 0));

    // Refreshes asked while one is already waiting collapse into it (no worker runs in this file).
    for (let i = 0; i < 3; i++) {
      const refresh = await call('POST', `/api/cloud_accounts/${account.id}/inventory`, owner.token);
      expect(refresh.status).toBe(202);
    }
    const waiting = await server.db.pool.query(
      "select count(*)::int as n from pgboss.job where name = 'inventory.account' and state = 'created' and data->>'accountId' = $1",
      [account.id],
    );
    expect(waiting.rows[0].n).toBe(1);
  });

  it('renames, sets the billing bucket and removes an account', async () => {
    const account = (await call('POST', '/api/cloudaccount/insert', owner.token, genericS3({ name: 'Temp' })))
      .body as { id: string };
    const renamed = await call('PUT', `/api/cloud_accounts/${account.id}`, owner.token, {
      cloud_account: { project_name: 'Renamed', billing_bucket: 'reports' },
    });
    expect(renamed.body).toMatchObject({ name: 'Renamed', billing_bucket: 'reports' });
    const billing = await call(
      'PUT',
      `/api/cloud_accounts/${account.id}/update_billing_report_bucket`,
      owner.token,
      {
        billing_bucket: 'cur-reports',
      },
    );
    expect(billing.body).toMatchObject({ name: 'Renamed', billing_bucket: 'cur-reports' });
    const removed = await call('DELETE', `/api/cloudaccount/delete?id=${account.id}`, owner.token);
    expect(removed.status).toBe(200);
    const list = (await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{ id: string }>;
    expect(list.map((a) => a.id)).not.toContain(account.id);
  });

  it('tells a connected account whose store stopped answering to try again later, not to check its keys', async () => {
    const store = await startS3rver();
    let stopped = false;
    try {
      const account = (
        await call(
          'POST',
          '/api/cloudaccount/insert',
          owner.token,
          genericS3({ name: 'Gone later', serviceUrl: store.endpoint }),
        )
      ).body as { id: string };
      await store.stop();
      stopped = true;
      const res = await call(
        'GET',
        `/api/cloud_accounts/${account.id}/storages/exists?bucket_name=abc`,
        owner.token,
      );
      expect({ status: res.status, body: res.body }).toEqual({
        status: 502,
        body: { code: 'CLOUD_UNREACHABLE', message: connectedAccountMessages.unreachable },
      });
    } finally {
      if (!stopped) await store.stop();
    }
  });

  it('answers 404 on every route for an account of another organisation', async () => {
    const account = (
      await call('POST', '/api/cloudaccount/insert', owner.token, genericS3({ name: 'Private' }))
    ).body as { id: string };
    const stranger = await signedInMember(server, 'stranger');
    expect((await call('GET', '/api/cloud_accounts/', stranger.token)).body).toEqual([]);
    const attempts = [
      call('PUT', `/api/cloud_accounts/${account.id}`, stranger.token, {
        cloud_account: { project_name: 'Mine' },
      }),
      call('PUT', `/api/cloud_accounts/${account.id}/update_billing_report_bucket`, stranger.token, {
        billing_bucket: 'x',
      }),
      call('DELETE', `/api/cloudaccount/delete?id=${account.id}`, stranger.token),
      call('POST', '/api/cloudaccount/list_buckets', stranger.token, { id: account.id }),
      call('POST', `/api/cloud_accounts/${account.id}/inventory`, stranger.token),
      call('GET', `/api/cloud_accounts/${account.id}/storages/exists?bucket_name=abc`, stranger.token),
      call('POST', `/api/cloud_accounts/${account.id}/storages`, stranger.token, {
        bucket_name: 'stolen-bucket',
        region: 'us-east-1',
      }),
      call('GET', `/api/cloud_accounts/${account.id}/notifications`, stranger.token),
      call('GET', `/api/storages/${encodeURIComponent(`${account.id}/abc`)}/notifications`, stranger.token),
      call('POST', '/api/notifications/', stranger.token, { cloud_account_id: account.id, size_limit: 1 }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(404);
    const still = (await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{
      id: string;
      name: string;
    }>;
    expect(still.find((a) => a.id === account.id)?.name).toBe('Private');
  });

  it('lets a User look at accounts but not connect or remove them', async () => {
    const member = await signedInMember(server, 'member', { principal: owner.principal, roleId: 3 });
    expect((await call('GET', '/api/cloud_accounts/', member.token)).status).toBe(200);
    expect(
      (await call('POST', '/api/cloudaccount/insert', member.token, genericS3({ name: 'Nope' }))).status,
    ).toBe(403);
    const list = (await call('GET', '/api/cloud_accounts/', member.token)).body as Array<{ id: string }>;
    const first = list[0];
    if (!first) throw new Error('the organisation has accounts by now');
    expect((await call('DELETE', `/api/cloudaccount/delete?id=${first.id}`, member.token)).status).toBe(403);
  });

  it('serves the account types and the providers this organisation may add', async () => {
    const types = (await call('GET', '/api/account-types/', owner.token)).body as Array<{
      id: number;
      name: string;
    }>;
    expect(types.find((t) => t.id === 6)?.name).toBe('backblaze');
    expect((await call('GET', '/api/cloud_accounts/access_info', owner.token)).body).toEqual({
      userType: 4,
      providers: ['aws', 'wasabi', 'azure', 'backblaze', 'genericS3', 'google', 'filebase'],
      wasabi_create: { enabled: false, message: expect.stringContaining('WASABI_PARTNER_URL') },
    });
  });
});

describe('outbound address policy on service URLs (ALLOWED_PRIVATE_ENDPOINTS=127.0.0.1; listeners on 127.0.0.1 and 127.0.0.2)', () => {
  const generic = { message: accountFormMessages.unreachable, code: 'CLOUD_UNREACHABLE' };
  const accountNames = async () =>
    ((await call('GET', '/api/cloud_accounts/', owner.token)).body as Array<{ name: string }>).map(
      (a) => a.name,
    );

  it('refuses every spelling of a refused address with one answer, open port or closed, and never connects', async () => {
    const listener = await startRefusedListener();
    const closed = await closedPort(REFUSED_HOST);
    try {
      const open = listener.port;
      for (const serviceUrl of [
        `http://127.0.0.2:${open}`,
        `http://127.0.0.2:${closed}`,
        `http://0x7f000002:${open}`,
        `http://0x7f000002:${closed}`,
        `http://2130706434:${open}`,
        `http://127.2:${open}`,
        `http://[::ffff:127.0.0.2]:${open}`,
        `http://[::ffff:127.0.0.2]:${closed}`,
      ]) {
        const res = await call(
          'POST',
          '/api/cloudaccount/insert',
          owner.token,
          genericS3({ name: 'Probe', serviceUrl }),
        );
        expect({ serviceUrl, status: res.status, body: res.body }).toEqual({
          serviceUrl,
          status: 400,
          body: generic,
        });
      }
      // A Google key whose universe_domain would send the library's requests to the refused address.
      const googleKey = {
        type: 'service_account',
        project_id: 'probe',
        client_email: 'probe@probe.iam.gserviceaccount.com',
        private_key: 'a placeholder: the key is refused for its universe_domain before it is read',
        universe_domain: `${REFUSED_HOST}:${open}`,
      };
      const google = await call('POST', '/api/cloudaccount/insert', owner.token, {
        cloudType: 16,
        name: 'Probe',
        credentialsData: JSON.stringify(googleKey),
      });
      expect({ status: google.status, body: google.body }).toEqual({ status: 400, body: generic });
      expect(listener.connections()).toBe(0);
      expect(await accountNames()).not.toContain('Probe');
    } finally {
      await listener.stop();
    }
  });

  it('refuses an Azure account name that would name another host than Azure (no operator endpoint)', async () => {
    const listener = await startRefusedListener();
    const plain = await startTestServer();
    try {
      const admin = await signedInMember(plain, 'azure-owner');
      const res = await callApi(plain, 'POST', '/api/cloudaccount/insert', admin.token, {
        cloudType: 4,
        name: 'Probe',
        accessKey: `probe@${REFUSED_HOST}:${listener.port}/x#`,
        secretKey: AZURITE_KEY,
      });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: generic });
      expect(listener.connections()).toBe(0);
    } finally {
      await plain.stop();
      await listener.stop();
    }
  });

  it('on an allowed address, a closed port and servers that are not S3 answer the same text as a refusal', async () => {
    const notS3 = http.createServer((req, res) => {
      res.statusCode = req.url?.includes('broken') ? 500 : 404;
      res.setHeader('content-type', 'text/html');
      res.end('<html><body>Not Found</body></html>');
    });
    await new Promise<void>((resolve) => notS3.listen(0, '127.0.0.1', resolve));
    const open = (notS3.address() as AddressInfo).port;
    const closed = await closedPort('127.0.0.1');
    try {
      for (const serviceUrl of [
        `http://127.0.0.1:${open}`,
        `http://127.0.0.1:${open}/broken`,
        `http://127.0.0.1:${closed}`,
        `https://127.0.0.1:${open}`,
      ]) {
        const res = await call(
          'POST',
          '/api/cloudaccount/insert',
          owner.token,
          genericS3({ name: 'Probe', serviceUrl }),
        );
        expect({ serviceUrl, status: res.status, body: res.body }).toEqual({
          serviceUrl,
          status: 400,
          body: generic,
        });
      }
      expect(await accountNames()).not.toContain('Probe');
      // The allowed S3 service on the same address connects.
      expect(
        (await call('POST', '/api/cloudaccount/insert', owner.token, genericS3({ name: 'Allowed' }))).status,
      ).toBe(201);
    } finally {
      notS3.closeAllConnections();
      await new Promise<void>((resolve) => notS3.close(() => resolve()));
    }
  });
});

import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_AUTH_SCHEME,
  AGENT_URL_SCHEME,
  ROLE_ID,
  agentCost,
  agentMessages,
  authzMessages,
  transferMessages,
  type AgentDevice,
  type AgentDownloadAnswer,
  type AgentDownloadUrlsAnswer,
  AGENT_DOWNLOAD_URL_KEYS_MAX,
  type AgentHistoryAnswer,
  type AgentHistoryItem,
  type AgentMeAnswer,
  type AgentPairingCode,
  type AgentSummaryAnswer,
  type RedeemAgentCodeAnswer,
  type SignedPart,
  type UploadSession,
  type UserAcl,
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
import { DOWNLOAD_PAGE_FILES } from './agent-downloads.ts';
import { agentPackageMessages } from './agent-package.ts';
import { PAIR_TRIES } from './agent.service.ts';

/**
 * The transfer agent's server calls on the real web role: embedded PostgreSQL, s3rver as the aws account. This
 * test plays the agent (device token calls, fetching and putting bytes at the signed URLs) and the browser
 * (session calls).
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

let server: TestServer;
let s3rver: S3rverServer;
let s3: S3ObjectStore;
let owner: Member;
let admin: Member;
let user: Member;
/** Owner of another organisation. */
let stranger: Member;
let awsId: string;
let strangerAwsId: string;
let agentDir: string;

const call = (member: Member, method: Method, url: string, body?: unknown) =>
  callApi(server, method, url, member.token, body);

/** A call as the agent makes it: its device token, no session. */
async function agentCall(token: string, method: Method, url: string, body?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    payload: body === undefined ? undefined : (body as object),
    headers: { authorization: `${AGENT_AUTH_SCHEME} ${token}` },
  });
  return { status: res.statusCode, body: res.body ? (res.json() as unknown) : undefined, raw: res.body };
}

/** POST /agent/devices as a fresh agent does: no authorization, only the code. */
async function redeem(code: string, remoteAddress = '127.0.0.1', name = 'build-box') {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/agent/devices',
    payload: { code, name, platform: 'linux', version: '0.1.0' },
    remoteAddress,
  });
  return { status: res.statusCode, body: res.json() as unknown, raw: res.body };
}

async function newCode(member: Member): Promise<string> {
  const res = await call(member, 'POST', '/api/agent/pairing-codes');
  expect(res.status, res.raw).toBe(201);
  return (res.body as AgentPairingCode).code;
}

/** Pairs an agent with the member's account: code on the page, redeemed by the agent. */
async function pair(member: Member, name = 'build-box'): Promise<RedeemAgentCodeAnswer> {
  const res = await redeem(await newCode(member), '127.0.0.1', name);
  expect(res.status, res.raw).toBe(201);
  return res.body as RedeemAgentCodeAnswer;
}

async function quotaUsed(organizationId: string, quota: string): Promise<number> {
  const { rows } = await server.db.pool.query<{ used: string; reserved: string }>(
    'select used, reserved from quota_counters where organization_id = $1 and quota = $2',
    [organizationId, quota],
  );
  return rows.reduce((sum, row) => sum + Number(row.used) + Number(row.reserved), 0);
}

async function setFtxAcl(member: Member, enabled: boolean | null) {
  const acls = (await call(admin, 'GET', `/api/user_access_levels/user_acls/${member.principal.userId}`))
    .body as UserAcl[];
  const ftx = acls.find((acl) => acl.service === 'ftx');
  if (!ftx) throw new Error('no ftx ACL');
  const res = await call(admin, 'PUT', `/api/user_access_levels/${ftx.id}`, {
    user_access_level: { enabled },
  });
  expect(res.status, res.raw).toBe(200);
}

beforeAll(async () => {
  s3rver = await startS3rver();
  agentDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-agent-dist-'));
  server = await startTestServer({
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }),
    AGENT_DIST_DIR: agentDir,
  });
  owner = await signedInMember(server, 'owner');
  admin = await signedInMember(server, 'admin', { principal: owner.principal, roleId: ROLE_ID.Admin });
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
  awsId = await connectS3rverAccount(server, owner.token, 'Lab AWS');
  strangerAwsId = await connectS3rverAccount(server, stranger.token, 'Their AWS');
  s3 = s3rverStore(s3rver.endpoint);
  await s3.createBucket('media');
}, 60_000);

afterAll(async () => {
  await s3?.close();
  await server?.stop();
  await s3rver?.stop();
  if (agentDir) await fs.rm(agentDir, { recursive: true, force: true });
});

describe('transfer agent pairing and device tokens (embedded PostgreSQL)', () => {
  it('pairs with a one-time code: the device token then says who it acts for, and the code is spent', async () => {
    const code = await newCode(user);
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    // Typed in a shell: without the dash, in lower case.
    const paired = await redeem(code.replace('-', '').toLowerCase());
    expect(paired.status, paired.raw).toBe(201);
    const answer = paired.body as RedeemAgentCodeAnswer;
    expect(answer.user).toMatchObject({ id: user.principal.userId, email: user.email, first_name: 'user' });
    expect(answer.token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const me = await agentCall(answer.token, 'GET', '/api/agent/me');
    expect(me.status, me.raw).toBe(200);
    expect(me.body).toMatchObject({
      device_id: answer.device_id,
      name: 'build-box',
      user_id: user.principal.userId,
      email: user.email,
      organization_name: answer.organization_name,
    } satisfies Partial<AgentMeAnswer>);

    // The token is kept as a hash only, and the device was seen.
    const { rows } = await server.db.pool.query<{ token_hash: string; last_seen_at: Date | null }>(
      'select token_hash, last_seen_at from agent_devices where id = $1',
      [answer.device_id],
    );
    expect(rows[0]?.token_hash).not.toContain(answer.token);
    expect(rows[0]?.last_seen_at).not.toBeNull();

    const again = await redeem(code);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ message: agentMessages.pairCodeInvalid });
  });

  it('lets exactly one of two concurrent redeems of a code win', async () => {
    const code = await newCode(owner);
    const results = await Promise.all([redeem(code), redeem(code)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    const { rows } = await server.db.pool.query<{ count: string }>(
      'select count(*) from agent_pairing_codes where device_id is not null and used_at is not null',
    );
    // This code and the previous test's: each paired one device.
    expect(Number(rows[0]?.count)).toBe(2);
  });

  it('refuses an expired code', async () => {
    const code = await newCode(owner);
    await server.db.pool.query(`update agent_pairing_codes set expires_at = now() - interval '1 second'`);
    const res = await redeem(code);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: agentMessages.pairCodeInvalid });
  });

  it('slows a client address down after repeated wrong codes (429), whatever code it tries next', async () => {
    const address = '10.9.8.7';
    for (let i = 0; i < PAIR_TRIES.perIp; i += 1) {
      expect((await redeem('ZZZZ-ZZZZ', address)).status).toBe(400);
    }
    const valid = await newCode(owner);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/agent/devices',
      payload: { code: valid, name: 'x', platform: 'linux', version: '1' },
      remoteAddress: address,
    });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // Another address still pairs with that code.
    expect((await redeem(valid)).status).toBe(201);
  });

  it('answers notActivated to a member whose ftX is turned off', async () => {
    await setFtxAcl(user, false);
    const res = await call(user, 'POST', '/api/agent/pairing-codes');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ message: agentMessages.notActivated });
    await setFtxAcl(user, null);
    expect((await call(user, 'POST', '/api/agent/pairing-codes')).status).toBe(201);
  });

  it('revokes: the token answers 401 at once; a User revokes only their own device, another organisation sees 404', async () => {
    const usersDevice = await pair(user, 'user-laptop');
    const adminsDevice = await pair(admin, 'admin-laptop');
    const strangersDevice = await pair(stranger, 'stranger-box');

    const usersList = (await call(user, 'GET', '/api/agent/devices')).body as { devices: AgentDevice[] };
    expect(usersList.devices.every((d) => d.user_id === user.principal.userId)).toBe(true);
    expect(usersList.devices.map((d) => d.name)).toContain('user-laptop');
    const adminsList = (await call(admin, 'GET', '/api/agent/devices')).body as { devices: AgentDevice[] };
    expect(adminsList.devices.map((d) => d.name)).toEqual(
      expect.arrayContaining(['user-laptop', 'admin-laptop']),
    );
    expect(adminsList.devices.map((d) => d.name)).not.toContain('stranger-box');
    expect(adminsList.devices.find((d) => d.name === 'user-laptop')?.user_email).toBe(user.email);

    const othersRefused = await call(user, 'DELETE', `/api/agent/devices/${adminsDevice.device_id}`);
    expect(othersRefused.status).toBe(403);
    expect(othersRefused.body).toMatchObject({ message: authzMessages.othersDevice });
    expect((await agentCall(adminsDevice.token, 'GET', '/api/agent/me')).status).toBe(200);

    const foreign = await call(owner, 'DELETE', `/api/agent/devices/${strangersDevice.device_id}`);
    expect(foreign.status).toBe(404);
    expect((await agentCall(strangersDevice.token, 'GET', '/api/agent/me')).status).toBe(200);

    const own = await call(user, 'DELETE', `/api/agent/devices/${usersDevice.device_id}`);
    expect(own.status, own.raw).toBe(200);
    expect(own.body).toMatchObject({ message: agentMessages.deviceRevoked });
    const gone = await agentCall(usersDevice.token, 'GET', '/api/agent/me');
    expect(gone.status).toBe(401);
    expect(gone.body).toMatchObject({ message: agentMessages.deviceUnknown });
    const after = (await call(user, 'GET', '/api/agent/devices')).body as { devices: AgentDevice[] };
    expect(after.devices.map((d) => d.id)).not.toContain(usersDevice.device_id);

    // An Admin revokes another member's device.
    expect((await call(admin, 'DELETE', `/api/agent/devices/${adminsDevice.device_id}`)).status).toBe(200);
    expect((await agentCall(adminsDevice.token, 'GET', '/api/agent/me')).status).toBe(401);
    const { rows } = await server.db.pool.query<{
      type: string;
      author_user_id: string;
      agent_device_id: string | null;
    }>(
      `select type, author_user_id, agent_device_id from audits where entity = 'Transfer agent' and resource_id = $1 order by id`,
      [usersDevice.device_id],
    );
    expect(rows).toEqual([
      // Paired by the agent with the member's code; revoked from the member's session.
      { type: 'Added', author_user_id: user.principal.userId, agent_device_id: usersDevice.device_id },
      { type: 'Deleted', author_user_id: user.principal.userId, agent_device_id: null },
    ]);
  });

  it("a deactivated member's device answers 401 until they are active again", async () => {
    const device = await pair(user, 'user-desktop');
    expect((await call(admin, 'PUT', `/api/users/${user.principal.userId}/deactivate`)).status).toBe(200);
    expect((await agentCall(device.token, 'GET', '/api/agent/me')).status).toBe(401);
    expect((await call(admin, 'PUT', `/api/users/${user.principal.userId}/activate`)).status).toBe(200);
    expect((await agentCall(device.token, 'GET', '/api/agent/me')).status).toBe(200);
    user = { ...user, token: (await signedInAgain(user)).token };
  });

  it('binds a connect ticket to its device, once, and only for the caller’s own live device', async () => {
    const mine = await pair(owner, 'owner-laptop');
    const other = await pair(owner, 'owner-server');
    const created = await call(owner, 'POST', '/api/agent/tickets', { device_id: mine.device_id });
    expect(created.status, created.raw).toBe(201);
    const { ticket } = created.body as { ticket: string };

    const wrongDevice = await agentCall(other.token, 'POST', '/api/agent/tickets/redeem', { ticket });
    expect(wrongDevice.status).toBe(400);
    expect(wrongDevice.body).toMatchObject({ message: agentMessages.ticketInvalid });
    const redeemed = await agentCall(mine.token, 'POST', '/api/agent/tickets/redeem', { ticket });
    expect(redeemed.status, redeemed.raw).toBe(200);
    expect(redeemed.body).toEqual({ user_id: owner.principal.userId, email: owner.email });
    expect((await agentCall(mine.token, 'POST', '/api/agent/tickets/redeem', { ticket })).status).toBe(400);

    // Expired.
    const late = (await call(owner, 'POST', '/api/agent/tickets', { device_id: mine.device_id })).body as {
      ticket: string;
    };
    await server.db.pool.query(`update agent_tickets set expires_at = now() - interval '1 second'`);
    expect((await agentCall(mine.token, 'POST', '/api/agent/tickets/redeem', late)).status).toBe(400);

    // Another member's device: 403 naming that member, so the page can say what to do; no ticket is made.
    const admins = await pair(admin, 'admin-tower');
    const tickets = await server.db.pool.query('select count(*)::int as n from agent_tickets');
    const colleague = await call(owner, 'POST', '/api/agent/tickets', { device_id: admins.device_id });
    expect({ status: colleague.status, body: colleague.body }).toMatchObject({
      status: 403,
      body: { message: agentMessages.pairedWithOther(admin.email) },
    });
    expect((await server.db.pool.query('select count(*)::int as n from agent_tickets')).rows).toEqual(
      tickets.rows,
    );
    // A revoked one, another organisation's: 404.
    await call(owner, 'DELETE', `/api/agent/devices/${other.device_id}`);
    expect((await call(owner, 'POST', '/api/agent/tickets', { device_id: other.device_id })).status).toBe(
      404,
    );
    const theirs = await pair(stranger, 'their-box');
    expect((await call(owner, 'POST', '/api/agent/tickets', { device_id: theirs.device_id })).status).toBe(
      404,
    );
  });

  it('refuses a device every call outside its allowlist, and the session calls; a session cannot act as a device', async () => {
    const device = await pair(owner, 'owner-nas');
    for (const [method, url, body] of [
      [
        'DELETE',
        '/api/transfers/delete_object',
        { cloud_account_id: awsId, bucket_name: 'media', paths: ['a'] },
      ],
      ['GET', '/api/users/_me', undefined],
      ['POST', '/api/agent/pairing-codes', undefined],
      ['GET', '/api/agent/devices', undefined],
      ['DELETE', `/api/agent/devices/${device.device_id}`, undefined],
      ['POST', '/api/apikey/CreateKey', undefined],
      ['GET', '/api/transfers/history', undefined],
    ] as const) {
      const res = await agentCall(device.token, method, url, body);
      expect(res.status, `${method} ${url}: ${res.raw}`).toBe(403);
      expect(res.body).toMatchObject({ code: 'DEVICE_FORBIDDEN', message: agentMessages.deviceForbidden });
    }
    expect((await agentCall(device.token, 'GET', '/api/agent/me')).status).toBe(200);
    expect((await call(owner, 'GET', '/api/agent/me')).status).toBe(401);
    expect((await agentCall('not-a-token', 'GET', '/api/agent/me')).status).toBe(401);
    expect((await agentCall('x'.repeat(43), 'GET', '/api/users/_me')).status).toBe(401);
  });

  it("lets the pages reach the user's agent on 127.0.0.1 and open its launch link under the CSP", async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/health' });
    const directives = String(res.headers['content-security-policy'])
      .split(';')
      .map((directive) => directive.trim().split(/\s+/));
    const directive = (name: string) => directives.find(([first]) => first === name)?.slice(1) ?? [];
    expect(directive('connect-src')).toContain('http://127.0.0.1:*');
    expect(directive('frame-src')).toEqual(["'self'", `${AGENT_URL_SCHEME}:`]);
  });
});

describe('downloads, uploads and history through the agent (s3rver, embedded PostgreSQL)', () => {
  let device: RedeemAgentCodeAnswer;
  let usersDevice: RedeemAgentCodeAnswer;

  beforeAll(async () => {
    device = await pair(owner, 'owner-workstation');
    usersDevice = await pair(user, 'user-workstation');
  });

  const files: Record<string, string> = {
    'projects/site/index.html': '<h1>hi</h1>',
    'projects/site/css/main.css': 'body{}',
    'projects/site/.env': 'SECRET=1',
    'projects/site/.git/config': '[core]',
    'projects/site/img/logo.svg': '<svg/>',
    'projects/notes.txt': 'notes',
  };

  it('refuses downloads until the ftX charge is confirmed, then lists a folder recursively without dot-names; the URLs give the bytes', async () => {
    for (const [key, content] of Object.entries(files)) await s3.write('media', key, Buffer.from(content));
    await s3.write('media', 'projects/site/img/', Buffer.alloc(0));
    const body = {
      cloud_account_id: awsId,
      bucket_name: 'media',
      paths: ['projects/site/', 'projects/notes.txt'],
    };

    const early = await agentCall(device.token, 'POST', '/api/agent/downloads', body);
    expect(early.status).toBe(403);
    expect(early.body).toMatchObject({ message: transferMessages.ftxChargeNotConfirmed });
    expect((await call(owner, 'PUT', '/api/organizations/_me', { confirmed_ftx: true })).status).toBe(200);

    const res = await agentCall(device.token, 'POST', '/api/agent/downloads', body);
    expect(res.status, res.raw).toBe(200);
    const answer = res.body as AgentDownloadAnswer;
    expect(answer.continuation).toBeNull();
    expect(answer.files.map((f) => [f.key, f.relative_path, f.size]).sort()).toEqual(
      [
        ['projects/notes.txt', 'notes.txt', 5],
        ['projects/site/css/main.css', 'site/css/main.css', 6],
        ['projects/site/img/logo.svg', 'site/img/logo.svg', 6],
        ['projects/site/index.html', 'site/index.html', 11],
      ].sort(),
    );
    for (const file of answer.files) {
      const fetched = await fetch(file.url);
      expect(fetched.status).toBe(200);
      expect(await fetched.text()).toBe(files[file.key]);
      expect(file.etag).toMatch(/^[0-9a-f]{32}$/);
    }

    const missing = await agentCall(device.token, 'POST', '/api/agent/downloads', {
      ...body,
      paths: ['projects/nothing.txt'],
    });
    expect(missing.status).toBe(400);
    const foreign = await agentCall(device.token, 'POST', '/api/agent/downloads', {
      ...body,
      cloud_account_id: strangerAwsId,
    });
    expect(foreign.status).toBe(404);
    const forged = await agentCall(device.token, 'POST', '/api/agent/downloads', {
      ...body,
      continuation: 'bm90IG1pbmU',
    });
    expect(forged.status).toBe(400);
  });

  it('pages a large folder with a continuation, every file once', async () => {
    const total = DOWNLOAD_PAGE_FILES + 23;
    const keys = Array.from({ length: total }, (_, i) => `many/f${String(i).padStart(4, '0')}.txt`);
    for (let i = 0; i < keys.length; i += 25) {
      await Promise.all(keys.slice(i, i + 25).map((key) => s3.write('media', key, Buffer.from(key))));
    }
    const seen: string[] = [];
    let continuation: string | null = null;
    let pages = 0;
    do {
      const res = await agentCall(device.token, 'POST', '/api/agent/downloads', {
        cloud_account_id: awsId,
        bucket_name: 'media',
        paths: ['many/', 'projects/notes.txt'],
        continuation,
      });
      expect(res.status, res.raw).toBe(200);
      const page = res.body as AgentDownloadAnswer;
      expect(page.files.length).toBeLessThanOrEqual(DOWNLOAD_PAGE_FILES);
      seen.push(...page.files.map((f) => f.relative_path));
      continuation = page.continuation;
      pages += 1;
    } while (continuation);
    expect(pages).toBe(2);
    // A chosen folder keeps its own name; a chosen file is its name alone.
    expect(seen).toEqual([...keys, 'notes.txt']);
  }, 60_000);

  it('signs fresh URLs for listed keys in the order asked, looking nothing up; folders and foreign accounts refused', async () => {
    const urls = (body: Record<string, unknown>, token = device.token) =>
      agentCall(token, 'POST', '/api/agent/downloads/urls', {
        cloud_account_id: awsId,
        bucket_name: 'media',
        ...body,
      });
    const keys = ['projects/site/index.html', 'projects/notes.txt', 'projects/gone.txt'];
    const res = await urls({ keys });
    expect(res.status, res.raw).toBe(200);
    const answer = res.body as AgentDownloadUrlsAnswer;
    expect(answer.urls.map((entry) => entry.key)).toEqual(keys);
    const [index, notes, gone] = await Promise.all(answer.urls.map((entry) => fetch(entry.url)));
    expect(await index?.text()).toBe(files['projects/site/index.html']);
    expect(await notes?.text()).toBe(files['projects/notes.txt']);
    // The key was never looked up: its GET says it is not there.
    expect(gone?.status).toBe(404);

    expect((await urls({ keys: ['projects/site/'] })).status).toBe(400);
    expect((await urls({ keys: [] })).status).toBe(400);
    expect(
      (await urls({ keys: Array.from({ length: AGENT_DOWNLOAD_URL_KEYS_MAX + 1 }, (_, i) => `k${i}`) }))
        .status,
    ).toBe(400);
    expect((await urls({ keys, cloud_account_id: strangerAwsId })).status).toBe(404);
    // A signed-in session is not a device: the call is the agent's alone.
    const session = await call(owner, 'POST', '/api/agent/downloads/urls', {
      cloud_account_id: awsId,
      bucket_name: 'media',
      keys,
    });
    expect(session.status).toBe(401);
  });

  it("counts a device's upload against fc (not s3_native) and refuses it while the ftX charge is unconfirmed", async () => {
    const { organizationId } = owner.principal;
    const bytes = Buffer.from('uploaded by the agent');
    const open = (token: string, key: string) =>
      agentCall(token, 'POST', '/api/transfers/uploads', {
        cloud_account_id: awsId,
        bucket_name: 'media',
        key,
        size: bytes.length,
        fingerprint: `${key}:${bytes.length}:1`,
      });

    await server.db.pool.query('update organizations set confirmed_ftx = false where id = $1', [
      organizationId,
    ]);
    const refused = await open(device.token, 'up/agent.txt');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ message: transferMessages.ftxChargeNotConfirmed });
    expect((await call(owner, 'PUT', '/api/organizations/_me', { confirmed_ftx: true })).status).toBe(200);

    const fcBefore = await quotaUsed(organizationId, 'fc');
    const nativeBefore = await quotaUsed(organizationId, 's3_native');
    const opened = await open(device.token, 'up/agent.txt');
    expect(opened.status, opened.raw).toBe(200);
    const session = opened.body as UploadSession;
    const signed = await agentCall(
      device.token,
      'GET',
      `/api/transfers/url_signer_v4?session_id=${session.session_id}&part_numbers=1`,
    );
    expect(signed.status, signed.raw).toBe(200);
    const [target] = (signed.body as { parts: SignedPart[] }).parts;
    if (!target) throw new Error('no signed URL');
    expect((await fetch(target.url, { method: 'PUT', headers: target.headers, body: bytes })).status).toBe(
      200,
    );
    const completed = await agentCall(
      device.token,
      'POST',
      `/api/transfers/uploads/${session.session_id}/complete`,
      { parts: [] },
    );
    expect(completed.status, completed.raw).toBe(200);
    expect(await quotaUsed(organizationId, 'fc')).toBe(fcBefore + bytes.length);
    expect(await quotaUsed(organizationId, 's3_native')).toBe(nativeBefore);
    expect((await s3.stat('media', 'up/agent.txt'))?.size).toBe(bytes.length);

    // The browser's upload of the same member still counts against s3_native.
    const browser = await call(owner, 'POST', '/api/transfers/uploads', {
      cloud_account_id: awsId,
      bucket_name: 'media',
      key: 'up/browser.txt',
      size: bytes.length,
      fingerprint: `browser:${bytes.length}:1`,
    });
    expect(browser.status, browser.raw).toBe(200);
    expect(await quotaUsed(organizationId, 's3_native')).toBe(nativeBefore + bytes.length);
  });

  it("a device's batch upload counts against fc; it aborts its member's own session; its share names it in the audit trail", async () => {
    const { organizationId } = owner.principal;
    const fcBefore = await quotaUsed(organizationId, 'fc');
    const batch = await agentCall(device.token, 'POST', '/api/transfers/uploads/batch', {
      cloud_account_id: awsId,
      bucket_name: 'media',
      files: [
        { key: 'batch/a.txt', size: 3, fingerprint: 'a:3' },
        { key: 'batch/b.txt', size: 4, fingerprint: 'b:4' },
      ],
    });
    expect(batch.status, batch.raw).toBe(200);
    expect(await quotaUsed(organizationId, 'fc')).toBe(fcBefore + 7);

    const session = (
      await agentCall(device.token, 'POST', '/api/transfers/uploads', {
        cloud_account_id: awsId,
        bucket_name: 'media',
        key: 'up/cancelled.bin',
        size: 9,
        fingerprint: 'cancelled:9',
      })
    ).body as UploadSession;
    const usersSession = (
      await agentCall(usersDevice.token, 'POST', '/api/transfers/uploads', {
        cloud_account_id: awsId,
        bucket_name: 'media',
        key: 'up/users.bin',
        size: 9,
        fingerprint: 'users:9',
      })
    ).body as UploadSession;
    const othersAbort = await agentCall(
      device.token,
      'DELETE',
      `/api/transfers/uploads/${usersSession.session_id}`,
    );
    expect(othersAbort.status).toBe(403);
    expect(othersAbort.body).toMatchObject({ message: authzMessages.othersUpload });
    const aborted = await agentCall(device.token, 'DELETE', `/api/transfers/uploads/${session.session_id}`);
    expect(aborted.status, aborted.raw).toBe(200);

    const shared = await agentCall(device.token, 'POST', '/api/transfers/share_files_by_email', {
      files: [
        {
          name: 'projects/notes.txt',
          size: 5,
          acl: 'private',
          bucket_name: 'media',
          cloud_account_id: awsId,
        },
      ],
      recipients: ['friend@example.com'],
    });
    expect(shared.status, shared.raw).toBe(200);
    await server.mail.waitFor('friend@example.com', 'shared');
    const { rows } = await server.db.pool.query<{ author_user_id: string; agent_device_id: string }>(
      `select author_user_id, agent_device_id from audits where entity = 'Share' order by id desc limit 1`,
    );
    expect(rows).toEqual([{ author_user_id: owner.principal.userId, agent_device_id: device.device_id }]);
  });

  it('records a reported transfer once, priced; a download counts against fc once', async () => {
    const { organizationId } = owner.principal;
    const report = {
      transfer_id: randomUUID(),
      direction: 'download' as const,
      cloud_account_id: awsId,
      bucket_name: 'media',
      files: ['site'],
      files_count: 4,
      size: 3 * 1024 * 1024,
      is_directory: true,
    };
    const fcBefore = await quotaUsed(organizationId, 'fc');
    const first = await agentCall(device.token, 'POST', '/api/agent/history', report);
    expect(first.status, first.raw).toBe(200);
    const item = first.body as AgentHistoryItem;
    expect(item).toMatchObject({
      bucket: 'media',
      direction: 'download',
      size: report.size,
      files: ['site'],
    });
    expect(item.cost).toBeCloseTo(agentCost(report.size), 6);
    const second = await agentCall(device.token, 'POST', '/api/agent/history', report);
    expect(second.body).toEqual(item);
    expect(await quotaUsed(organizationId, 'fc')).toBe(fcBefore + report.size);
    const { rows } = await server.db.pool.query<{ count: string }>(
      'select count(*) from agent_transfers where transfer_id = $1',
      [report.transfer_id],
    );
    expect(Number(rows[0]?.count)).toBe(1);

    const foreign = await agentCall(device.token, 'POST', '/api/agent/history', {
      ...report,
      transfer_id: randomUUID(),
      cloud_account_id: strangerAwsId,
    });
    expect(foreign.status).toBe(404);
  });

  it('answers the history, and the summary with the files moved, their size and cost, by date; a User sees their own, the Owner everyone’s', async () => {
    const report = (size: number, direction: 'upload' | 'download', filesCount: number) => ({
      transfer_id: randomUUID(),
      direction,
      cloud_account_id: awsId,
      bucket_name: 'media',
      files: [`f-${size}`],
      files_count: filesCount,
      size,
      is_directory: false,
    });
    await server.db.pool.query('delete from agent_transfers');
    const usersUpload = await agentCall(
      usersDevice.token,
      'POST',
      '/api/agent/history',
      report(1_000_000, 'upload', 3),
    );
    expect(usersUpload.status, usersUpload.raw).toBe(200);
    const old = await agentCall(device.token, 'POST', '/api/agent/history', report(2_000_000, 'download', 5));
    const recent = await agentCall(
      device.token,
      'POST',
      '/api/agent/history',
      report(4_000_000, 'upload', 7),
    );
    expect([old.status, recent.status]).toEqual([200, 200]);
    await server.db.pool.query(
      `update agent_transfers set created_at = '2026-01-15T12:00:00Z' where id = $1`,
      [(old.body as AgentHistoryItem).id],
    );

    const all = (await call(owner, 'GET', '/api/transfers/history?limit=2&page=1&service=file_catalyst'))
      .body as AgentHistoryAnswer;
    expect(all.count).toBe(3);
    expect(all.transfers).toHaveLength(2);
    expect(all.transfers.at(-1)?.size).not.toBe(2_000_000);
    const page2 = (await call(owner, 'GET', '/api/transfers/history?limit=2&page=2'))
      .body as AgentHistoryAnswer;
    expect(page2.transfers.map((t) => t.size)).toEqual([2_000_000]);
    const own = (await call(user, 'GET', '/api/transfers/history')).body as AgentHistoryAnswer;
    expect(own).toMatchObject({ count: 1, transfers: [{ size: 1_000_000, direction: 'upload' }] });

    const january = await call(
      owner,
      'GET',
      '/api/transfers/summary?start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T23:59:59Z&service=file_catalyst',
    );
    expect(january.status, january.raw).toBe(200);
    const jan = january.body as AgentSummaryAnswer;
    expect(jan).toMatchObject({ count: 5, size: 2_000_000 });
    expect(jan.cost).toBeCloseTo(agentCost(2_000_000), 6);
    const everything = (
      await call(
        owner,
        'GET',
        '/api/transfers/summary?start_date=2026-01-01T00:00:00Z&end_date=2099-01-01T00:00:00Z',
      )
    ).body as AgentSummaryAnswer;
    expect(everything).toMatchObject({ count: 15, size: 7_000_000 });
    expect(everything.cost).toBeCloseTo(agentCost(7_000_000), 6);
    const usersSummary = (
      await call(
        user,
        'GET',
        '/api/transfers/summary?start_date=2026-01-01T00:00:00Z&end_date=2099-01-01T00:00:00Z',
      )
    ).body as AgentSummaryAnswer;
    expect(usersSummary).toMatchObject({ count: 3, size: 1_000_000 });
    const backwards = await call(
      owner,
      'GET',
      '/api/transfers/summary?start_date=2026-02-01T00:00:00Z&end_date=2026-01-01T00:00:00Z',
    );
    expect(backwards.status).toBe(400);
    expect((await call(stranger, 'GET', '/api/transfers/history')).body).toEqual({ transfers: [], count: 0 });
  });
});

describe('the agent download (public)', () => {
  it('answers 503 in words until the agent is built, then a zip of the bundle and the platform files', async () => {
    const missing = await server.app.inject({ method: 'GET', url: '/api/agent/download/linux' });
    expect(missing.statusCode).toBe(503);
    expect(missing.json()).toMatchObject({ message: agentPackageMessages.notBuilt });

    await fs.mkdir(path.join(agentDir, 'dist'), { recursive: true });
    await fs.writeFile(path.join(agentDir, 'dist', 'cumulo-agent.mjs'), 'console.log("agent")\n');
    await fs.mkdir(path.join(agentDir, 'packaging', 'linux'), { recursive: true });
    await fs.mkdir(path.join(agentDir, 'packaging', 'windows'), { recursive: true });
    await fs.writeFile(path.join(agentDir, 'packaging', 'linux', 'install.sh'), '#!/bin/sh\n', {
      mode: 0o755,
    });
    await fs.writeFile(path.join(agentDir, 'packaging', 'windows', 'install.cmd'), '@echo off\r\n');

    const res = await server.app.inject({ method: 'GET', url: '/api/agent/download/linux' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="cumulo-agent-linux.zip"');
    const entries = unzipSync(new Uint8Array(res.rawPayload));
    expect(Object.keys(entries).sort()).toEqual(['cumulo-agent/cumulo-agent.mjs', 'cumulo-agent/install.sh']);
    expect(strFromU8(entries['cumulo-agent/cumulo-agent.mjs'] ?? new Uint8Array())).toBe(
      'console.log("agent")\n',
    );

    const windows = await server.app.inject({ method: 'GET', url: '/api/agent/download/windows' });
    expect(Object.keys(unzipSync(new Uint8Array(windows.rawPayload))).sort()).toEqual([
      'cumulo-agent/cumulo-agent.mjs',
      'cumulo-agent/install.cmd',
    ]);
    expect((await server.app.inject({ method: 'GET', url: '/api/agent/download/beos' })).statusCode).toBe(
      400,
    );
  });
});

async function signedInAgain(member: Member) {
  const login = await server.services.identity.login(member.email, 'Sunny#day7', { ip: '127.0.0.1' });
  if (login.challenge !== 0) throw new Error('unexpected MFA challenge');
  return { token: login.jwtToken };
}

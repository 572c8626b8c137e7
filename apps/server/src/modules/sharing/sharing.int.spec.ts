import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROLE_ID,
  SHARE_EXPIRATION_DEFAULT_SECONDS,
  chatRefused,
  sharingMessages,
  type ShareListAnswer,
} from '@cumulo/contract';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import {
  callApi,
  linkToken,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { REFUSED_HOST, startRefusedListener } from '../../../test/refused-address.ts';

let server: TestServer;
let s3rver: TestStoreServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
let member: Awaited<ReturnType<typeof signedInMember>>;
let stranger: Awaited<ReturnType<typeof signedInMember>>;
let accountId: string;
let strangerAccountId: string;

/**
 * Slack (or Mattermost, Teams) cannot run here, so this local HTTP server stands in for an incoming webhook: it
 * records each JSON body and answers with the status the test asks for. It is the only stand-in in this file.
 */
let chatSink: http.Server;
let chatSinkUrl: string;
let chatStatus = 200;
/** Where the sink redirects when `chatStatus` is a 3xx. */
let chatLocation = '';
const chatPosts: Array<{ url: string; contentType: string | undefined; body: { text?: string } }> = [];

/** Every raw answer of the file, checked at the end for secrets. */
const answers: string[] = [];
const call = async (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token: string,
  body?: unknown,
) => {
  const res = await callApi(server, method, url, token, body);
  answers.push(res.raw);
  return res;
};
/** A signed-out visitor: no Authorization header at all. */
const visit = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
  const res = await server.app.inject({
    method,
    url,
    payload: body as object | undefined,
    headers: { 'user-agent': 'SharingSpec/1.0' },
  });
  answers.push(res.body);
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
};

const BUCKET = 'reports';
const REPORT = Buffer.from('quarterly numbers: 42\n'.repeat(500));
const CLIP = Buffer.alloc(70_000, 7);

const fileOf = (name: string, account = accountId) => ({
  name,
  size: 1,
  acl: 'private',
  bucket_name: BUCKET,
  cloud_account_id: account,
});

async function shareByEmail(body: Record<string, unknown>) {
  return call('POST', '/api/transfers/share_files_by_email', owner.token, body);
}

/** Shares and returns the link token read from the recipient's mail. */
async function sharedToken(recipient: string, body: Record<string, unknown> = {}) {
  const res = await shareByEmail({
    files: [fileOf('q1/report.csv'), fileOf('clips/intro.bin')],
    recipients: [recipient],
    ...body,
  });
  expect(res).toMatchObject({ status: 200, body: { message: sharingMessages.shared } });
  const mail = await server.mail.waitFor(recipient, 'shared 2 files with you');
  return { mail, token: linkToken(mail, /http:\/\/cumulo\.test\/sharing\/([\w-]{43})/) };
}

beforeAll(async () => {
  s3rver = await startS3rver();
  chatSink = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      chatPosts.push({
        url: req.url ?? '',
        contentType: req.headers['content-type'],
        body: JSON.parse(text || '{}') as { text?: string },
      });
      res.statusCode = chatStatus;
      if (chatStatus >= 300 && chatStatus < 400) res.setHeader('location', chatLocation);
      res.end(chatStatus === 200 ? 'ok' : 'no_service');
    });
  });
  await new Promise<void>((resolve) => chatSink.listen(0, '127.0.0.1', resolve));
  chatSinkUrl = `http://127.0.0.1:${(chatSink.address() as AddressInfo).port}/services/T000/B000/secretpart1234`;
  server = await startTestServer({ PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }) });

  const store = s3rverStore(s3rver.endpoint);
  await store.createBucket(BUCKET);
  await store.write(BUCKET, 'q1/report.csv', REPORT, { contentType: 'text/csv' });
  await store.write(BUCKET, 'clips/intro.bin', CLIP);
  await store.close();

  owner = await signedInMember(server, 'Ada');
  member = await signedInMember(server, 'Bob', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'Eve');
  const connect = async (token: string) => {
    const res = await callApi(server, 'POST', '/api/cloudaccount/insert', token, {
      cloudType: 1,
      name: 'Lab AWS',
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  accountId = await connect(owner.token);
  strangerAccountId = await connect(stranger.token);
});

afterAll(async () => {
  await server?.stop();
  await s3rver?.stop();
  await new Promise((resolve) => chatSink?.close(resolve));
});

describe('sharing by e-mail link against s3rver, the SMTP sink and PostgreSQL', () => {
  let token: string;
  let shareId: string;

  it('mails each recipient the link, who shared, the files and sizes, expiry and that a password is needed', async () => {
    const before = Date.now();
    const shared = await sharedToken('carol@example.com', { password: 'open sesame', expiration: 86_400 });
    token = shared.token;
    expect(shared.mail.subject).toBe('Ada Test shared 2 files with you');
    expect(shared.mail.body).toContain('report.csv (10.74 kB)');
    expect(shared.mail.body).toContain('intro.bin (68.36 kB)');
    expect(shared.mail.body).toContain('protected by a password');
    expect(shared.mail.body).not.toContain('open sesame');
    expect(shared.mail.body).toContain(new Date(before + 86_400_000).toISOString().slice(0, 10));

    const list = await call('GET', '/api/shares', owner.token);
    const item = (list.body as ShareListAnswer).items[0];
    expect(item).toMatchObject({
      channel: 'email',
      recipients: ['carol@example.com'],
      created_by: 'Ada Test',
      status: 'active',
      revoked: false,
      has_password: true,
      download_count: 0,
      files: [
        { name: 'q1/report.csv', size: REPORT.length, bucket_name: BUCKET },
        { name: 'clips/intro.bin', size: CLIP.length, bucket_name: BUCKET },
      ],
    });
    shareId = item?.id ?? '';
    const stored = await server.db.pool.query<{ token_hash: string; password_hash: string }>(
      'select token_hash, password_hash from shares where id = $1',
      [shareId],
    );
    expect(stored.rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.rows[0]?.token_hash).not.toBe(token);
    expect(stored.rows[0]?.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('opens signed-out: the files, the expiry and that a password is needed', async () => {
    const view = await visit('GET', `/api/sharing/${token}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      password_required: true,
      shared_by: 'Ada Test',
      files: [
        { path: 'q1/report.csv', name: 'report.csv', size: REPORT.length },
        { path: 'clips/intro.bin', name: 'intro.bin', size: CLIP.length },
      ],
    });
  });

  it('refuses a missing or wrong password, then hands out a signed URL whose bytes are the object', async () => {
    const url = `/api/sharing/${token}/download`;
    expect(await visit('POST', url, { path: 'q1/report.csv' })).toMatchObject({
      status: 403,
      body: { message: sharingMessages.passwordRequired },
    });
    expect(await visit('POST', url, { path: 'q1/report.csv', password: 'open sesame!' })).toMatchObject({
      status: 403,
      body: { message: sharingMessages.wrongPassword, code: 'WRONG_PASSWORD' },
    });
    const ok = await visit('POST', url, { path: 'q1/report.csv', password: 'open sesame' });
    expect(ok).toMatchObject({ status: 200, body: { expires_in: 300 } });
    const download = await fetch(String(ok.body.url));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('report.csv');
    expect(Buffer.from(await download.arrayBuffer()).equals(REPORT)).toBe(true);

    const notShared = await visit('POST', url, { path: 'q1/other.csv', password: 'open sesame' });
    expect(notShared).toMatchObject({ status: 404, body: { message: sharingMessages.fileNotShared } });
  });

  it('shares exactly the object chosen: a key ending in a space, and one path in two buckets, each its own', async () => {
    const store = s3rverStore(s3rver.endpoint);
    await store.createBucket('second-bucket');
    await store.write(BUCKET, 'notes.txt ', Buffer.from('TRAILING space notes'));
    await store.write(BUCKET, 'notes.txt', Buffer.from('REAL notes'));
    await store.write('second-bucket', 'q1/report.csv', Buffer.from('the other bucket report'));
    await store.close();
    const res = await shareByEmail({
      files: [
        fileOf('notes.txt '),
        fileOf('q1/report.csv'),
        { ...fileOf('q1/report.csv'), bucket_name: 'second-bucket' },
      ],
      recipients: ['dora@example.com'],
    });
    expect(res).toMatchObject({ status: 200 });
    const mail = await server.mail.waitFor('dora@example.com', 'shared 3 files with you');
    const link = linkToken(mail, /http:\/\/cumulo\.test\/sharing\/([\w-]{43})/);
    const view = await visit('GET', `/api/sharing/${link}`);
    expect((view.body as { files: unknown[] }).files).toEqual([
      { index: 0, path: 'notes.txt ', name: 'notes.txt ', size: 20 },
      { index: 1, path: 'q1/report.csv', name: 'report.csv', size: REPORT.length },
      { index: 2, path: 'q1/report.csv', name: 'report.csv', size: 23 },
    ]);
    const bytesOf = async (body: Record<string, unknown>) => {
      const answer = await visit('POST', `/api/sharing/${link}/download`, body);
      expect(answer.status).toBe(200);
      return Buffer.from(await (await fetch(String(answer.body.url))).arrayBuffer()).toString();
    };
    expect(await bytesOf({ path: 'notes.txt ', index: 0 })).toBe('TRAILING space notes');
    expect(await bytesOf({ path: 'q1/report.csv', index: 1 })).toBe(REPORT.toString());
    expect(await bytesOf({ path: 'q1/report.csv', index: 2 })).toBe('the other bucket report');
    // An index that names another path is no file of the share.
    expect(
      await visit('POST', `/api/sharing/${link}/download`, { path: 'notes.txt', index: 0 }),
    ).toMatchObject({
      status: 404,
    });
  });

  it('logs the download with path, size, address and browser, and counts it in the list', async () => {
    const logged = await server.db.pool.query(
      'select path, size, ip, user_agent from share_downloads where share_id = $1',
      [shareId],
    );
    expect(logged.rows).toEqual([
      { path: 'q1/report.csv', size: String(REPORT.length), ip: '127.0.0.1', user_agent: 'SharingSpec/1.0' },
    ]);
    const list = await call('GET', '/api/shares', owner.token);
    expect((list.body as ShareListAnswer).items.find((s) => s.id === shareId)?.download_count).toBe(1);
  });

  it('another organisation cannot list, revoke or address the share by its token', async () => {
    const theirList = await call('GET', '/api/shares', stranger.token);
    expect(theirList).toMatchObject({ status: 200, body: { items: [], total: 0 } });
    expect(await call('DELETE', `/api/shares/${shareId}`, stranger.token)).toMatchObject({ status: 404 });
    expect(await call('DELETE', `/api/shares/${token}`, owner.token)).toMatchObject({ status: 404 });
    const foreignFiles = await call('POST', '/api/transfers/share_files_by_email', stranger.token, {
      files: [fileOf('q1/report.csv', accountId)],
      recipients: ['eve@example.com'],
    });
    expect(foreignFiles.status).toBe(404);
    const stillActive = await call('GET', '/api/shares', owner.token);
    expect((stillActive.body as ShareListAnswer).items.find((s) => s.id === shareId)?.revoked).toBe(false);
  });

  it('a member who did not create the link cannot revoke it; the Owner can, and the link is then refused', async () => {
    expect(await call('DELETE', `/api/shares/${shareId}`, member.token)).toMatchObject({ status: 403 });
    expect(await call('DELETE', `/api/shares/${shareId}`, owner.token)).toMatchObject({
      status: 200,
      body: { message: sharingMessages.revokeDone },
    });
    expect(await visit('GET', `/api/sharing/${token}`)).toMatchObject({
      status: 410,
      body: { message: sharingMessages.revoked },
    });
    expect(
      await visit('POST', `/api/sharing/${token}/download`, {
        path: 'q1/report.csv',
        password: 'open sesame',
      }),
    ).toMatchObject({ status: 410, body: { message: sharingMessages.revoked } });
    const list = await call('GET', '/api/shares', owner.token);
    expect((list.body as ShareListAnswer).items.find((s) => s.id === shareId)).toMatchObject({
      revoked: true,
      status: 'revoked',
    });
  });

  it('a link past its expiry is refused; without an expiration a link lasts the default 7 days', async () => {
    const before = Date.now();
    const { token: later } = await sharedToken('dave@example.com');
    const [row] = (await call('GET', '/api/shares', owner.token).then((r) => r.body as ShareListAnswer))
      .items;
    const lasts = new Date(row?.expires_at ?? 0).getTime() - before;
    expect(lasts).toBeGreaterThanOrEqual(SHARE_EXPIRATION_DEFAULT_SECONDS * 1000);
    expect(lasts).toBeLessThan(SHARE_EXPIRATION_DEFAULT_SECONDS * 1000 + 60_000);
    expect(row?.has_password).toBe(false);
    const open = await visit('POST', `/api/sharing/${later}/download`, { path: 'clips/intro.bin' });
    expect(open.status).toBe(200);

    await server.db.pool.query(`update shares set expires_at = now() - interval '1 minute' where id = $1`, [
      row?.id,
    ]);
    expect(await visit('GET', `/api/sharing/${later}`)).toMatchObject({
      status: 410,
      body: { message: sharingMessages.expired },
    });
    expect(await visit('POST', `/api/sharing/${later}/download`, { path: 'clips/intro.bin' })).toMatchObject({
      status: 410,
      body: { message: sharingMessages.expired },
    });
  });

  it('an unknown token is a 404', async () => {
    const unknown = 'A'.repeat(43);
    expect(await visit('GET', `/api/sharing/${unknown}`)).toMatchObject({
      status: 404,
      body: { message: sharingMessages.unknownLink },
    });
    expect(await visit('POST', `/api/sharing/${unknown}/download`, { path: 'q1/report.csv' })).toMatchObject({
      status: 404,
    });
  });

  it("a share of another organisation is just a link: the owner's list never shows it", async () => {
    const store = s3rverStore(s3rver.endpoint);
    await store.write(BUCKET, 'eve/notes.txt', Buffer.from('eve'));
    await store.close();
    const theirs = await call('POST', '/api/transfers/share_files_by_email', stranger.token, {
      files: [fileOf('eve/notes.txt', strangerAccountId)],
      recipients: ['frank@example.com'],
    });
    expect(theirs.status).toBe(200);
    const ours = (await call('GET', '/api/shares', owner.token)).body as ShareListAnswer;
    expect(ours.items.every((s) => s.files.every((f) => f.cloud_account_id === accountId))).toBe(true);
    const theirList = (await call('GET', '/api/shares', stranger.token)).body as ShareListAnswer;
    expect(theirList.total).toBe(1);
    expect(await call('DELETE', `/api/shares/${theirList.items[0]?.id}`, owner.token)).toMatchObject({
      status: 404,
    });
  });
});

describe('bad input answers 400 in clear words', () => {
  it.each([
    ['no recipient', { recipients: [] }, sharingMessages.recipientsRequired],
    ['a broken address', { recipients: ['carol@'] }, sharingMessages.recipientInvalid],
    ['no file', { files: [] }, sharingMessages.filesRequired],
    ['an expiry past a year', { expiration: 400 * 86_400 }, sharingMessages.expirationRange],
    [
      'a public acl',
      { files: [{ ...fileOf('q1/report.csv'), acl: 'public-read' }] },
      sharingMessages.aclPrivate,
    ],
  ])('%s', async (_, override, message) => {
    const res = await shareByEmail({
      files: [fileOf('q1/report.csv')],
      recipients: ['x@example.com'],
      ...override,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message });
  });

  it('files of two accounts, or a file that does not exist', async () => {
    const twoAccounts = await shareByEmail({
      files: [fileOf('q1/report.csv'), fileOf('q1/report.csv', strangerAccountId)],
      recipients: ['x@example.com'],
    });
    expect(twoAccounts).toMatchObject({ status: 400, body: { message: sharingMessages.oneAccount } });
    const missing = await shareByEmail({ files: [fileOf('q1/nope.csv')], recipients: ['x@example.com'] });
    expect(missing).toMatchObject({
      status: 400,
      body: { message: 'q1/nope.csv was not found in reports.' },
    });
  });
});

describe('sharing to a chat channel through the incoming webhook (local HTTP sink standing in for Slack)', () => {
  const chatBody = () => ({ files: [fileOf('q1/report.csv')], channel: '#media-team' });

  it('without a configured webhook, says how to set one up', async () => {
    expect(await call('GET', '/api/transfers/slack_channels', member.token)).toMatchObject({
      status: 200,
      body: { channels: [] },
    });
    expect(await call('POST', '/api/transfers/share_files_by_chat', owner.token, chatBody())).toMatchObject({
      status: 400,
      body: { message: sharingMessages.noChatChannel },
    });
  });

  it('only an Owner or Admin sets the webhook, and its URL is never echoed back in full', async () => {
    const body = { url: chatSinkUrl, channel_name: '#media-team' };
    expect(await call('PUT', '/api/organizations/_me/chat_webhook', member.token, body)).toMatchObject({
      status: 403,
    });
    expect(
      await call('PUT', '/api/organizations/_me/chat_webhook', owner.token, {
        url: 'ftp://x',
        channel_name: 'a',
      }),
    ).toMatchObject({ status: 400, body: { message: sharingMessages.webhookUrlInvalid } });
    const saved = await call('PUT', '/api/organizations/_me/chat_webhook', owner.token, body);
    expect(saved).toMatchObject({ status: 200, body: { configured: true, channel_name: 'media-team' } });
    expect(saved.raw).not.toContain('secretpart');
    expect((saved.body as { url_masked: string }).url_masked).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/••••1234$/,
    );
    const seen = await call('GET', '/api/organizations/_me/chat_webhook', member.token);
    expect(seen.raw).not.toContain('secretpart');
    expect(await call('GET', '/api/transfers/slack_channels', member.token)).toMatchObject({
      body: { channels: [{ name: 'media-team' }] },
    });
    const sealed = await server.db.pool.query<{ url_sealed: string }>('select url_sealed from chat_webhooks');
    expect(sealed.rows[0]?.url_sealed).not.toContain('secretpart');
  });

  it('posts {text} with the link to the hook; the link opens', async () => {
    const res = await call('POST', '/api/transfers/share_files_by_chat', member.token, chatBody());
    expect(res).toMatchObject({ status: 200, body: { message: sharingMessages.shared } });
    expect(chatPosts).toHaveLength(1);
    expect(chatPosts[0]?.contentType).toBe('application/json');
    expect(chatPosts[0]?.url).toBe('/services/T000/B000/secretpart1234');
    const text = chatPosts[0]?.body.text ?? '';
    expect(text).toContain('Bob Test shared 1 file: report.csv');
    const link = /http:\/\/cumulo\.test\/sharing\/([\w-]{43})/.exec(text)?.[1];
    expect(await visit('GET', `/api/sharing/${link}`)).toMatchObject({ status: 200 });
    const list = (await call('GET', '/api/shares', owner.token)).body as ShareListAnswer;
    expect(list.items[0]).toMatchObject({
      channel: 'chat',
      recipients: ['media-team'],
      created_by: 'Bob Test',
    });
  });

  it("the hook's refusal is reported and leaves no link behind; an unknown channel is refused", async () => {
    const before = ((await call('GET', '/api/shares', owner.token)).body as ShareListAnswer).total;
    chatStatus = 404;
    expect(await call('POST', '/api/transfers/share_files_by_chat', owner.token, chatBody())).toMatchObject({
      status: 502,
      body: { message: chatRefused(404) },
    });
    chatStatus = 200;
    expect(((await call('GET', '/api/shares', owner.token)).body as ShareListAnswer).total).toBe(before);
    expect(
      await call('POST', '/api/transfers/share_files_by_chat', owner.token, {
        ...chatBody(),
        channel: 'general',
      }),
    ).toMatchObject({ status: 400, body: { message: sharingMessages.unknownChannel } });
  });

  it('refuses a webhook on an address the policy does not allow, and never follows a redirect to one', async () => {
    const refused = await startRefusedListener();
    try {
      for (const url of [
        `http://${REFUSED_HOST}:${refused.port}/services/T000`,
        `http://0x7f000002:${refused.port}/services/T000`,
        `https://${REFUSED_HOST}:${refused.port}/services/T000`,
        `https://[::ffff:127.0.0.2]:${refused.port}/services/T000`,
        // Plain http is refused on any host the operator did not list (checked before any DNS lookup).
        'http://hooks.example.com/services/T000',
      ]) {
        const res = await call('PUT', '/api/organizations/_me/chat_webhook', owner.token, {
          url,
          channel_name: 'media-team',
        });
        expect({ url, status: res.status, body: res.body }).toMatchObject({
          url,
          status: 400,
          body: { message: sharingMessages.webhookUrlNotAllowed },
        });
      }
      // The saved hook (the allowed sink) is unchanged, and answers with a redirect to the refused address.
      const posted = chatPosts.length;
      chatStatus = 302;
      chatLocation = `http://${REFUSED_HOST}:${refused.port}/services/T000`;
      expect(await call('POST', '/api/transfers/share_files_by_chat', owner.token, chatBody())).toMatchObject(
        {
          status: 502,
          body: { message: chatRefused(302) },
        },
      );
      expect(chatPosts).toHaveLength(posted + 1);
      expect(refused.connections()).toBe(0);
    } finally {
      chatStatus = 200;
      await refused.stop();
    }
  });

  it('removing the webhook turns chat sharing off again', async () => {
    expect(await call('DELETE', '/api/organizations/_me/chat_webhook', member.token)).toMatchObject({
      status: 403,
    });
    expect(await call('DELETE', '/api/organizations/_me/chat_webhook', owner.token)).toMatchObject({
      status: 200,
      body: { message: sharingMessages.chatWebhookRemoved },
    });
    expect(await call('GET', '/api/organizations/_me/chat_webhook', owner.token)).toMatchObject({
      body: { configured: false, url_masked: null },
    });
  });
});

describe('secrets', () => {
  it('no answer carries a token hash, a password hash or the webhook URL', async () => {
    const hashes = await server.db.pool.query<{ token_hash: string }>('select token_hash from shares');
    expect(hashes.rows.length).toBeGreaterThan(2);
    const all = answers.join('\n');
    for (const { token_hash } of hashes.rows) expect(all).not.toContain(token_hash);
    expect(all).not.toMatch(/argon2/);
    expect(all).not.toContain('secretpart');
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_KEY, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import { linkToken, s3rverStore, startTestServer, type TestServer } from '../test/harness.ts';

/**
 * A user's whole journey through the real app, s3rver, the SMTP sink and PostgreSQL, with every log line of the
 * web role captured at debug level; then the whole log is searched for each secret the journey used.
 */
let server: TestServer;
let s3rver: TestStoreServer;
const logLines: string[] = [];

const PASSWORD = 'LogSecret#Pass1';
const NEW_PASSWORD = 'LogSecret#Pass2';
const SECRET_KEY = 'sEcReTkEy+For/LogTest9f8e7d6c5b4a';
const SHARE_PASSWORD = 'share-pass-5x9q';
const NUL_QUERY_SECRET = 'NulQuery#Secret7';
const QUERY_SECRET = 'bound-value-secret-3m8p';
const email = `log.redaction.${Date.now()}@example.com`;

async function call(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, token?: string) {
  const res = await server.app.inject({
    method,
    url,
    payload: body === undefined ? undefined : (body as object),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.statusCode, body: res.body ? (res.json() as Record<string, unknown>) : {} };
}

const requestToken = async () => String((await call('POST', '/api/authentication/request_token')).body.token);

beforeAll(async () => {
  s3rver = await startS3rver();
  server = await startTestServer({}, logLines);
  const store = s3rverStore(s3rver.endpoint, { provider: 'genericS3' });
  await store.createBucket('logs');
  await store.write('logs', 'report.csv', Buffer.from('a,b\n1,2\n'));
  await store.close();
});
afterAll(async () => {
  await server?.stop();
  await s3rver?.stop();
});

describe('log redaction through a whole journey (real app, s3rver, SMTP sink, PostgreSQL)', () => {
  it('logs none of the passwords, hashes, keys, tokens or sealed credentials the journey used', async () => {
    const secrets: string[] = [PASSWORD, NEW_PASSWORD, SECRET_KEY, SHARE_PASSWORD, '$argon2'];

    // Sign up, verify by the e-mailed link (opened as the browser would), sign in.
    expect(
      (
        await call('POST', '/api/users', {
          email,
          password: PASSWORD,
          first_name: 'Lou',
          last_name: 'Log',
          company: 'Logs Ltd',
        })
      ).status,
    ).toBe(201);
    const verifyMail = await server.mail.waitFor(email, 'Verify your e-mail');
    const verification = linkToken(verifyMail, /http:\/\/cumulo\.test\/verify\/([\w-]+)/);
    secrets.push(verification);
    await call('GET', `/verify/${verification}`);
    expect((await call('PUT', '/api/verify_user', { verification_token: verification })).status).toBe(200);
    const login = await call('POST', '/api/authentication/Login', {
      requestToken: await requestToken(),
      username: email,
      password: PASSWORD,
    });
    expect(login.status).toBe(200);
    const jwt = String(login.body.jwtToken);
    secrets.push(jwt);

    // A cloud account with a secret key (s3rver checks only the access key id).
    const account = await call(
      'POST',
      '/api/cloudaccount/insert',
      {
        cloudType: 8,
        name: 'Logs S3',
        accessKey: S3RVER_KEY,
        secretKey: SECRET_KEY,
        serviceUrl: s3rver.endpoint,
      },
      jwt,
    );
    expect(account.status).toBe(201);
    const sealed = await server.db.pool.query<{ credentials: string }>(
      'select credentials from cloud_accounts where id = $1',
      [account.body.id],
    );
    secrets.push(String(sealed.rows[0]?.credentials));

    // A password-protected share link, opened and downloaded by its token.
    const recipient = `log.recipient.${Date.now()}@example.com`;
    const shared = await call(
      'POST',
      '/api/transfers/share_files_by_email',
      {
        files: [
          {
            name: 'report.csv',
            size: 1,
            acl: 'private',
            bucket_name: 'logs',
            cloud_account_id: account.body.id,
          },
        ],
        recipients: [recipient],
        password: SHARE_PASSWORD,
      },
      jwt,
    );
    expect(shared.status).toBe(200);
    const shareMail = await server.mail.waitFor(recipient, 'shared 1 file with you');
    const shareToken = linkToken(shareMail, /http:\/\/cumulo\.test\/sharing\/([\w-]{43})/);
    secrets.push(shareToken);
    await call('GET', `/sharing/${shareToken}`);
    expect((await call('GET', `/api/sharing/${shareToken}`)).status).toBe(200);
    const download = await call('POST', `/api/sharing/${shareToken}/download`, {
      path: 'report.csv',
      password: SHARE_PASSWORD,
    });
    expect(download.status).toBe(200);
    const signature = new URL(String(download.body.url)).searchParams.get('X-Amz-Signature');
    if (signature) secrets.push(signature);

    // Forgot password: the reset link is opened, then used.
    await call('POST', '/api/authentication/forgot_password', {
      username: email,
      requestToken: await requestToken(),
    });
    const resetMail = await server.mail.waitFor(email, 'Reset your Cumulo password');
    const resetToken = linkToken(resetMail, /http:\/\/cumulo\.test\/resetpassword\/([\w-]+)/);
    secrets.push(resetToken);
    await call('GET', `/resetpassword/${resetToken}`);
    await call('GET', `/api/user/signupinfo?token=${resetToken}`);
    expect(
      (
        await call('POST', '/api/authentication/reset_password', {
          password: NEW_PASSWORD,
          resetToken,
          requestToken: await requestToken(),
        })
      ).status,
    ).toBe(200);
    const hash = await server.db.pool.query<{ password_hash: string }>(
      'select password_hash from users where email = $1',
      [email],
    );
    secrets.push(String(hash.rows[0]?.password_hash));

    // Failing queries with secret values bound: a NUL in a sign-up (PostgreSQL refuses it, unless the schema
    // already does), and a value PostgreSQL rejects, logged the way the error handler logs an unknown error.
    await call('POST', '/api/users', {
      email: `nul.${Date.now()}@example.com`,
      password: NUL_QUERY_SECRET,
      first_name: 'a\u0000b',
      last_name: 'Nul',
      company: 'Nul Ltd',
    });
    const failed = await server.db.orm
      .execute(sql`select ${QUERY_SECRET}::uuid`)
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    server.app.log.error({ err: failed }, 'unhandled error');
    secrets.push(NUL_QUERY_SECRET, QUERY_SECRET);

    const log = logLines.join('\n');
    expect(log).toContain('/api/sharing/***');
    expect(log).toContain('Failed query: select $1::uuid');
    for (const secret of secrets) expect(log, `the log contains ${secret}`).not.toContain(secret);
  });
});

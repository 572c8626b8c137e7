import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { PackageHandle } from '@cumulo/contract';
import type { RetryOptions } from '@cumulo/storage';
import type { Principal } from '../src/authz/principal.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openDb, runMigrations, type Db } from '../src/db/client.ts';
import { startBoss } from '../src/jobs/boss.ts';
import { registerJobs } from '../src/jobs/register.ts';
import { buildApp, type Services } from '../src/app.ts';
import { AzureObjectStore, S3ObjectStore } from '@cumulo/storage/adapters';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY } from '@cumulo/storage/testing';

export interface ReceivedMail {
  to: string[];
  subject: string;
  /** Decoded body (quoted-printable soft breaks and escapes undone). */
  body: string;
}

/** A real SMTP server on a free port that keeps what it receives (the SMTP sink of TESTING.md). */
export async function startSmtpSink() {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
          body: decodeQuotedPrintable(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Waits for a mail to `to` whose subject contains `subject`. */
    async waitFor(to: string, subject: string, timeoutMs = 10_000): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const mail = received.find((m) => m.to.includes(to) && m.subject.includes(subject));
        if (mail) return mail;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(
        `no mail "${subject}" to ${to} within ${timeoutMs} ms; got: ${received.map((m) => m.subject).join(', ')}`,
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type SmtpSink = Awaited<ReturnType<typeof startSmtpSink>>;

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Extracts the first link matching `pattern` (with one capture group) from a mail. */
export function linkToken(mail: ReceivedMail, pattern: RegExp): string {
  const match = pattern.exec(mail.body);
  if (!match?.[1]) throw new Error(`no link matching ${pattern} in mail "${mail.subject}"`);
  return match[1];
}

export interface TestServer {
  app: FastifyInstance;
  db: Db;
  services: Services;
  mail: SmtpSink;
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * The real web role against a fresh PostgreSQL database and a real SMTP sink, for `app.inject` tests.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  logLines?: string[],
  /** `jobs`: also the worker role, as `npm start` runs it (handlers registered, schedules and supervision on). */
  roles: { jobs?: boolean } = {},
): Promise<TestServer> {
  const adminUrl = new URL(inject('adminDatabaseUrl'));
  const dbName = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  const databaseUrl = Object.assign(new URL(adminUrl.toString()), { pathname: `/${dbName}` }).toString();

  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-test-data-'));
  const mail = await startSmtpSink();
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SMTP_URL: mail.url,
    PUBLIC_URL: 'http://cumulo.test',
    MASTER_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    // s3rver, Azurite, the SMTP sink and the tests' webhook sinks listen on 127.0.0.1 (the only address allowed).
    ALLOWED_PRIVATE_ENDPOINTS: '127.0.0.1',
    ...env,
  });
  const log = createLogger(
    logLines ? 'debug' : config.LOG_LEVEL,
    logLines ? { write: (line: string) => void logLines.push(line) } : undefined,
  );
  const db = openDb(databaseUrl, { max: 5 });
  await runMigrations(db);
  const boss = await startBoss({ connectionString: databaseUrl, schedule: roles.jobs === true }, log);
  const masterKey = Buffer.from(config.MASTER_KEY ?? '', 'base64');
  const { app, services } = await buildApp({ config, db, boss, log, masterKey, databaseUrl, webDist: null });
  if (roles.jobs) await registerJobs(boss, services, log, true);
  await app.ready();
  return {
    app,
    db,
    services,
    mail,
    databaseUrl,
    async stop() {
      await app.close();
      services.mail.close();
      await boss.stop({ graceful: false });
      await db.close();
      await mail.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A verified member signed in through the service: a new organisation's Owner, or an invitee with `roleId`. */
export async function signedInMember(
  server: TestServer,
  name: string,
  invitedBy?: { principal: Principal; roleId: number },
) {
  const email = `${name}.${randomBytes(4).toString('hex')}@example.com`;
  const password = 'Sunny#day7';
  const client = { ip: '127.0.0.1' };
  if (invitedBy) {
    const token = await server.services.identity.invite(invitedBy.principal, {
      email,
      firstName: name,
      lastName: 'Test',
      roleId: invitedBy.roleId,
    });
    await server.services.identity.completeInvitation({ token, password, firstname: name, lastname: 'Test' });
  } else {
    await server.services.identity.signup({ email, password, first_name: name, last_name: 'Test' }, client);
    await server.db.pool.query('update users set email_verified_at = now() where email = $1', [email]);
  }
  const login = await server.services.identity.login(email, password, client);
  if (login.challenge !== 0) throw new Error('unexpected MFA challenge');
  const principal = await server.services.auth.verifyBearer(login.jwtToken);
  if (!principal) throw new Error('token did not verify');
  return { email, token: login.jwtToken, principal };
}

/** A card on file, written as the billing service keeps one (brand, last 4, expiry): what a purchase needs. */
export async function putCardOnFile(server: TestServer, organizationId: string) {
  await server.db.pool.query(
    `insert into payment_profiles (organization_id, gateway, gateway_ref, first_name, last_name, card_type, last4,
       expiration_month, expiration_year, is_default)
     values ($1, 'manual', 'manual_test', 'Ada', 'Test', 'visa', '1111', 12, 2099, true)`,
    [organizationId],
  );
}

/** Gives the member's organisation a paid package as a customer buys it: a card on file, then the subscription. */
export async function buyPackage(
  server: TestServer,
  member: { token: string; principal: Principal },
  handle: PackageHandle,
) {
  await putCardOnFile(server, member.principal.organizationId);
  const res = await callApi(server, 'POST', '/api/billing/subscriptions/', member.token, {
    product_handle: handle,
  });
  if (res.status !== 201) throw new Error(`buying ${handle} answered ${res.status}: ${res.raw}`);
}

/** One API call through Fastify's inject, with the bearer; the body parsed when there is one. */
export async function callApi(
  server: TestServer,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token: string,
  body?: unknown,
) {
  const res = await server.app.inject({
    method,
    url,
    payload: body === undefined ? undefined : (body as object),
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, body: res.body ? (res.json() as unknown) : undefined, raw: res.body };
}

/** Connects an account through the API as a user does; answers its id (a refusal throws with the answer). */
export async function connectAccount(server: TestServer, token: string, body: object): Promise<string> {
  const res = await callApi(server, 'POST', '/api/cloudaccount/insert', token, body);
  if (res.status !== 201) throw new Error(`connecting an account answered ${res.status}: ${res.raw}`);
  return (res.body as { id: string }).id;
}

/** An AWS account named `name` on the s3rver that PROVIDER_ENDPOINTS points `aws` at. */
export const connectS3rverAccount = (server: TestServer, token: string, name: string) =>
  connectAccount(server, token, { cloudType: 1, name, accessKey: S3RVER_KEY, secretKey: S3RVER_KEY });

/**
 * The test's own client of s3rver (to seed and read back objects), with the keys every test account uses.
 * `provider: 'genericS3'` for the specs whose accounts are generic S3 ones; `retry` as the adapter takes it, for
 * the engine tests that hand this store to the code under test.
 */
export function s3rverStore(
  endpoint: string,
  { provider = 'aws', retry }: { provider?: 'aws' | 'genericS3'; retry?: RetryOptions } = {},
): S3ObjectStore {
  return new S3ObjectStore(
    { provider, accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY, endpoint, region: 'us-east-1' },
    retry,
  );
}

/** The test's own client of Azurite's well-known account, as s3rverStore is of s3rver. */
export function azuriteStore(endpoint: string, { retry }: { retry?: RetryOptions } = {}): AzureObjectStore {
  return new AzureObjectStore(
    { provider: 'azure', accountName: AZURITE_ACCOUNT, accountKey: AZURITE_KEY, endpoint },
    retry,
  );
}

/**
 * The two lab accounts most integration tests need, connected through the API as a user connects them — aws
 * (s3rver) and azure (Azurite), which the server reaches through PROVIDER_ENDPOINTS — plus direct stores on the
 * same servers for arranging and checking objects behind the product's back.
 */
export async function connectLabAccounts(
  server: TestServer,
  token: string,
  endpoints: { s3rver: string; azurite: string },
  names: { aws: string; azure: string } = { aws: 'Lab AWS', azure: 'Lab Blob' },
) {
  const awsId = await connectS3rverAccount(server, token, names.aws);
  const azureId = await connectAccount(server, token, {
    cloudType: 4,
    name: names.azure,
    accessKey: AZURITE_ACCOUNT,
    secretKey: AZURITE_KEY,
  });
  const s3 = s3rverStore(endpoints.s3rver);
  const blob = azuriteStore(endpoints.azurite);
  return { awsId, azureId, s3, blob };
}

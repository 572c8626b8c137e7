import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS, type TransferBatch, type TransferList } from '@cumulo/contract';
import { startS3rver, type S3rverServer } from '@cumulo/storage/testing';
import { loadConfig } from '../../config.ts';
import { createLogger } from '../../logger.ts';
import { openDb, runMigrations } from '../client.ts';
import { runningEmbeddedUrl, startEmbeddedPostgres } from '../embedded-postgres.ts';
import { startBoss } from '../../jobs/boss.ts';
import { registerJobs } from '../../jobs/register.ts';
import { buildApp } from '../../app.ts';
import {
  callApi,
  connectS3rverAccount,
  s3rverStore,
  signedInMember,
  startSmtpSink,
  type TestServer,
} from '../../../test/harness.ts';
import { serverNodeFlags } from '../../../../../scripts/build-server.mjs';
import { freePort } from '../../../test/free-port.ts';

/**
 * THE BACKUP/RESTORE TEST (issue 28 §6): an installation on the embedded PostgreSQL of its DATA_DIR gets an
 * organisation, a signed-up user, a cloud account (credentials sealed with the master key) and a finished transfer;
 * `dist/main.js backup` (the built CLI, as an operator runs it) writes the file; the data directory's cluster is
 * wiped; `dist/main.js restore` brings it back; `dist/main.js start` serves it, and the user signs in with their
 * password and sees the account (its sealed keys still open: the bucket list is read from s3rver) and the history.
 * Real s3rver, real processes, real embedded PostgreSQL.
 */
const mainJs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/main.js');
const masterKey = randomBytes(32).toString('base64');
// A free port of 8420–8449 (the built `start` role serves on a port it is told).
let PORT = 8420;
let s3rver: S3rverServer;
let dataDir: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    MASTER_KEY: masterKey,
    EMBEDDED_PG_PORT: '0',
    PORT: String(PORT),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${PORT}`,
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }),
    ALLOWED_PRIVATE_ENDPOINTS: '127.0.0.1',
    WEB_DIST: path.join(dataDir, 'no-web'),
    LOG_LEVEL: 'warn',
  };
}

/** One role of the built server, to its end. */
function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...serverNodeFlags, mainJs, ...args], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The web role of this process on the DATA_DIR's embedded database: to arrange the installation as users would. */
async function serveInProcess() {
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, 'postgres'),
    port: 0,
    database: 'cumulo',
    log: { info: () => undefined, warn: () => undefined, debug: () => undefined },
  });
  const mail = await startSmtpSink();
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: pg.url,
    SMTP_URL: mail.url,
    PUBLIC_URL: 'http://cumulo.test',
    MASTER_KEY: masterKey,
    LOG_LEVEL: 'silent',
    ALLOWED_PRIVATE_ENDPOINTS: '127.0.0.1',
    PROVIDER_ENDPOINTS: JSON.stringify({ aws: s3rver.endpoint }),
  });
  const log = createLogger('silent');
  const db = openDb(pg.url, { max: 5 });
  await runMigrations(db);
  const boss = await startBoss({ connectionString: pg.url, schedule: true }, log);
  const { app, services } = await buildApp({
    config,
    db,
    boss,
    log,
    masterKey: Buffer.from(masterKey, 'base64'),
    databaseUrl: pg.url,
    webDist: null,
  });
  await registerJobs(boss, services, log, true);
  await app.ready();
  const server: TestServer = {
    app,
    db,
    services,
    mail,
    databaseUrl: pg.url,
    async stop() {
      await app.close();
      services.mail.close();
      await services.stores.closeAll();
      await boss.stop({ graceful: false });
      await db.close();
      await mail.close();
      await pg.stop();
    },
  };
  return server;
}

async function http(method: string, url: string, token?: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${PORT}/api${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

beforeAll(async () => {
  PORT = await freePort(8420, 8449);
  s3rver = await startS3rver();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-backup-'));
  // As root, the embedded PostgreSQL runs as `postgres`, which must reach the cluster's directory.
  await fs.chmod(dataDir, 0o755);
});
afterAll(async () => {
  await s3rver?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('backup and restore through the CLI', () => {
  it('backs up, survives a wiped data directory, and the user signs in to their accounts and history', async () => {
    // 1. An installation in use.
    const server = await serveInProcess();
    let email: string;
    let accountId: string;
    let batchId: string;
    try {
      const owner = await signedInMember(server, 'backup');
      email = owner.email;
      await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
        owner.principal.organizationId,
      ]);
      const s3 = s3rverStore(s3rver.endpoint);
      await s3.createBucket('bk-src');
      await s3.createBucket('bk-dst');
      await s3.write('bk-src', 'a.txt', randomBytes(2000), { size: 2000 });
      await s3.write('bk-src', 'b.txt', randomBytes(3000), { size: 3000 });
      await s3.close();
      accountId = await connectS3rverAccount(server, owner.token, 'Lab S3');
      const start = await callApi(server, 'POST', '/api/transfer/transfer', owner.token, {
        sourceCloudAccountId: accountId,
        sourceBucket: 'bk-src',
        destinationCloudAccountId: accountId,
        destinationBucket: 'bk-dst',
      });
      expect(start.status).toBe(200);
      batchId = (start.body as { batch: TransferBatch }).batch.id;
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (status !== BATCH_STATUS.completed && Date.now() < deadline) {
        const list = (await callApi(server, 'GET', '/api/transfer/get_all?type=1', owner.token))
          .body as TransferList;
        status = list.items.find((b) => b.id === batchId)?.transferStatus ?? 0;
        if (status !== BATCH_STATUS.completed) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(BATCH_STATUS.completed);
    } finally {
      await server.stop();
    }

    // 2. The backup, by the CLI; a folder that does not exist is refused before any work.
    const file = path.join(dataDir, 'cumulo.backup');
    const nowhere = await cli('backup', path.join(dataDir, 'missing', 'x.backup'));
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('Cannot write the backup to');
    expect(nowhere.stderr).toContain('the folder does not exist');

    const backup = await cli('backup', file);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`Backup written to ${file}`);
    expect(backup.stdout).toContain('Keep MASTER_KEY');
    expect((await fs.readdir(dataDir)).filter((name) => name.endsWith('.partial'))).toEqual([]);
    const bytes = await fs.readFile(file);
    const content = gunzipSync(bytes).toString('latin1');
    expect(content).toContain(email);
    expect(content).not.toContain(masterKey);

    // 3. The data directory's database is gone.
    await fs.rm(path.join(dataDir, 'postgres'), { recursive: true, force: true });
    await fs.rm(path.join(dataDir, 'postgres.password'), { force: true });

    // 4. A cut file fails in words and restores nothing: the whole file then restores without --force.
    const cut = path.join(dataDir, 'cut.backup');
    await fs.writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const broken = await cli('restore', cut);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`The backup ${cut} cannot be restored: it is incomplete or damaged`);
    expect(broken.stderr).toContain('Nothing was restored.');

    const restore = await cli('restore', file);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toContain('Restored');
    expect(restore.stdout).toContain('MASTER_KEY');

    const again = await cli('restore', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('The database already holds Cumulo data');

    // 5. Cumulo on the restored database: the user's password, account and history.
    const started = spawn(process.execPath, [...serverNodeFlags, mainJs, 'start'], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const readyBy = Date.now() + 60_000;
      let ready = false;
      while (!ready && Date.now() < readyBy && started.exitCode === null) {
        ready = await fetch(`http://127.0.0.1:${PORT}/api/health`)
          .then((res) => res.status < 500)
          .catch(() => false);
        if (!ready) await new Promise((r) => setTimeout(r, 200));
      }
      expect(ready, output).toBe(true);

      const requestToken = (await http('POST', '/authentication/request_token')).body as { token: string };
      const login = await http('POST', '/authentication/Login', undefined, {
        requestToken: requestToken.token,
        username: email,
        password: 'Sunny#day7',
      });
      expect(login.status, JSON.stringify(login.body)).toBe(200);
      const token = (login.body as { jwtToken: string }).jwtToken;

      const accounts = (await http('GET', '/cloudaccount/get_all', token)).body as Array<{
        id: string;
        name: string;
      }>;
      expect(accounts.map((a) => [a.id, a.name])).toEqual([[accountId, 'Lab S3']]);
      // The sealed keys open with the same master key: the server lists the account's buckets at s3rver.
      const buckets = await http('POST', '/cloudaccount/list_buckets', token, { id: accountId });
      expect(buckets.status, JSON.stringify(buckets.body)).toBe(200);
      expect((buckets.body as Array<{ name: string }>).map((b) => b.name)).toEqual(
        expect.arrayContaining(['bk-src', 'bk-dst']),
      );

      const history = (await http('GET', '/transfer/get_all?type=1', token)).body as TransferList;
      expect(history.items.find((b) => b.id === batchId)).toMatchObject({
        transferStatus: BATCH_STATUS.completed,
        transferred: 2,
        transferredSize: 5000,
      });

      // New rows continue after the restored ids: the sequences were moved past them.
      const url = runningEmbeddedUrl(path.join(dataDir, 'postgres'), 'cumulo');
      expect(url).toBeDefined();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ next: string; max: string }>(
          `select nextval('transfer_items_id_seq') as next, (select max(id) from transfer_items) as max`,
        );
        expect(Number(rows[0]?.next)).toBeGreaterThan(Number(rows[0]?.max));
      } finally {
        await client.end();
      }

      // A backup while Cumulo runs connects to its embedded database instead of stopping it.
      const online = await cli('backup', path.join(dataDir, 'online.backup'));
      expect(online.code, online.stderr).toBe(0);
      expect((await http('GET', '/cloudaccount/get_all', token)).status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => started.once('exit', resolve));
      if (started.exitCode === null) started.kill('SIGTERM');
      await exited;
    }
  }, 300_000);
});

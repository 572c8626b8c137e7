import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';
import { serverNodeFlags } from '../../../../../scripts/build-server.mjs';

/**
 * Backup and restore against an external PostgreSQL (`DATABASE_URL`; here databases of the test run's server):
 * restore into an empty database, refusal and `--force` on one in use, a backup of another release, a file that is
 * not a backup. The built CLI in its own process, as an operator runs it.
 */
const mainJs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/main.js');
let server: TestServer;
let dir: string;
const created: string[] = [];

async function emptyDatabase(): Promise<string> {
  const adminUrl = new URL(inject('adminDatabaseUrl'));
  const name = `restore_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  created.push(name);
  return Object.assign(new URL(adminUrl.toString()), { pathname: `/${name}` }).toString();
}

function cli(
  databaseUrl: string,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...serverNodeFlags, mainJs, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dir, LOG_LEVEL: 'warn' },
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

async function usersOf(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ email: string }>('select email from users order by email');
    return rows.map((row) => row.email);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  server = await startTestServer();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-backup-ext-'));
});
afterAll(async () => {
  await server?.stop();
  await fs.rm(dir, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await admin.connect();
  for (const name of created) await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

describe('backup and restore with DATABASE_URL', () => {
  it('restores into an empty database, refuses one in use unless --force, and refuses other releases', async () => {
    const first = await signedInMember(server, 'ext-a');
    const file = path.join(dir, 'a.backup');
    const backup = await cli(server.databaseUrl, 'backup', file);
    expect(backup.code, backup.stderr).toBe(0);

    const target = await emptyDatabase();
    const restore = await cli(target, 'restore', file);
    expect(restore.code, restore.stderr).toBe(0);
    expect(await usersOf(target)).toEqual([first.email]);

    // The source database gained a user since: refused without --force, replaced with it.
    const second = await signedInMember(server, 'ext-b');
    const refused = await cli(server.databaseUrl, 'restore', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already holds Cumulo data');
    expect(refused.stderr).toContain('--force');
    expect((await usersOf(server.databaseUrl)).sort()).toEqual([first.email, second.email].sort());
    const forced = await cli(server.databaseUrl, 'restore', file, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(await usersOf(server.databaseUrl)).toEqual([first.email]);

    // Cut in the middle of a large table's rows: the COPY under way is failed, the transaction rolled back.
    await server.db.pool.query(
      `with b as (
         insert into transfer_batches (organization_id, operation, source_bucket, destination_bucket, status, phase)
         values ($1, 'copy', 'src', 'dst', 4, 'finished') returning id)
       insert into transfer_items (batch_id, source_key, destination_key, size, status)
       select b.id, md5(random()::text) || g, md5(random()::text), g, 'done' from b, generate_series(1, 30000) g`,
      [first.principal.organizationId],
    );
    const big = path.join(dir, 'big.backup');
    expect((await cli(server.databaseUrl, 'backup', big)).code).toBe(0);
    const bigBytes = await fs.readFile(big);
    const half = path.join(dir, 'half.backup');
    await fs.writeFile(half, bigBytes.subarray(0, Math.floor(bigBytes.length / 2)));
    const halfTarget = await emptyDatabase();
    const cut = await cli(halfTarget, 'restore', half);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain('it is incomplete or damaged');
    expect(cut.stderr).toContain('Nothing was restored.');
    expect(await usersOf(halfTarget)).toEqual([]);
    const items = new pg.Client({ connectionString: halfTarget });
    await items.connect();
    expect((await items.query('select count(*)::int as n from transfer_items')).rows).toEqual([{ n: 0 }]);
    await items.end();

    // A backup whose database had one more migration than this release: refused, naming it; nothing restored.
    const newer = await emptyDatabase();
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    await client.query(
      `insert into drizzle.__drizzle_migrations (hash, created_at) values ('future', 4102444800000)`,
    );
    await client.end();
    const fromNewer = path.join(dir, 'newer.backup');
    expect((await cli(server.databaseUrl, 'backup', fromNewer)).code).toBe(0);
    const mismatch = await cli(newer, 'restore', fromNewer);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain(
      'This backup was made by a Cumulo release whose database is at migration unknown',
    );
    expect(mismatch.stderr).toContain('Restore it with the release that made it');
    expect(await usersOf(newer)).toEqual([]);

    // Not a backup at all.
    const stranger = path.join(dir, 'notes.gz');
    await fs.writeFile(stranger, gzipSync(Buffer.from('hello')));
    const notBackup = await cli(newer, 'restore', stranger);
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toContain('it is not a Cumulo backup');
  }, 180_000);
});

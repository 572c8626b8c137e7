// The measures of bench/worker-idle, shared with bench/transfer's table (issue 29's "idle worker" row): the
// resident memory of the worker role as deployed (`node <serverNodeFlags> apps/server/dist/main.js worker`,
// scripts/build-server.mjs) a few seconds after its handlers are registered, and the floor beside it: a Node
// process with the same flags that imports only the npm packages every worker loads at start (the database driver
// and ORM, the job queue, the config validation, the logger and the metrics registry), built by the server's own
// build so that each loads as in the worker, and does with them what every idle worker does: a pool connected to
// its database, pg-boss started and polling as many queues as the worker works. No worker built on these packages
// can sit below that floor.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { QUEUES } from '@cumulo/server';
import { repoRoot } from '../inventory/s3rver-process.ts';
import { bundleServer, serverEntry, serverNodeFlags } from '../../scripts/build-server.mjs';

export const IDLE_GOAL_MB = 80;
/** The npm packages a worker cannot start without (db/client.ts, jobs/boss.ts, config.ts, logger.ts, metrics). */
export const WORKER_PACKAGES = [
  'pg',
  'pg-boss',
  'drizzle-orm',
  'drizzle-orm/pg-core',
  'drizzle-orm/node-postgres',
  'zod',
  'pino',
  'prom-client',
];

export interface Reading {
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
export function startRole(role: string, env: NodeJS.ProcessEnv, ready: string | null) {
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

/**
 * One idle worker per round, each a fresh process against a migrated database (`env` holds DATABASE_URL and the
 * rest of the deployment's settings), read `idleMs` after its handlers are registered.
 */
export async function idleWorkerReadings(
  env: NodeJS.ProcessEnv,
  rounds: number,
  idleMs: number,
): Promise<Reading[]> {
  const readings: Reading[] = [];
  for (let round = 0; round < rounds; round++) {
    const begun = performance.now();
    const worker = startRole('worker', { ...env, LOG_LEVEL: 'info' }, 'job handlers registered');
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
  return readings;
}

/** What the floor does with its packages, as a worker's start does (db/client.ts, jobs/boss.ts). */
export const FLOOR_WORK = `a pool connected to the database, pg-boss started and polling ${Object.keys(QUEUES).length} queues`;

/**
 * The floor's program: the worker's packages and nothing else, built by the server's own build
 * (scripts/build-server.mjs), so that each package is loaded as the worker loads it: drizzle-orm compiled in, the
 * others imported from node_modules. Written under bench/.data, where Node finds the repository's node_modules.
 * Given a database, it connects and works its own queues (`floor.<n>`, empty) with the worker's pg-boss options.
 */
async function floorProgram(): Promise<string> {
  const dir = path.join(repoRoot, 'bench/.data/worker-idle-floor');
  fs.mkdirSync(dir, { recursive: true });
  const entry = path.join(dir, 'floor-entry.mjs');
  fs.writeFileSync(
    entry,
    [
      ...WORKER_PACKAGES.map((name, i) => `import * as p${i} from '${name}';`),
      // Kept reachable, so that the build drops none of them.
      `globalThis.floorPackages = [${WORKER_PACKAGES.map((_, i) => `p${i}`).join(', ')}];`,
      `const pg = p${WORKER_PACKAGES.indexOf('pg')}.default;`,
      `const { PgBoss } = p${WORKER_PACKAGES.indexOf('pg-boss')};`,
      `const { drizzle } = p${WORKER_PACKAGES.indexOf('drizzle-orm/node-postgres')};`,
      `const { sql } = p${WORKER_PACKAGES.indexOf('drizzle-orm')};`,
      `const [idleMs, databaseUrl, queues] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4])];`,
      `const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });`,
      `await drizzle(pool).execute(sql\`select 1\`);`,
      `const boss = new PgBoss({ connectionString: databaseUrl, schema: 'pgboss', schedule: true, supervise: true,`,
      `  max: 5, useListenNotify: true });`,
      `boss.on('error', (error) => console.error(error));`,
      `await boss.start();`,
      `for (let n = 0; n < queues; n++) {`,
      `  if (!(await boss.getQueue(\`floor.\${n}\`))) await boss.createQueue(\`floor.\${n}\`);`,
      `  await boss.work(\`floor.\${n}\`, async () => {});`,
      `}`,
      `const fs = await import('node:fs');`,
      `setTimeout(() => {`,
      `  process.stdout.write(fs.readFileSync('/proc/self/status', 'utf8'));`,
      `  process.exit(0);`,
      `}, idleMs);`,
    ].join('\n'),
  );
  const outdir = path.join(dir, 'dist');
  await bundleServer({ entryPoints: [{ in: entry, out: 'floor' }], outdir });
  return path.join(outdir, 'floor.js');
}

let floorBuilt: Promise<string> | null = null;

/**
 * The floor: the worker's packages alone, in a process with the worker's flags, connected to `databaseUrl` (a
 * migrated one) and polling as many queues as the worker, read after the same idle.
 */
async function floorReading(idleMs: number, databaseUrl: string): Promise<{ rssMb: number; hwmMb: number }> {
  floorBuilt ??= floorProgram();
  const program = await floorBuilt;
  const queues = String(Object.keys(QUEUES).length);
  const child = spawn(process.execPath, [...serverNodeFlags, program, String(idleMs), databaseUrl, queues], {
    cwd: path.join(repoRoot, 'apps/server'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let status = '';
  child.stdout.on('data', (chunk: Buffer) => (status += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the floor process exited (${code})`);
  return memoryIn(status);
}

export async function floorReadings(rounds: number, idleMs: number, databaseUrl: string) {
  const readings: Array<{ rssMb: number; hwmMb: number }> = [];
  for (let round = 0; round < rounds; round++) readings.push(await floorReading(idleMs, databaseUrl));
  return readings;
}

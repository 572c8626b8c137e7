// bench/worker-idle: the resident memory of a worker before its first copy (issue 29, goal: RSS ≤ 80 MB). The
// worker role as deployed (`node --max-semi-space-size=2 apps/server/dist/main.js worker`, scripts/build-server.mjs)
// against an embedded PostgreSQL migrated by `main.js migrate`; once it says its handlers are registered it is left
// idle for a few seconds (pg-boss polls, the schedules are installed), then VmRSS and VmHWM are read from
// /proc/<pid>/status. Three rounds, each a fresh process; the median is printed beside the goal.
//
// Beside it, the floor: a Node process with the same flags that imports only the npm packages every worker loads
// at start (the database driver and ORM, the job queue, the config validation, the logger and the metrics
// registry), loaded as the built server loads them, that does what every idle worker does with them (a pool
// connected to the same database, pg-boss started and polling as many queues as the worker), and idles as long.
// No worker built on these packages can sit below it; a goal under it is out of reach of any change to Cumulo's
// own modules, and the bench says so.
//
//   npm run worker-idle -w bench [-- --rounds 3 --idle 5]
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '@cumulo/server';
import { repoRoot } from '../inventory/s3rver-process.ts';
import { buildServerIfStale } from '../../scripts/build-server.mjs';
import { median } from '../shared/goal-table.ts';
import {
  IDLE_GOAL_MB as GOAL_MB,
  FLOOR_WORK,
  WORKER_PACKAGES,
  floorReadings,
  idleWorkerReadings,
  startRole,
} from './measure.ts';

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
    const readings = await idleWorkerReadings(env, rounds, idleMs);
    console.log(`\nidle worker, ${options.idle} s after its handlers are registered (${rounds} rounds)`);
    readings.forEach((reading, index) =>
      console.log(
        `  round ${index + 1}: RSS ${mb(reading.rssMb)}, peak RSS ${mb(reading.hwmMb)}, ready after ${(reading.readyMs / 1000).toFixed(1)} s`,
      ),
    );
    const rss = median(readings.map((reading) => reading.rssMb));
    const peak = median(readings.map((reading) => reading.hwmMb));
    const floors = await floorReadings(rounds, idleMs, pg.url);
    const floor = median(floors.map((reading) => reading.rssMb));
    console.log(
      `  median RSS ${mb(rss)} (goal ≤ ${GOAL_MB} MB: ${rss <= GOAL_MB ? 'met' : 'missed'}), median peak RSS ${mb(peak)}`,
    );
    console.log(
      `  floor: ${WORKER_PACKAGES.join(', ')} alone, ${FLOOR_WORK}: RSS ${floors.map((reading) => mb(reading.rssMb)).join(', ')}` +
        ` (median ${mb(floor)}); the worker's own modules add ${mb(rss - floor)}` +
        (floor > GOAL_MB ? `; the goal sits below this floor: bound ${mb(floor)}` : ''),
    );
  } finally {
    await pg.stop();
  }
}

await main();

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  loadConfig,
  createLogger,
  openDb,
  runMigrations,
  startEmbeddedPostgres,
  startBoss,
  buildApp,
  type Db,
  type Services,
} from '@cumulo/server';

/** Named, since the server package exports its services' type but not the modules it is made of. */
export interface BenchApp {
  app: Awaited<ReturnType<typeof buildApp>>['app'];
  services: Services;
  db: Db;
  close(): Promise<void>;
}

/**
 * The whole server in-process on a fresh embedded PostgreSQL in `dataDir` (emptied first), for benches that time
 * the server's own calls. The bench's organisation holds every package (BILLING_ENTITLE_ALL): the timed calls are
 * paid screens' calls. `env` adds settings (e.g. PROVIDER_ENDPOINTS). `close()` stops everything.
 */
export async function startBenchApp(dataDir: string, env: Record<string, string> = {}): Promise<BenchApp> {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const log = createLogger('warn');
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, 'postgres'),
    port: 0,
    database: 'cumulo',
    log: { info: () => {}, warn: (m) => log.warn(m), debug: () => {} },
  });
  const masterKey = randomBytes(32);
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: pg.url,
    MASTER_KEY: masterKey.toString('base64'),
    PUBLIC_URL: 'http://cumulo.bench',
    LOG_LEVEL: 'warn',
    BILLING_ENTITLE_ALL: 'true',
    ...env,
  });
  const db = openDb(pg.url, { max: 5 });
  await runMigrations(db);
  const boss = await startBoss({ connectionString: pg.url, schedule: false }, log);
  const { app, services } = await buildApp({
    config,
    db,
    boss,
    log,
    masterKey,
    databaseUrl: pg.url,
    webDist: null,
  });
  await app.ready();
  const close = async () => {
    await app.close();
    services.mail.close();
    await boss.stop({ graceful: false });
    await db.close();
    await pg.stop();
  };
  return { app, services, db, close };
}

/** The median of timings in ms. */
export const p50 = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};

/** Runs `work` `warmUp` times untimed, then `calls` times, and answers each timed call's ms. */
export async function timedCalls(
  work: () => Promise<unknown>,
  warmUp: number,
  calls: number,
): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times;
}

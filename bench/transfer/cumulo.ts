// Cumulo's side of bench/transfer: the product's own code end to end. An embedded PostgreSQL, the services as
// `npm start` builds them (accounts sealed and checked with a real call, batches started through
// TransfersService), and the worker role as its own OS process, run from the built server as deployed
// (`node apps/server/dist/main.js worker`, scripts/build-server.mjs), whose peak RSS is what the benchmark compares
// with rclone's.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BATCH_STATUS, INSERT_CLOUD_TYPE } from '@cumulo/contract';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import {
  loadConfig,
  createLogger,
  openDb,
  runMigrations,
  type Db,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  startBoss,
  buildServices,
  type Principal,
} from '@cumulo/server';
import { repoRoot } from '../inventory/s3rver-process.ts';
import { cpuMeter, cpuSecondsOf, cpuSecondsOfTree } from '../shared/proc-cpu.ts';
import { settleDisk } from '../shared/settle.ts';
import { signedInBenchMember } from '../shared/bench-member.ts';
import { buildServerIfStale, serverEntry, serverNodeFlags } from '../../scripts/build-server.mjs';

export interface WorkerSettings {
  /** Objects copied at once per job, and jobs per batch (TRANSFER_OBJECT_CONCURRENCY, TRANSFER_JOBS_PER_BATCH). */
  objectConcurrency: number;
  jobsPerBatch: number;
  /** More of the worker's environment (e.g. TRANSFER_BATCHES_PER_ORG). */
  env?: Record<string, string>;
}

export interface CumuloRun {
  seconds: number;
  peakRssMb: number;
  transferred: number;
  failed: number;
  /**
   * CPU seconds from the request to the batch's end: the worker process, PostgreSQL, the processes given as
   * `servers`, and the whole machine.
   */
  cpuSeconds: number;
  postgresCpuSeconds: number;
  serverCpuSeconds: number;
  machineCpuSeconds: number;
  /** Seconds from the request to the first item's copy starting, and from the last item's end to the batch's. */
  firstCopyAfter: number;
  finalizedAfterLast: number;
  /**
   * The batch's jobs that ran (pg-boss `transfers.batch` jobs started): TRANSFER_JOBS_PER_BATCH, plus any the
   * transfers sweep queued while they ran. Each copies TRANSFER_OBJECT_CONCURRENCY objects at once.
   */
  jobs: number;
  /** With statements counted (CumuloBench.start): the database statements of the run, by statement. */
  statements?: StatementCounts;
}

/**
 * PostgreSQL's own count of the statements run from the request to the batch's end (pg_stat_statements), less the
 * bench's polling of the batch's row: the worker's claims, settles, lease renewals and pg-boss, and the few of
 * TransfersService.start in the bench process.
 */
export interface StatementCounts {
  total: number;
  /** PostgreSQL's time executing them, milliseconds (pg_stat_statements' total_exec_time), lock waits included. */
  ms: number;
  /** PostgreSQL's time planning them, milliseconds (total_plan_time). */
  planMs: number;
  /** The most frequent statements, most calls first, each with its total execution and planning times. */
  top: Array<{ calls: number; ms: number; planMs: number; query: string }>;
}

/** The bench's own statements, not the product's (its poll of the batch, its check for pending inventories). */
const BENCH_STATEMENTS = [
  'from transfer_batches where id = $1',
  'max(i.finished_at)',
  "name = 'transfers.batch' and data",
  "name = 'inventory.account'",
  'pg_stat_statements',
];

export class CumuloBench {
  private constructor(
    private readonly pg: EmbeddedPostgres,
    private readonly postgresDir: string,
    readonly db: Db,
    private readonly stop: () => Promise<void>,
    readonly services: ReturnType<typeof buildServices>,
    readonly principal: Principal,
    private readonly env: NodeJS.ProcessEnv,
    private readonly countStatements: boolean,
  ) {}

  get databaseUrl(): string {
    return this.pg.url;
  }

  /** The environment a worker of this bench starts with (a migrated database, the accounts' master key). */
  get workerEnv(): NodeJS.ProcessEnv {
    return this.env;
  }

  /**
   * CPU seconds of this bench's PostgreSQL so far: its postmaster and backends (live or reaped), found from the
   * postmaster.pid file, so that another PostgreSQL on a shared machine never counts.
   */
  postgresCpuSeconds(): number {
    const pid = Number(fs.readFileSync(path.join(this.postgresDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return cpuSecondsOfTree(pid);
  }

  /**
   * Waits (at most a minute) until the worker has run what connecting accounts queued (their inventory walks), so
   * that a timed copy does not share the worker with them.
   */
  async inventoriesDone(): Promise<void> {
    const deadline = performance.now() + 60_000;
    while (performance.now() < deadline) {
      const { rows } = await this.db.pool.query<{ pending: number }>(
        `select count(*)::int as pending from pgboss.job
          where name = 'inventory.account' and state in ('created', 'retry', 'active')`,
      );
      if ((rows[0]?.pending ?? 0) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.warn('inventory walks still pending after 60 s: timing the copy anyway');
  }

  /**
   * `countStatements`: PostgreSQL loads pg_stat_statements (a restart of the fresh cluster before anything runs),
   * and each copy answers its statements (CumuloRun.statements).
   */
  static async start(dataDir: string, options: { countStatements?: boolean } = {}): Promise<CumuloBench> {
    await buildServerIfStale();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.mkdirSync(dataDir, { recursive: true });
    const log = createLogger('warn');
    const postgresDir = path.join(dataDir, 'postgres');
    const startPg = () =>
      startEmbeddedPostgres({
        dataDir: postgresDir,
        port: 0,
        database: 'cumulo',
        log: { info: () => {}, warn: (m) => log.warn(m), debug: () => {} },
      });
    let pg = await startPg();
    const countStatements = options.countStatements ?? false;
    if (countStatements) {
      // shared_preload_libraries is read at start only.
      const setup = openDb(pg.url, { max: 1 });
      await setup.pool.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
      // Planning time too: a statement sent unnamed is planned again on every call.
      await setup.pool.query(`alter system set pg_stat_statements.track_planning = on`);
      await setup.close();
      await pg.stop();
      pg = await startPg();
    }
    const masterKey = randomBytes(32);
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: pg.url,
      MASTER_KEY: masterKey.toString('base64'),
      PUBLIC_URL: 'http://cumulo.bench',
      LOG_LEVEL: 'warn',
      // The benchmark's accounts are s3rvers on 127.0.0.1, connected as a user would connect them.
      ALLOWED_PRIVATE_ENDPOINTS: '127.0.0.1',
      // Three rounds of (b), (b') and (c) copy 12 GiB, past a trial organisation's transfer quota: the bench
      // measures the engine, not the quota (bench/shared/bench-app.ts does the same for the API benches).
      BILLING_ENTITLE_ALL: 'true',
    };
    const config = loadConfig(env);
    const db = openDb(pg.url, { max: 5 });
    await runMigrations(db);
    if (countStatements) await db.pool.query('create extension if not exists pg_stat_statements');
    const boss = await startBoss({ connectionString: pg.url, schedule: false }, log);
    const services = buildServices({ config, db, log, masterKey, boss });
    const principal = await signUpOrganization(services, db);
    const stop = async () => {
      services.mail.close();
      await services.stores.closeAll();
      await boss.stop({ graceful: false });
    };
    return new CumuloBench(
      pg,
      postgresDir,
      db,
      stop,
      services,
      principal,
      { ...process.env, ...env },
      countStatements,
    );
  }

  /** Another organisation, signed up as a person signs up, with its transfer charge confirmed. */
  signUpOrganization(): Promise<Principal> {
    return signUpOrganization(this.services, this.db);
  }

  /** A generic S3 account on an s3rver, connected the way a user connects one (a real call checks the keys). */
  async connectS3rver(name: string, endpoint: string, principal = this.principal): Promise<string> {
    const account = await this.services.cloudAccounts.insert(principal, {
      cloudType: INSERT_CLOUD_TYPE.genericS3OrFilebase,
      name,
      accessKey: S3RVER_KEY,
      secretKey: S3RVER_KEY,
      serviceUrl: endpoint,
      signatureVersion: 'v4',
    });
    return String(account.id);
  }

  /** Starts a worker process, runs one batch to its end, and answers the time and the worker's peak RSS. */
  async copy(
    request: {
      sourceCloudAccountId: string;
      sourceBucket: string;
      destinationCloudAccountId: string;
      destinationBucket: string;
    },
    settings: WorkerSettings,
    servers: Array<{ pid: number | undefined }> = [],
  ): Promise<CumuloRun> {
    const worker = await startWorker({
      ...this.env,
      TRANSFER_OBJECT_CONCURRENCY: String(settings.objectConcurrency),
      TRANSFER_JOBS_PER_BATCH: String(settings.jobsPerBatch),
      ...settings.env,
    });
    try {
      await this.inventoriesDone();
      settleDisk();
      const workerCpu = cpuSecondsOf(worker.pid);
      const postgresCpu = this.postgresCpuSeconds();
      const serversAndMachine = cpuMeter(servers);
      if (this.countStatements) await this.db.pool.query('select pg_stat_statements_reset()');
      const started = performance.now();
      const { batch } = await this.services.transfers.start(this.principal, request);
      for (;;) {
        const { rows } = await this.db.pool.query<{
          status: number;
          transferred_number: number;
          failed_number: number;
        }>('select status, transferred_number, failed_number from transfer_batches where id = $1', [
          batch.id,
        ]);
        const row = rows[0];
        if (row && row.status !== BATCH_STATUS.ongoing && row.status !== BATCH_STATUS.canceling) {
          const seconds = (performance.now() - started) / 1000;
          const cpuSeconds = cpuSecondsOf(worker.pid) - workerCpu;
          const postgresCpuSeconds = this.postgresCpuSeconds() - postgresCpu;
          const { processes: serverCpuSeconds, machine: machineCpuSeconds } = serversAndMachine();
          const timeline = await this.db.pool.query<{ first: number; tail: number }>(
            `select extract(epoch from min(i.started_at) - b.requested_at)::float8 as first,
                    extract(epoch from b.finished_at - max(i.finished_at))::float8 as tail
               from transfer_batches b join transfer_items i on i.batch_id = b.id
              where b.id = $1 group by b.id`,
            [batch.id],
          );
          const jobs = await this.db.pool.query<{ jobs: number }>(
            `select count(*)::int as jobs from pgboss.job
              where name = 'transfers.batch' and data->>'batchId' = $1 and started_on is not null`,
            [String(batch.id)],
          );
          return {
            jobs: jobs.rows[0]?.jobs ?? 0,
            ...(this.countStatements ? { statements: await this.#statements() } : {}),
            firstCopyAfter: timeline.rows[0]?.first ?? 0,
            finalizedAfterLast: timeline.rows[0]?.tail ?? 0,
            seconds,
            cpuSeconds,
            postgresCpuSeconds,
            serverCpuSeconds,
            machineCpuSeconds,
            peakRssMb: peakRssMb(worker),
            transferred: row.transferred_number,
            failed: row.failed_number,
          };
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await stopWorker(worker);
    }
  }

  async #statements(): Promise<StatementCounts> {
    const { rows } = await this.db.pool.query<{ calls: number; ms: number; planMs: number; query: string }>(
      `select calls::int as calls, total_exec_time::float8 as ms, total_plan_time::float8 as "planMs", query
         from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database()) order by calls desc`,
    );
    const product = rows.filter((row) => !BENCH_STATEMENTS.some((text) => row.query.includes(text)));
    return {
      total: product.reduce((sum, row) => sum + row.calls, 0),
      ms: product.reduce((sum, row) => sum + row.ms, 0),
      planMs: product.reduce((sum, row) => sum + row.planMs, 0),
      top: product.slice(0, 8).map((row) => ({ ...row, query: row.query.replace(/\s+/g, ' ') })),
    };
  }

  /**
   * Runs `work` while a worker process with `settings` is up (started before, stopped after, neither timed), and
   * answers its result with the worker's peak RSS.
   */
  async withWorker<T>(
    settings: WorkerSettings,
    work: () => Promise<T>,
  ): Promise<{ result: T; peakRssMb: number }> {
    const worker = await startWorker({
      ...this.env,
      TRANSFER_OBJECT_CONCURRENCY: String(settings.objectConcurrency),
      TRANSFER_JOBS_PER_BATCH: String(settings.jobsPerBatch),
      ...settings.env,
    });
    try {
      const result = await work();
      return { result, peakRssMb: peakRssMb(worker) };
    } finally {
      await stopWorker(worker);
    }
  }

  async close() {
    await this.stop();
    await this.db.close();
    await this.pg.stop();
  }
}

/** A new member with their own organisation, signed in, who confirmed the transfer charge. */
async function signUpOrganization(services: ReturnType<typeof buildServices>, db: Db): Promise<Principal> {
  const { principal } = await signedInBenchMember(services, db);
  await db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    principal.organizationId,
  ]);
  return principal;
}

/** The worker role in its own process, ready once it says its handlers are registered. */
async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--openssl-legacy-provider',
      ...serverNodeFlags,
      // BENCH_CPU_PROF=dir writes the worker's CPU profile there (open it in Chrome DevTools) to see where time goes.
      // BENCH_WORKER_FLAGS adds Node flags to the worker, e.g. '--heap-prof --heap-prof-dir=/tmp/heap' or
      // '--require ./log-memory.cjs'.
      ...(process.env.BENCH_WORKER_FLAGS?.split(' ').filter(Boolean) ?? []),
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      serverEntry,
      'worker',
    ],
    { cwd: repoRoot, env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('job handlers registered')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready\n${output}`)));
  });
  return child;
}

/** The process's high-water mark of resident memory (VmHWM), read before it stops. */
function peakRssMb(child: ChildProcess): number {
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kib = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

async function stopWorker(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

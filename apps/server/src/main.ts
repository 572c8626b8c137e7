import './runtime/heap-policy.ts';
import path from 'node:path';
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { openDb, runMigrations, type Db } from './db/client.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded-postgres.ts';
import { QUEUES, startBoss } from './jobs/boss.ts';
import { loadMasterKey } from './crypto/keys.ts';
import { serverRoot } from './runtime/paths.ts';
import { drainGraceMs } from './modules/transfers/engine/drain.ts';
import type { WorkerServices } from './worker-services.ts';

/**
 * CLI entry. Roles:
 *   start   every role in one process (web + worker + scheduler); embedded PostgreSQL when DATABASE_URL is unset
 *   web     the HTTP API, the web app and the /rm hub
 *   worker  job handlers and schedules (run as many as the load needs, on any machine)
 *   migrate apply database migrations and exit
 *   billing:mark-paid <invoice-number> [note]
 *           an operator records a manual invoice as paid (modules/billing/README.md "Operator")
 *   backup <file> / restore <file> [--force]
 *           the whole database into one file and back (db/backup/README.md)
 */
const ROLES = ['start', 'web', 'worker', 'migrate', 'billing:mark-paid', 'backup', 'restore'] as const;
type Role = (typeof ROLES)[number];

const defaultWebDist = () => path.resolve(serverRoot(), '../web/dist');

async function main() {
  const role = (process.argv[2] ?? 'start') as Role;
  if (!ROLES.includes(role)) {
    console.error(`Unknown role "${role}". Use one of: ${ROLES.join(', ')}`);
    process.exit(2);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const log = createLogger(config.LOG_LEVEL);
  const stops: Array<() => Promise<void>> = [];
  let shuttingDown = false;
  // Readiness turns 503 and the transfer engine stops claiming at once, before anything closes (README
  // "Operations"); set once the services exist.
  let beginDrain = () => undefined as void;

  const shutdown = async (signal: string, code = 0) => {
    if (shuttingDown) {
      log.info(`${signal} received: already shutting down`);
      return;
    }
    shuttingDown = true;
    log.info(`${signal} received: shutting down`);
    beginDrain();
    const force = setTimeout(() => {
      log.error('shutdown took longer than 30 s; exiting');
      process.exit(1);
    }, 30_000);
    force.unref();
    // Last started, first stopped: HTTP stops accepting and drains, the transfer engine hands its objects back,
    // then jobs, the services' connections, then the database.
    for (const stop of stops.reverse()) {
      await stop().catch((error: unknown) => log.error({ err: error }, 'error during shutdown'));
    }
    clearTimeout(force);
    process.exit(code);
  };
  // `on`, not `once`: a terminal Ctrl-C reaches both npm and this process, and npm forwards it again; a
  // repeated signal must not kill the process before the database has been stopped.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (role === 'backup' || role === 'restore') {
    // Its own database handling: a backup must not stop a running embedded database, nor migrate what it copies.
    const { runBackupRole } = await import('./db/backup/backup-role.ts');
    process.exitCode = await runBackupRole(role, process.argv.slice(3), config, log);
    return;
  }

  try {
    let databaseUrl = config.DATABASE_URL;
    let embedded: EmbeddedPostgres | undefined;
    if (!databaseUrl) {
      if (role === 'web' || role === 'worker') {
        throw new ConfigError(
          `DATABASE_URL is required for the "${role}" role: separate processes must share one PostgreSQL. ` +
            'Use "npm start" for the all-in-one process with the embedded database.',
        );
      }
      embedded = await startEmbeddedPostgres({
        dataDir: path.join(config.DATA_DIR, 'postgres'),
        port: config.EMBEDDED_PG_PORT,
        database: 'cumulo',
        log: { info: (m) => log.info(m), warn: (m) => log.warn(m), debug: (m) => log.debug(m) },
      });
      stops.push(() => embedded?.stop() ?? Promise.resolve());
      databaseUrl = embedded.url;
    }

    const servesHttp = role === 'start' || role === 'web';
    const db: Db = openDb(databaseUrl, { keepOpen: servesHttp });
    stops.push(() => db.close());
    await runMigrations(db);
    log.info('database migrations applied');
    if (role === 'migrate') return void (await shutdown('migrate done'));
    if (role === 'billing:mark-paid') return void (await shutdown(role, await markPaid(db, log)));

    const runsJobs = role === 'start' || role === 'worker';
    const boss: PgBoss = await startBoss({ connectionString: databaseUrl, schedule: runsJobs }, log);
    // The stores close after the job handlers have ended, not under a copy still running.
    let closeServices = () => Promise.resolve();
    stops.push(() => closeServices());
    stops.push(() => boss.stop({ graceful: true, timeout: 20_000 }));

    const masterKey = loadMasterKey(config.MASTER_KEY, config.DATA_DIR);
    // A worker loads what its job handlers use (worker-services.ts), and nothing of the web's services, Fastify or
    // the routes: the roles that serve HTTP build the web's services on top of the worker's (services.ts).
    const serviceDeps = { config, db, log, masterKey, boss };
    const webServices = servesHttp ? (await import('./services.ts')).buildServices(serviceDeps) : undefined;
    const services: WorkerServices =
      webServices ?? (await import('./worker-services.ts')).buildWorkerServices(serviceDeps);
    closeServices = async () => {
      services.mail.close();
      await services.stores.closeAll();
    };
    let drained = Promise.resolve();
    beginDrain = () => {
      services.lifecycle.beginDrain();
      if (!runsJobs) return;
      // No new transfer job for this process: one fetched now would only be handed back, and the queue would
      // give it straight back to this process while it drains.
      void boss
        .offWork(QUEUES.transfersBatch, { wait: false })
        .catch((error: unknown) => log.warn({ err: error }, 'could not stop taking transfer jobs'));
      drained = services.transferExecutor.shutdown(drainGraceMs(config.TRANSFER_LEASE_SECONDS));
    };
    stops.push(() => drained);

    if (runsJobs) {
      const { registerJobs } = await import('./jobs/register.ts');
      await registerJobs(boss, services, log, true);
      log.info('worker role: job handlers registered');
    }
    if (role === 'worker' && config.METRICS_PORT) {
      const { listenForMetrics } = await import('./modules/metrics/metrics-listener.ts');
      const listener = await listenForMetrics(
        services.metrics,
        config.METRICS_TOKEN,
        config.METRICS_PORT,
        config.HOST,
        log,
      );
      stops.push(() => listener.close());
      log.info(`worker role: metrics at http://${config.HOST}:${listener.port}/metrics`);
    }

    if (webServices) {
      const webDist = config.WEB_DIST ? path.resolve(config.WEB_DIST) : defaultWebDist();
      if (!fs.existsSync(path.join(webDist, 'index.html'))) {
        log.warn(`no built web app in ${webDist}: serving the API only (run "npm run build")`);
      }
      const { buildApp } = await import('./app.ts');
      const { app } = await buildApp({ config, db, boss, log, masterKey, databaseUrl, webDist }, webServices);
      const server: FastifyInstance = app;
      stops.push(() => server.close());
      const warmed = await db.warm();
      if (warmed < db.pool.options.max) {
        log.warn(
          { opened: warmed, wanted: db.pool.options.max },
          'PostgreSQL refused some of the web role’s connections at start; they open when needed',
        );
      }
      await server.listen({ port: config.PORT, host: config.HOST });
      log.info(`Cumulo is ready at ${config.PUBLIC_URL}`);
    }
  } catch (error) {
    if (error instanceof ConfigError) log.error(error.message);
    else log.error({ err: error }, 'start-up failed');
    await shutdown('start-up failure', 1);
  }
}

/** `billing:mark-paid <invoice-number> [note]`: the exit code, 0 when the invoice was open and is now paid. */
async function markPaid(db: Db, log: Logger): Promise<number> {
  const [numberText, ...noteWords] = process.argv.slice(3);
  const number = Number(numberText);
  if (!numberText || !Number.isSafeInteger(number) || number < 1) {
    log.error('usage: billing:mark-paid <invoice-number> [note]');
    return 2;
  }
  const [{ BillingRepo }, { markInvoicePaid }] = await Promise.all([
    import('./modules/billing/billing.repo.ts'),
    import('./modules/billing/billing.operator.ts'),
  ]);
  const invoice = await markInvoicePaid(new BillingRepo(db.orm), number, noteWords.join(' ') || null);
  if (!invoice) {
    log.error({ invoice: number }, 'no open invoice with this number');
    return 1;
  }
  log.info({ invoice: number, organizationId: invoice.organizationId }, 'invoice marked paid');
  return 0;
}

void main();

export type { Logger };

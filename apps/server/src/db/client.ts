import type { SQL } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import path from 'node:path';
import pg from 'pg';
import * as schema from './schema/index.ts';
import { serverRoot } from '../runtime/paths.ts';

export type Database = NodePgDatabase<typeof schema>;

export interface Db {
  pool: pg.Pool;
  /**
   * Connections for session advisory locks held while long work runs (a transfer's planning, a sync cycle's step),
   * apart from `pool`: a few long plans or cycles must never leave the API's requests waiting for a connection.
   */
  locks: pg.Pool;
  orm: Database;
  /**
   * Opens every connection of `pool` now, so the first burst of requests after a start (or a quiet spell) does not
   * wait while PostgreSQL starts backends and checks passwords; with `keepOpen` they then stay open. Best effort:
   * connections PostgreSQL refuses (max_connections) are opened later, when needed. Answers how many it opened.
   */
  warm(): Promise<number>;
  close(): Promise<void>;
}

export interface PoolOptions {
  /** The API pool's size. */
  max?: number;
  /**
   * Keep the API pool's connections open while idle (a fixed-size pool, as HikariCP advises), instead of closing
   * each after 10 s idle. The web role's: a connection opened under load costs a PostgreSQL backend's start and a
   * SCRAM exchange, several milliseconds that fall on the requests waiting for it.
   */
  keepOpen?: boolean;
  /** How long a connection above the kept ones may idle before it closes (node-postgres's default, 10 s). */
  idleTimeoutMillis?: number;
}

const dialect = new PgDialect();

/**
 * Runs `query` as the named prepared statement `name`: each connection parses it once, and after its first five
 * runs PostgreSQL may keep a generic plan instead of planning again, where a statement sent unnamed (what
 * `orm.execute` sends) is parsed and planned on every call. For the statements the copy engine sends for every few
 * objects: the item queue's settle spent 204 ms planning against 497 ms executing over 153 calls in one run of
 * bench/transfer (a) --count, and 72 ms planning over 139 calls once prepared. `query` must be the same text on
 * every call (values as parameters, no fragment that varies): one name, one statement.
 */
export function executePrepared(orm: Database, name: string, query: SQL) {
  // drizzle() answers its pool as `$client`; a transaction passed as a Database has none and sends it as usual.
  const pool = (orm as Partial<{ $client: pg.Pool }>).$client;
  if (!pool) return orm.execute<Record<string, unknown>>(query);
  const { sql: text, params } = dialect.sqlToQuery(query);
  return pool.query<Record<string, unknown>>({ name, text, values: params });
}

/** Any fixed number: serialises migrations when several processes start at once. */
const MIGRATION_LOCK = 727_001;

/** Opens the pool used by repos; bigint columns come back as JS strings, so sizes never lose precision. */
export function openDb(connectionString: string, options: PoolOptions = {}): Db {
  const max = options.max ?? 10;
  // A request that cannot get a connection within a minute fails in words instead of hanging its caller.
  const pool = new pg.Pool({
    connectionString,
    max,
    min: options.keepOpen ? max : 0,
    idleTimeoutMillis: options.idleTimeoutMillis ?? 10_000,
    application_name: 'cumulo',
    connectionTimeoutMillis: CONNECTION_WAIT_MS,
  });
  const locks = new pg.Pool({
    connectionString,
    max: LOCK_CONNECTIONS,
    application_name: 'cumulo-locks',
    connectionTimeoutMillis: CONNECTION_WAIT_MS,
  });
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => undefined);
  locks.on('error', () => undefined);
  const orm = drizzle(pool, { schema });
  const warm = async () => {
    const opened = await Promise.allSettled(Array.from({ length: max }, () => pool.connect()));
    let count = 0;
    for (const result of opened) {
      if (result.status !== 'fulfilled') continue;
      result.value.release();
      count += 1;
    }
    return count;
  };
  return { pool, locks, orm, warm, close: async () => void (await Promise.all([pool.end(), locks.end()])) };
}

const CONNECTION_WAIT_MS = 60_000;
/** Locks held at once by one process: its planners (transfer jobs) and cycle steps, well above their concurrency. */
const LOCK_CONNECTIONS = 16;

/** Applies pending migrations under an advisory lock. */
export async function runMigrations(db: Db): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrate(drizzle(client, { schema }), {
      migrationsFolder: path.join(serverRoot(), 'src/db/migrations'),
    });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}

import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import * as schema from './schema/index.ts';

export type Database = NodePgDatabase<typeof schema>;

export interface Db {
  pool: pg.Pool;
  orm: Database;
  close(): Promise<void>;
}

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Any fixed number: serialises migrations when several processes start at once. */
const MIGRATION_LOCK = 727_001;

/** Opens the pool used by repos; bigint columns come back as JS strings, so sizes never lose precision. */
export function openDb(connectionString: string, max = 10): Db {
  const pool = new pg.Pool({ connectionString, max, application_name: 'cumulo' });
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => undefined);
  const orm = drizzle(pool, { schema });
  return { pool, orm, close: () => pool.end() };
}

/** Applies pending migrations under an advisory lock. */
export async function runMigrations(db: Db): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrate(drizzle(client, { schema }), { migrationsFolder });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}

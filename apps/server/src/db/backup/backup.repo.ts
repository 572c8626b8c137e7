import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { BackupTable } from './backup-file.ts';

/**
 * The SQL of backup and restore, on one client (one connection: the backup's snapshot, the restore's transaction).
 * Cumulo's data is every table of `public` plus pg-boss's `schedule` (each sync job's cron lives there); the
 * rest of pg-boss (queues, jobs) is recreated at start-up and refilled by the sweeps, and drizzle's migration
 * table is rebuilt by running the migrations.
 */
const TABLES_SQL = `
  select n.nspname as schema, c.relname as name,
         array_agg(a.attname::text order by a.attnum) as columns
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
  where c.relkind = 'r'
    and (n.nspname = 'public' or (n.nspname = 'pgboss' and c.relname = 'schedule'))
  group by n.nspname, c.relname
  order by n.nspname desc, c.relname`;

export const qualified = (table: Pick<BackupTable, 'schema' | 'name'>) => `${table.schema}.${table.name}`;

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const tableSql = (table: Pick<BackupTable, 'schema' | 'name'>) =>
  `${ident(table.schema)}.${ident(table.name)}`;
const columnsSql = (table: BackupTable) => table.columns.map(ident).join(', ');

export class BackupRepo {
  constructor(private readonly client: pg.PoolClient) {}

  /** One consistent, read-only view of the whole database for the backup's length. */
  async beginSnapshot() {
    await this.client.query('begin isolation level repeatable read read only');
  }

  async begin() {
    await this.client.query('begin');
  }

  async commit() {
    await this.client.query('commit');
  }

  async rollback() {
    await this.client.query('rollback').catch(() => undefined);
  }

  async tables(): Promise<BackupTable[]> {
    const { rows } = await this.client.query<BackupTable>(TABLES_SQL);
    return rows;
  }

  /** drizzle's record of applied migrations, oldest first (absent before the first migration). */
  async appliedMigrations(): Promise<Array<{ hash: string; createdAt: number }>> {
    const exists = await this.client.query(
      `select to_regclass('drizzle.__drizzle_migrations') is not null as ok`,
    );
    if (!(exists.rows[0] as { ok: boolean }).ok) return [];
    const { rows } = await this.client.query<{ hash: string; created_at: string }>(
      'select hash, created_at from drizzle.__drizzle_migrations order by created_at, id',
    );
    return rows.map((row) => ({ hash: row.hash, createdAt: Number(row.created_at) }));
  }

  /** The table's rows as COPY text, streamed. */
  copyOut(table: BackupTable) {
    return this.client.query(copyTo(`copy ${tableSql(table)} (${columnsSql(table)}) to stdout`));
  }

  copyIn(table: BackupTable) {
    return this.client.query(copyFrom(`copy ${tableSql(table)} (${columnsSql(table)}) from stdin`));
  }

  /** Whether people already use this database: a signed-up user or an organisation. */
  async holdsData(): Promise<boolean> {
    const { rows } = await this.client.query<{ used: boolean }>(
      'select exists (select 1 from users) or exists (select 1 from organizations) as used',
    );
    return rows[0]?.used ?? false;
  }

  /**
   * Foreign keys and triggers off for this transaction (the superuser's right): tables load in any order, and
   * rows that reference each other load at all. False when the role may not.
   */
  async skipForeignKeyChecks(): Promise<boolean> {
    await this.client.query('savepoint replica');
    try {
      await this.client.query('set local session_replication_role = replica');
      await this.client.query('release savepoint replica');
      return true;
    } catch {
      await this.client.query('rollback to savepoint replica');
      return false;
    }
  }

  /** Foreign keys between the tables, as `child` → `parent` (`schema.name`), self-references left out. */
  async foreignKeys(): Promise<Array<{ child: string; parent: string }>> {
    const { rows } = await this.client.query<{ child: string; parent: string }>(`
      select cn.nspname || '.' || c.relname as child, pn.nspname || '.' || p.relname as parent
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid join pg_namespace cn on cn.oid = c.relnamespace
      join pg_class p on p.oid = k.confrelid join pg_namespace pn on pn.oid = p.relnamespace
      where k.contype = 'f' and k.conrelid <> k.confrelid`);
    return rows;
  }

  /** Empties the tables (the migrations' seed rows too: the backup holds its own). */
  async truncate(tables: BackupTable[]) {
    if (tables.length === 0) return;
    await this.client.query(`truncate ${tables.map(tableSql).join(', ')} cascade`);
  }

  /** Every sequence owned by a column of `public` continues after the largest value restored. */
  async resetSequences(): Promise<number> {
    const { rows } = await this.client.query<{ table: string; column: string; sequence: string }>(`
      select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as table, a.attname as column,
             pg_get_serial_sequence(quote_ident(n.nspname) || '.' || quote_ident(c.relname), a.attname) as sequence
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
        and pg_get_serial_sequence(quote_ident(n.nspname) || '.' || quote_ident(c.relname), a.attname) is not null`);
    for (const row of rows) {
      await this.client.query(
        `select setval($1::regclass, coalesce((select max(${ident(row.column)}) from ${row.table}), 0) + 1, false)`,
        [row.sequence],
      );
    }
    return rows.length;
  }
}

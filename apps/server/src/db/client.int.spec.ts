import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { executePrepared, openDb } from './client.ts';

// The web role's pool (main.ts): opened whole at start and kept open while idle, so the first burst of requests
// after a start or a quiet spell does not wait for PostgreSQL to start backends.
describe('openDb', () => {
  const url = inject('adminDatabaseUrl');
  const backendsOf = async (db: ReturnType<typeof openDb>, name: string) => {
    const { rows } = await db.locks.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()`,
      [name],
    );
    return rows[0]?.n ?? 0;
  };

  it('opens every connection of a kept-open pool on warm() and keeps them past the idle timeout', async () => {
    const db = openDb(url, { max: 4, keepOpen: true, idleTimeoutMillis: 200 });
    try {
      expect(await db.warm()).toBe(4);
      expect(db.pool.totalCount).toBe(4);
      expect(db.pool.idleCount).toBe(4);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(db.pool.totalCount).toBe(4);
      expect(await backendsOf(db, 'cumulo')).toBeGreaterThanOrEqual(4);
    } finally {
      await db.close();
    }
  });

  it('opens what PostgreSQL allows when it refuses some connections, and serves queries all the same', async () => {
    const role = `warm_${randomBytes(4).toString('hex')}`;
    const admin = openDb(url, { max: 1 });
    await admin.pool.query(`create role ${role} login password 'warm-test' connection limit 2`);
    const limited = Object.assign(new URL(url), { username: role, password: 'warm-test' }).toString();
    const db = openDb(limited, { max: 4, keepOpen: true });
    try {
      expect(await db.warm()).toBe(2);
      expect(db.pool.totalCount).toBe(2);
      const { rows } = await db.pool.query<{ one: number }>('select 1 as one');
      expect(rows[0]?.one).toBe(1);
    } finally {
      await db.close();
      await admin.pool.query(`drop role ${role}`);
      await admin.close();
    }
  });

  it('closes the idle connections of a pool that is not kept open (the workers)', async () => {
    const db = openDb(url, { max: 4, idleTimeoutMillis: 200 });
    try {
      await db.warm();
      expect(db.pool.totalCount).toBe(4);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(db.pool.totalCount).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('sends executePrepared as a named statement, planned once per connection, and inside a transaction as usual', async () => {
    const db = openDb(url, { max: 1 });
    const prepared = async () =>
      (
        await db.pool.query<{ name: string; calls: number }>(
          `select name, (generic_plans + custom_plans)::int as calls from pg_prepared_statements where name = $1`,
          ['client-spec.add'],
        )
      ).rows;
    try {
      for (const n of [1, 2, 3]) {
        const result = await executePrepared(
          db.orm,
          'client-spec.add',
          sql`select ${n}::int + ${10}::int as sum`,
        );
        expect(result.rows).toEqual([{ sum: n + 10 }]);
      }
      // The pool's one connection holds the statement, run three times.
      expect(await prepared()).toEqual([{ name: 'client-spec.add', calls: 3 }]);
      const inTransaction = await db.orm.transaction((tx) =>
        executePrepared(tx as unknown as typeof db.orm, 'client-spec.other', sql`select ${5}::int as five`),
      );
      expect(inTransaction.rows).toEqual([{ five: 5 }]);
    } finally {
      await db.close();
    }
  });
});

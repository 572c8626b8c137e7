import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';

export interface QueueStat {
  queue: string;
  /** Jobs waiting for a worker: created or waiting for a retry, due or not. */
  queued: number;
  /** Seconds the oldest due waiting job has waited (0: none is due). */
  oldestSeconds: number;
}

/** Reads the job queue's depth from pg-boss's own table (one statement, by queue). */
export class QueueStatsRepo {
  constructor(private readonly orm: Database) {}

  async queueStats(): Promise<QueueStat[]> {
    const result = await this.orm.execute<{ name: string; queued: string; oldest: string | null }>(sql`
      select name, count(*) as queued,
        extract(epoch from now() - min(start_after) filter (where start_after <= now())) as oldest
      from pgboss.job
      where state in ('created', 'retry')
      group by name`);
    return result.rows.map((row) => ({
      queue: row.name,
      queued: Number(row.queued),
      oldestSeconds: row.oldest === null ? 0 : Math.max(0, Number(row.oldest)),
    }));
  }
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBoss } from 'pg-boss';
import type { TransferList } from '@cumulo/contract';
import { QUEUES } from '../../jobs/boss.ts';
import { callApi, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';
import { TransferRetentionRepo } from './transfer-retention.repo.ts';
import { TransferRetention } from './transfer-retention.service.ts';

/**
 * Retention of transfer items (README "Retention") on real PostgreSQL: batches and items are written as the engine
 * leaves them (finished batches with their counters), then pruned by the service and by the scheduled job.
 */
let server: TestServer;
let owner: Awaited<ReturnType<typeof signedInMember>>;
const logLines: string[] = [];

/** A batch as the engine leaves it, with `items` (status → how many) and counters that match them. */
async function batchWith(
  items: Partial<Record<'pending' | 'copying' | 'done' | 'skipped' | 'failed' | 'canceled', number>>,
  state: { finishedDaysAgo: number | null },
): Promise<string> {
  const total = Object.values(items).reduce((a, b) => a + b, 0);
  const finished = state.finishedDaysAgo !== null;
  const failed = items.failed ?? 0;
  const inserted = await server.db.pool.query<{ id: string }>(
    `insert into transfer_batches (organization_id, operation, source_bucket, destination_bucket, status, phase,
       total_number, total_size, transferred_number, transferred_size, failed_number, skipped_number,
       requested_at, started_at, finished_at)
     values ($1, 'copy', 'src', 'dst', $2, $3, $4, $4 * 100, $5, $5 * 100, $6, $7,
       now() - interval '60 days', now() - interval '60 days', now() - make_interval(days => $8::int))
     returning id`,
    [
      owner.principal.organizationId,
      finished ? (failed > 0 ? 16 : 4) : 2,
      finished ? 'finished' : 'copying',
      total,
      items.done ?? 0,
      failed,
      items.skipped ?? 0,
      finished ? state.finishedDaysAgo : null,
    ],
  );
  const batchId = inserted.rows[0]?.id;
  if (!batchId) throw new Error('no batch inserted');
  let n = 0;
  for (const [status, count] of Object.entries(items)) {
    await server.db.pool.query(
      `insert into transfer_items (batch_id, source_key, destination_key, size, status, error, finished_at)
       select $1, $2 || '-' || g, $2 || '-' || g, 100, $2, case when $2 = 'failed' then 'Access Denied' end, now()
       from generate_series($3::int, $4::int) g`,
      [batchId, status, n, n + count - 1],
    );
    n += count;
  }
  return batchId;
}

async function itemsOf(batchId: string): Promise<Record<string, number>> {
  const { rows } = await server.db.pool.query<{ status: string; n: number }>(
    'select status, count(*)::int as n from transfer_items where batch_id = $1 group by status',
    [batchId],
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

async function countersOf(batchId: string) {
  const { rows } = await server.db.pool.query(
    `select status, total_number, total_size, transferred_number, transferred_size, failed_number, skipped_number
     from transfer_batches where id = $1`,
    [batchId],
  );
  return rows[0] as Record<string, unknown>;
}

beforeAll(async () => {
  server = await startTestServer({}, logLines, { jobs: true });
  owner = await signedInMember(server, 'retention');
});
afterAll(async () => {
  await server?.stop();
});

describe('transfer items retention', () => {
  it('prunes the done, skipped and canceled items of batches finished before the retention, in chunks', async () => {
    const old = await batchWith({ done: 7, skipped: 2, canceled: 2, failed: 3 }, { finishedDaysAgo: 40 });
    const recent = await batchWith({ done: 4, failed: 1 }, { finishedDaysAgo: 5 });
    const unfinished = await batchWith({ done: 3, pending: 2, copying: 1 }, { finishedDaysAgo: null });
    // A canceled item still holding a multipart upload waits until the transfers sweep has aborted it.
    const withUpload = await batchWith({ done: 2, canceled: 1 }, { finishedDaysAgo: 31 });
    await server.db.pool.query(
      `update transfer_items set upload_id = 'upload-1' where batch_id = $1 and status = 'canceled'`,
      [withUpload],
    );
    const before = await countersOf(old);

    // Chunks of 4 rows: the repo's calls show every DELETE stayed within the chunk.
    const repo = new TransferRetentionRepo(server.db.pool);
    const deletes: number[] = [];
    const prune = repo.pruneItems.bind(repo);
    repo.pruneItems = async (batchId, limit) => {
      const deleted = await prune(batchId, limit);
      deletes.push(deleted);
      return deleted;
    };
    const retention = new TransferRetention(repo, 30, { chunk: 4, pauseMs: 0 });

    expect(await retention.run()).toEqual({ batches: 1, items: 13 });
    expect(deletes.every((n) => n <= 4)).toBe(true);
    expect(deletes.filter((n) => n === 4).length).toBeGreaterThanOrEqual(2);

    expect(await itemsOf(old)).toEqual({ failed: 3 });
    expect(await countersOf(old)).toEqual(before);
    expect(await itemsOf(recent)).toEqual({ done: 4, failed: 1 });
    expect(await itemsOf(unfinished)).toEqual({ done: 3, pending: 2, copying: 1 });
    expect(await itemsOf(withUpload)).toEqual({ canceled: 1 });

    // Twice is harmless; once the sweep has aborted the upload, the next run finishes that batch.
    expect(await retention.run()).toEqual({ batches: 0, items: 0 });
    await server.db.pool.query(`update transfer_items set upload_id = null where batch_id = $1`, [
      withUpload,
    ]);
    expect(await retention.run()).toEqual({ batches: 1, items: 1 });
    expect(await itemsOf(withUpload)).toEqual({});
    expect(await itemsOf(old)).toEqual({ failed: 3 });

    // What users read of the pruned batch still answers: its totals in the list, its failed files as CSV.
    const list = (await callApi(server, 'GET', '/api/transfer/get_all?type=1&pagesize=200', owner.token))
      .body as TransferList;
    expect(list.items.find((b) => b.id === old)).toMatchObject({
      transferStatus: 16,
      total: 14,
      transferred: 7,
      failed: 3,
      skipped: 2,
    });
    const csv = await server.app.inject({
      method: 'POST',
      url: '/api/transfer/download_failed_files',
      headers: { authorization: `Bearer ${owner.token}` },
      payload: { Id: old },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.body.trim().split('\n').slice(1).sort()).toEqual([
      'failed-11,100,Access Denied',
      'failed-12,100,Access Denied',
      'failed-13,100,Access Denied',
    ]);
  });

  it("waits for a sync cycle's end before pruning its batch: the cycle records what the done items wrote", async () => {
    const org = owner.principal.organizationId;
    const {
      rows: [cycle],
    } = await server.db.pool.query<{ id: string }>(
      `with a as (
         insert into cloud_accounts (organization_id, provider, name, credentials, key_hint)
         values ($1, 'aws', 'Sync lab', 'v1.sealed', 'KEY') returning id),
       j as (
         insert into sync_jobs (organization_id, kind, source_cloud_account_id, source_bucket,
                                destination_cloud_account_id, destination_bucket)
         select $1, 'sync', a.id, 'src', a.id, 'dst' from a returning id)
       insert into sync_cycles (sync_job_id, organization_id, trigger, phase)
       select j.id, $1, 'schedule', 'copying' from j returning id`,
      [org],
    );
    const batch = await batchWith({ done: 3 }, { finishedDaysAgo: 40 });
    await server.db.pool.query('update transfer_batches set sync_cycle_id = $2 where id = $1', [
      batch,
      cycle?.id,
    ]);
    const retention = new TransferRetention(new TransferRetentionRepo(server.db.pool), 30, {
      chunk: 10,
      pauseMs: 0,
    });

    await retention.run();
    expect(await itemsOf(batch)).toEqual({ done: 3 });

    await server.db.pool.query(
      `update sync_cycles set phase = 'finished', finished_at = now() where id = $1`,
      [cycle?.id],
    );
    await retention.run();
    expect(await itemsOf(batch)).toEqual({});
  });

  it('runs as the scheduled transfers.retention job, which logs how many items it pruned', async () => {
    const old = await batchWith({ done: 5, failed: 1 }, { finishedDaysAgo: 45 });
    const { rows: scheduled } = await server.db.pool.query<{ cron: string }>(
      'select cron from pgboss.schedule where name = $1',
      [QUEUES.transfersRetention],
    );
    expect(scheduled).toEqual([{ cron: '17 3 * * *' }]);

    // What the daily cron does: a job on the queue, which the worker handlers of this server run.
    const sender = new PgBoss({
      connectionString: server.databaseUrl,
      schema: 'pgboss',
      schedule: false,
      supervise: false,
    });
    await sender.start();
    try {
      await sender.send(QUEUES.transfersRetention, {});
    } finally {
      await sender.stop({ graceful: false });
    }
    const deadline = Date.now() + 30_000;
    let line: string | undefined;
    while (!line && Date.now() < deadline) {
      line = logLines.find((l) => l.includes('transfer items retention'));
      if (!line) await new Promise((r) => setTimeout(r, 100));
    }
    expect(line, 'the job logged its run').toBeDefined();
    expect(JSON.parse(line ?? '{}')).toMatchObject({ batches: 1, items: 5 });
    expect(await itemsOf(old)).toEqual({ failed: 1 });
  });
});

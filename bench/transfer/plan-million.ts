// Child process of bench/transfer (d): plans a batch whose source lists N keys, with the product's planner and
// repository against the bench's PostgreSQL, and prints its time and peak RSS. The source is a listing stub (the
// issue allows one): an ObjectStore whose `list` generates sorted pages of 1000 keys, as S3 answers them, so the
// measure is the planner's own memory, not a store's. Usage: plan-million.ts DATABASE_URL ORGANIZATION_ID COUNT
// First, as in main.ts: every Cumulo process runs under the same heap policy (HEAP_GROWING_PERCENT).
import '@cumulo/server/heap-policy';
import fs from 'node:fs';
import { createObjectStore, type ListPage, type ObjectStore } from '@cumulo/storage';
import { openDb, TransfersRepo, TransferPlanningRepo, planBatch } from '@cumulo/server/planning';

const [databaseUrl, organizationId, countText] = process.argv.slice(2);
if (!databaseUrl || !organizationId || !countText)
  throw new Error('usage: DATABASE_URL ORGANIZATION_ID COUNT');
const count = Number(countText);

/** Only `list` is called by the planner without Skip Existing Files. */
const listingStub = {
  provider: 'genericS3',
  async *list(): AsyncGenerator<ListPage> {
    for (let start = 0; start < count; start += 1000) {
      const objects = [];
      for (let index = start; index < Math.min(count, start + 1000); index++) {
        const key = `million/${String(index).padStart(8, '0')}.bin`;
        objects.push({
          key,
          size: 4096,
          lastModified: null,
          etag: null,
          md5: null,
          contentType: null,
          metadata: {},
        });
      }
      yield { objects, prefixes: [], continuationToken: start + 1000 < count ? String(start + 1000) : null };
    }
  },
} as unknown as ObjectStore;

// A worker planning an S3 source has the S3 adapter and its SDK loaded: so does this process, to count them.
const s3 = await createObjectStore({
  provider: 'genericS3',
  endpoint: 'http://127.0.0.1:9',
  accessKeyId: 'unused',
  secretAccessKey: 'unused',
  forcePathStyle: true,
});

const db = openDb(databaseUrl, { max: 2 });
const repo = new TransfersRepo(db.orm, db.pool);
const planning = new TransferPlanningRepo(db.orm, db.pool);
const { rows } = await db.pool.query<{ id: string }>(
  `insert into transfer_batches (organization_id, operation, source_bucket, destination_bucket)
   values ($1, 'copy', 'million-source', 'million-destination') returning id`,
  [organizationId],
);
const batchId = rows[0]?.id;
if (!batchId) throw new Error('no batch');
const batch = await repo.findForEngine(batchId);
if (!batch) throw new Error('batch not found');
const rssBeforeMb = process.memoryUsage().rss / 2 ** 20;
const started = performance.now();
await planBatch(planning, batch, { source: listingStub, destination: listingStub, sameEndpoint: false });
const seconds = (performance.now() - started) / 1000;
const planned = await db.pool.query<{ n: string }>(
  'select count(*) as n from transfer_items where batch_id = $1',
  [batchId],
);
const status = fs.readFileSync('/proc/self/status', 'utf8');
const peakRssMb = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN) / 1024;
process.stdout.write(
  `${JSON.stringify({ seconds, peakRssMb, rssBeforeMb, planned: Number(planned.rows[0]?.n) })}\n`,
);
await s3.close();
await db.close();

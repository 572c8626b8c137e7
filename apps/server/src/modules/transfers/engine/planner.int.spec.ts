import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingStore } from '../../../../test/listing-store.ts';
import { signedInMember, startTestServer, type TestServer } from '../../../../test/harness.ts';
import { planBatch } from './planner.ts';

/**
 * The planner on listings held in memory (test/listing-store.ts, which records every request), writing its items
 * into embedded PostgreSQL through the real repository. The stores end to end run in transfers.int.spec.ts.
 */
let server: TestServer;
let organizationId: string;

beforeAll(async () => {
  server = await startTestServer();
  organizationId = (await signedInMember(server, 'planner')).principal.organizationId;
});
afterAll(async () => {
  await server?.stop();
});

async function batchOf(values: { operation: 'copy' | 'move'; planCursor?: string }) {
  const repo = server.services.transfersRepo;
  const created = await repo.createBatch({
    organizationId,
    operation: values.operation,
    sourceBucket: 'src',
    destinationBucket: 'dst',
    skipExisting: true,
    planCursor: values.planCursor ?? null,
  });
  const batch = await repo.findForEngine(created.id);
  if (!batch) throw new Error('batch not found');
  return batch;
}

async function itemsOf(batchId: string) {
  const { rows } = await server.db.pool.query<{ source_key: string; status: string; method: string | null }>(
    'select source_key, status, method from transfer_items where batch_id = $1 order by source_key',
    [batchId],
  );
  return rows.map((row) => [row.source_key, row.status, row.method]);
}

// Large objects as S3 lists them: a multipart ETag (no MD5), no metadata; the copies name their source version.
const sources = ['a', 'b', 'c', 'd'].map((key) => ({ key, size: 10, etag: `${key}-2` }));
const copies = ['a', 'b', 'c', 'd'].map((key) => ({
  key,
  size: 10,
  etag: `${key}${key}-3`,
  metadata: { 'cumulo-source-etag': `${key}-2` },
}));

describe('planBatch with Skip Existing Files', () => {
  it('plans, when re-run, only after its cursor, and asks no HEAD for what it planned before', async () => {
    const source = listingStore(sources);
    const destination = listingStore(copies, 2, { metadataInListings: false });
    const batch = await batchOf({ operation: 'copy', planCursor: 'b' });

    expect(await planBatch(server.services.transferPlanningRepo, batch, endpoints(source, destination))).toBe(
      true,
    );

    expect(await itemsOf(batch.id)).toEqual([
      ['c', 'skipped', null],
      ['d', 'skipped', null],
    ]);
    expect(destination.calls.filter((call) => call.startsWith('stat')).sort()).toEqual(['stat c', 'stat d']);
  });

  it('plans a move’s objects already at the destination as present, for a worker to delete their sources', async () => {
    const source = listingStore([...sources, { key: 'e', size: 4, etag: 'e-1' }]);
    const destination = listingStore(copies, 2, { metadataInListings: false });
    const batch = await batchOf({ operation: 'move' });

    await planBatch(server.services.transferPlanningRepo, batch, endpoints(source, destination));

    expect(await itemsOf(batch.id)).toEqual([
      ['a', 'pending', 'present'],
      ['b', 'pending', 'present'],
      ['c', 'pending', 'present'],
      ['d', 'pending', 'present'],
      ['e', 'pending', null],
    ]);
    // Counted as skipped once their sources are deleted, not before.
    expect(await server.services.transfersRepo.findForEngine(batch.id)).toMatchObject({
      totalNumber: 5,
      skippedNumber: 0,
    });
  });
});

describe('planBatch comparing parts ETags', () => {
  // What two S3 stores list for the same bytes uploaded in the same parts (the copy in the source's own parts).
  const partsEtag = (key: string) => `${key.repeat(32).slice(0, 32)}-5`;

  it('skips an object whose destination lists the same parts ETag, asking no HEAD; asks one for another', async () => {
    const source = listingStore(['a', 'b', 'c'].map((key) => ({ key, size: 50, etag: partsEtag(key) })));
    const destination = listingStore(
      [
        { key: 'a', size: 50, etag: partsEtag('a') },
        { key: 'b', size: 50, etag: partsEtag('b') },
        // Same size, uploaded in other parts and with no record of its source: only its own answer can tell.
        { key: 'c', size: 50, etag: partsEtag('f') },
      ],
      2,
      { metadataInListings: false },
    );
    const batch = await batchOf({ operation: 'copy' });

    await planBatch(server.services.transferPlanningRepo, batch, endpoints(source, destination));

    expect(await itemsOf(batch.id)).toEqual([
      ['a', 'skipped', null],
      ['b', 'skipped', null],
      ['c', 'pending', null],
    ]);
    expect(destination.calls.filter((call) => call.startsWith('stat'))).toEqual(['stat c']);
  });
});

function endpoints(source: ReturnType<typeof listingStore>, destination: ReturnType<typeof listingStore>) {
  return { source: source.store, destination: destination.store, sameEndpoint: false };
}

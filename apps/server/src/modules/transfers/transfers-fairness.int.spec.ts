import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_STATUS, type TransferStarted } from '@cumulo/contract';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import {
  S3RVER_KEY,
  startRestartableS3rver,
  startS3rver,
  type RestartableS3rver,
  type S3rverRequest,
  type S3rverServer,
} from '@cumulo/storage/testing';
import {
  callApi,
  s3rverStore,
  signedInMember,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';

/**
 * FAIR QUEUES: organisation A queues a burst of transfers into a slow destination (every write to its buckets is
 * held), then organisation B queues a one-object transfer; B's completes while A's burst is still running. With
 * TRANSFER_BATCHES_PER_ORG below the worker's slots, because A runs at most that many batches at once and the free
 * slots serve B at once; with A's cap at every slot, because A's longest-running job hands its slot over once B has
 * waited a few seconds. Real s3rver × 2 (the destination reached as a generic S3 account), the worker role in this
 * process, embedded PostgreSQL. How long B waits is measured by bench/fairness.
 */
const A_BATCHES = 8;
const OBJECTS_PER_BATCH = 4;
const SLOW_BUCKET = 'fair-a-dst';
/**
 * The yield case: A's transfers, one job each, fill every slot (LOCAL_CONCURRENCY 8), each copying 32 objects two
 * at a time for about 16 s; a job ends only with its transfer, so without a yield B would wait for one to end.
 */
const LONG_OBJECTS_PER_BATCH = 32;
const SLOWER_BUCKET = 'fair-a-long-dst';
const delays: Record<string, number> = { [SLOW_BUCKET]: 400, [SLOWER_BUCKET]: 1000 };
let server: TestServer;
let source: S3rverServer;
let destination: RestartableS3rver;
let sourceStore: S3ObjectStore;
let destinationStore: S3ObjectStore;

function slowForA(request: S3rverRequest): Promise<void> | undefined {
  const delay = delays[request.path.split('/')[1] ?? ''];
  if (request.method !== 'PUT' || delay === undefined || request.path.split('/').length < 3) return undefined;
  return new Promise((resolve) => setTimeout(resolve, delay));
}

function startServer(batchesPerOrganization: number, jobsPerBatch: number) {
  return startTestServer(
    {
      PROVIDER_ENDPOINTS: JSON.stringify({ aws: source.endpoint }),
      TRANSFER_BATCHES_PER_ORG: String(batchesPerOrganization),
      TRANSFER_JOBS_PER_BATCH: String(jobsPerBatch),
      TRANSFER_OBJECT_CONCURRENCY: '2',
    },
    undefined,
    { jobs: true },
  );
}

beforeAll(async () => {
  [source, destination] = await Promise.all([startS3rver(), startRestartableS3rver({ hold: slowForA })]);
  sourceStore = s3rverStore(source.endpoint);
  destinationStore = s3rverStore(destination.endpoint, { provider: 'genericS3' });
  await sourceStore.createBucket('fair-a');
  await sourceStore.createBucket('fair-b');
  await sourceStore.createBucket('fair-a-long');
  await destinationStore.createBucket(SLOW_BUCKET);
  await destinationStore.createBucket(SLOWER_BUCKET);
  await destinationStore.createBucket('fair-b-dst');
  await destinationStore.createBucket('fair-b-dst-2');
  for (let batch = 0; batch < A_BATCHES; batch++)
    for (let object = 0; object < LONG_OBJECTS_PER_BATCH; object++) {
      const body = Buffer.from(`batch ${batch} object ${object}`);
      if (object < OBJECTS_PER_BATCH)
        await sourceStore.write('fair-a', `batch-${batch}/object-${object}.txt`, body, { size: body.length });
      await sourceStore.write('fair-a-long', `batch-${batch}/object-${object}.txt`, body, {
        size: body.length,
      });
    }
  const small = Buffer.from('31 bytes of organisation B data');
  await sourceStore.write('fair-b', 'small.txt', small, { size: small.length });
}, 120_000);

afterAll(async () => {
  await sourceStore?.close();
  await destinationStore?.close();
  await Promise.all([source?.stop(), destination?.stop()]);
});

/** An organisation with its charge confirmed and its two accounts connected. */
async function organisation(name: string) {
  const member = await signedInMember(server, name);
  await server.db.pool.query('update organizations set confirmed_c2c = true where id = $1', [
    member.principal.organizationId,
  ]);
  const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    callApi(server, method, url, member.token, body);
  const account = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/api/cloudaccount/insert', body);
    expect(res.status, res.raw).toBe(201);
    return (res.body as { id: string }).id;
  };
  const sourceId = await account({ cloudType: 1, name: 'Src', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY });
  const destinationId = await account({
    cloudType: 8,
    name: 'Dst',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
    serviceUrl: destination.endpoint,
  });
  const transfer = async (sourceBucket: string, sourcePath: string, destinationBucket: string) => {
    const res = await call('POST', '/api/transfer/transfer', {
      sourceCloudAccountId: sourceId,
      sourceBucket,
      sourcePath,
      destinationCloudAccountId: destinationId,
      destinationBucket,
    });
    expect(res.status, res.raw).toBe(200);
    return (res.body as TransferStarted).batch.id;
  };
  return { transfer };
}

async function statuses(ids: string[]): Promise<Map<string, { status: number; started: boolean }>> {
  const { rows } = await server.db.pool.query<{ id: string; status: number; started: boolean }>(
    'select id, status, started_at is not null as started from transfer_batches where id = any($1::uuid[])',
    [ids],
  );
  return new Map(rows.map((row) => [row.id, { status: row.status, started: row.started }]));
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A's burst of `A_BATCHES` transfers from `aBucket` into `aDestination`, then B's one object: B's completes while
 * A's burst still runs, and A's still completes, every transfer of it. Answers A's transfers as B's end found them.
 */
async function burstThenOne(aBucket: string, aDestination: string, bDestination: string) {
  const a = await organisation('burst');
  const b = await organisation('single');
  const aBatches: string[] = [];
  for (let batch = 0; batch < A_BATCHES; batch++)
    aBatches.push(await a.transfer(aBucket, `batch-${batch}/`, aDestination));
  // A's burst has the worker by now.
  await until('a transfer of A to start', async () =>
    [...(await statuses(aBatches)).values()].some((batch) => batch.started) ? true : undefined,
  );

  const bBatch = await b.transfer('fair-b', '', bDestination);
  const aWhenBDone = await until('B to finish', async () => {
    const seen = await statuses([bBatch, ...aBatches]);
    if (seen.get(bBatch)?.status === BATCH_STATUS.ongoing) return undefined;
    return { b: seen.get(bBatch)?.status, a: aBatches.map((id) => seen.get(id)) };
  });
  expect(aWhenBDone.b).toBe(BATCH_STATUS.completed);
  expect(aWhenBDone.a.filter((batch) => batch?.status === BATCH_STATUS.ongoing).length).toBeGreaterThan(0);
  expect((await destinationStore.stat(bDestination, 'small.txt'))?.size).toBe(31);

  await until('A to finish', async () =>
    [...(await statuses(aBatches)).values()].every((batch) => batch.status !== BATCH_STATUS.ongoing)
      ? true
      : undefined,
  );
  const aEnd = await statuses(aBatches);
  expect([...aEnd.values()].map((batch) => batch.status)).toEqual(aBatches.map(() => BATCH_STATUS.completed));
  return aWhenBDone.a;
}

describe('fair transfer queues: one organisation’s burst does not hold up another’s (s3rver → generic S3 s3rver)', () => {
  describe('TRANSFER_BATCHES_PER_ORG 1', () => {
    beforeAll(async () => {
      server = await startServer(1, 2);
    });
    afterAll(async () => {
      await server?.stop();
    });

    it("B's one-object transfer completes while A's burst is still running, A's others waiting their turn", async () => {
      const aWhenBDone = await burstThenOne('fair-a', SLOW_BUCKET, 'fair-b-dst');
      // A's other transfers wait for A's cap; B's did not wait behind them.
      expect(aWhenBDone.filter((batch) => batch?.started === false).length).toBeGreaterThan(0);
    }, 120_000);
  });

  describe('TRANSFER_BATCHES_PER_ORG 8, one job per transfer: A alone may fill every slot', () => {
    beforeAll(async () => {
      server = await startServer(8, 1);
    });
    afterAll(async () => {
      await server?.stop();
    });

    it("A's longest-running job hands its slot to B, whose transfer completes while A's burst is still running", async () => {
      const aWhenBDone = await burstThenOne('fair-a-long', SLOWER_BUCKET, 'fair-b-dst-2');
      // B did not wait for a transfer of A to end: every one of them was still running.
      expect(aWhenBDone.map((batch) => batch?.status)).toEqual(aWhenBDone.map(() => BATCH_STATUS.ongoing));
    }, 180_000);
  });
});

// bench/fairness: how long one organisation's one-object transfer waits behind another organisation's burst
// (issue 20, point 2). Organisation A queues 30 transfers of many small objects each; two seconds later,
// organisation B queues a transfer of one 31-byte object. Printed: B's wait (queued → completed, as the history
// shows it), how many of A's transfers were still unfinished then, and A's total time. Goal: B's wait ≤ 5 s.
// Cumulo runs as the product runs: embedded PostgreSQL, accounts connected and transfers started through the
// services, the worker role in its own process (its defaults: TRANSFER_BATCHES_PER_ORG 2, 8 transfer slots),
// between two s3rver processes.
//
//   npm run fairness -w bench [-- --rounds 3] [-- --per-org 1000]   (--per-org 1000: no cap, for comparison)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BATCH_STATUS } from '@cumulo/contract';
import { createObjectStore, type ObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import type { Principal } from '@cumulo/server';
import { repoRoot, startS3rverProcess } from '../inventory/s3rver-process.ts';
import { ensureS3rverSeed, type SeedLayout } from '../shared/s3rver-seed.ts';
import { CumuloBench, type WorkerSettings } from '../transfer/cumulo.ts';

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '1' },
    batches: { type: 'string', default: '30' },
    'objects-per-batch': { type: 'string', default: '200' },
    'per-org': { type: 'string' },
  },
});
const rounds = Number(options.rounds);
const batches = Number(options.batches);
const perBatch = Number(options['objects-per-batch']);
const dataDir = path.join(repoRoot, 'bench/.data/fairness');
const GOAL_SECONDS = 5;
const OBJECT_BYTES = 32 * 1024;
const SOURCE_BUCKET = 'fair-a';
const settings: WorkerSettings = {
  objectConcurrency: 16,
  jobsPerBatch: 2,
  env: options['per-org'] ? { TRANSFER_BATCHES_PER_ORG: options['per-org'] } : {},
};

const layout: SeedLayout = {
  name: 'fairness',
  version: 1,
  bucket: SOURCE_BUCKET,
  keyOf: (index) =>
    `batch-${String(Math.floor(index / perBatch)).padStart(2, '0')}/object-${String(index).padStart(6, '0')}.bin`,
  bodyOf: (index) => Buffer.alloc(OBJECT_BYTES, index % 251),
  samples: [0, 1],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function store(endpoint: string): Promise<ObjectStore> {
  return createObjectStore({
    provider: 'genericS3',
    endpoint,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
  });
}

interface BatchTimes {
  status: number;
  seconds: number | null;
  finishedAt: Date | null;
}

async function batchTimes(cumulo: CumuloBench, id: string): Promise<BatchTimes> {
  const { rows } = await cumulo.db.pool.query<{
    status: number;
    seconds: number | null;
    finished_at: Date | null;
  }>(
    `select status, extract(epoch from finished_at - requested_at)::float8 as seconds, finished_at
       from transfer_batches where id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) throw new Error(`batch ${id} is gone`);
  return { status: row.status, seconds: row.seconds, finishedAt: row.finished_at };
}

async function round(
  cumulo: CumuloBench,
  index: number,
  a: { principal: Principal; source: string; destination: string },
  b: { principal: Principal; source: string; destination: string },
  destinationStore: ObjectStore,
) {
  const aDestination = `fair-a-dst-${index}`;
  const bDestination = `fair-b-dst-${index}`;
  await destinationStore.createBucket(aDestination);
  await destinationStore.createBucket(bDestination);
  return cumulo.withWorker(settings, async () => {
    const started = performance.now();
    const aBatches: string[] = [];
    for (let batch = 0; batch < batches; batch++) {
      const { batch: queued } = await cumulo.services.transfers.start(a.principal, {
        sourceCloudAccountId: a.source,
        sourceBucket: SOURCE_BUCKET,
        sourcePath: `batch-${String(batch).padStart(2, '0')}/`,
        destinationCloudAccountId: a.destination,
        destinationBucket: aDestination,
      });
      aBatches.push(queued.id);
    }
    // A's burst holds every slot it may by now.
    await sleep(2000);
    const { batch: bBatch } = await cumulo.services.transfers.start(b.principal, {
      sourceCloudAccountId: b.source,
      sourceBucket: 'fair-b',
      destinationCloudAccountId: b.destination,
      destinationBucket: bDestination,
    });
    let bTimes = await batchTimes(cumulo, bBatch.id);
    while (bTimes.status === BATCH_STATUS.ongoing) {
      await sleep(50);
      bTimes = await batchTimes(cumulo, bBatch.id);
    }
    const aTimes = await Promise.all(aBatches.map((id) => batchTimes(cumulo, id)));
    const aUnfinished = aTimes.filter((times) => times.status === BATCH_STATUS.ongoing).length;
    for (;;) {
      const times = await Promise.all(aBatches.map((id) => batchTimes(cumulo, id)));
      if (times.every((t) => t.status !== BATCH_STATUS.ongoing)) {
        const failed = times.filter((t) => t.status !== BATCH_STATUS.completed).length;
        return {
          bWait: bTimes.seconds ?? NaN,
          bStatus: bTimes.status,
          aUnfinished,
          aFailed: failed,
          aSeconds: (performance.now() - started) / 1000,
        };
      }
      await sleep(200);
    }
  });
}

async function main() {
  if (!Number.isInteger(batches) || batches < 1 || !Number.isInteger(perBatch) || perBatch < 1)
    throw new Error('--batches and --objects-per-batch must be positive integers');
  const seed = await ensureS3rverSeed(path.join(dataDir, 'seeds'), layout, batches * perBatch);
  const sourceRoot = path.join(dataDir, 'source');
  const destinationRoot = path.join(dataDir, 'destination');
  for (const root of [sourceRoot, destinationRoot]) fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(sourceRoot, { recursive: true });
  fs.mkdirSync(destinationRoot, { recursive: true });
  execFileSync('cp', ['-R', path.join(seed.directory, SOURCE_BUCKET), path.join(sourceRoot, SOURCE_BUCKET)]);
  const [sourceServer, destinationServer] = await Promise.all([
    startS3rverProcess(sourceRoot),
    startS3rverProcess(destinationRoot),
  ]);
  const sourceStore = await store(sourceServer.endpoint);
  const destinationStore = await store(destinationServer.endpoint);
  const cumulo = await CumuloBench.start(path.join(dataDir, 'cumulo'));
  try {
    await sourceStore.createBucket('fair-b');
    await sourceStore.write('fair-b', 'hello.txt', Buffer.from('one small object for organisation'));
    const a = {
      principal: cumulo.principal,
      source: await cumulo.connectS3rver('A source', sourceServer.endpoint),
      destination: await cumulo.connectS3rver('A destination', destinationServer.endpoint),
    };
    const bPrincipal = await cumulo.signUpOrganization();
    const b = {
      principal: bPrincipal,
      source: await cumulo.connectS3rver('B source', sourceServer.endpoint, bPrincipal),
      destination: await cumulo.connectS3rver('B destination', destinationServer.endpoint, bPrincipal),
    };
    console.log(
      `A: ${batches} transfers × ${perBatch} objects of ${OBJECT_BYTES / 1024} KiB; B: 1 object; ` +
        `TRANSFER_BATCHES_PER_ORG ${options['per-org'] ?? '2 (default)'}`,
    );
    const waits: number[] = [];
    for (let index = 1; index <= rounds; index++) {
      const { result } = await round(cumulo, index, a, b, destinationStore);
      waits.push(result.bWait);
      const verdict =
        result.bStatus === BATCH_STATUS.completed && result.bWait <= GOAL_SECONDS ? 'PASS' : 'FAIL';
      console.log(
        `round ${index}: B's one-object transfer waited ${result.bWait.toFixed(2)} s (goal ≤ ${GOAL_SECONDS} s) ` +
          `${verdict}; A had ${result.aUnfinished}/${batches} transfers unfinished then; ` +
          `A's ${batches} transfers took ${result.aSeconds.toFixed(1)} s` +
          (result.aFailed > 0 ? ` (${result.aFailed} not Completed)` : ''),
      );
    }
    const worst = Math.max(...waits);
    console.log(
      `B's wait over ${rounds} round(s): worst ${worst.toFixed(2)} s, goal ≤ ${GOAL_SECONDS} s: ${worst <= GOAL_SECONDS ? 'PASS' : 'FAIL'}`,
    );
  } finally {
    await cumulo.close();
    await sourceStore.close();
    await destinationStore.close();
    await Promise.all([sourceServer.stop(), destinationServer.stop()]);
  }
}

await main();

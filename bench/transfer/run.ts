// bench/transfer: Cumulo's transfer engine next to rclone 1.60 (Debian) and next to the bare copy loop, all between
// local s3rver instances on this machine, in one run: issue 29's "Performance" table.
//   (a) 1000 × 64 KiB across endpoints: time ≤ 1.0 × tuned rclone (--transfers 64 --checkers 64
//       --s3-no-check-bucket --s3-no-head --fast-list); throughput ≥ 0.75 × the bare loop's; CPU seconds of the
//       worker plus its PostgreSQL ≤ 1.5 × rclone's; worker peak RSS ≤ 1.5 × rclone's
//   (b) 2 × 1 GiB across endpoints: time ≤ 1.0 × rclone; throughput ≥ 0.85 × the bare loop's; worker peak RSS ≤
//       0.75 × rclone's
//   (c) 2 × 1 GiB within one endpoint: time ≤ 1.0 × rclone (both send one server-side copy per object, which a
//       counting proxy checks in every round)
//   (d) planning a 1 000 000-key source (a listing stub): peak RSS ≤ 100 MB
//   idle worker: RSS ≤ 80 MB before its first copy (bench/worker-idle's measure)
//   (b') not in the issue, only with --only p: (b) again with sources uploaded in 5 MiB parts, as most large
//       objects are, which Cumulo copies in the source's own parts and checks against their parts ETag
// Each figure is the median of --rounds rounds (3); in round 1 Cumulo goes first, in round 2 rclone, and so on; the
// floors (the bare copy loop: GET piped into PUT, no signature, checksum or database; a bare CopyObject) run after
// both tools in every round. Each row prints its goal, its bound and a verdict (bench/shared/goal-table.ts says
// when a row is PASS, BOUND or FAIL), then every round's raw numbers.
// Cumulo runs as the product runs: an embedded PostgreSQL, accounts connected through the service, the batch
// started through TransfersService and copied by the worker role in its own process (its peak RSS and CPU, and its
// PostgreSQL's CPU, are measured).
//
//   npm run transfer -w bench [-- --only idle,a,b,c,d,p] [--rounds 3] [--small] [--keys 1000000] [--heap MB] [--count]
//   --count puts a counting proxy in front of both s3rvers of (a) and prints each tool's requests by S3 operation
//   in every round, and Cumulo's database statements (PostgreSQL's pg_stat_statements). The proxies run in this
//   process, beside the bare copy loop, and cost every tool a hop: its times are no results.
//   --small shrinks every case for a smoke run (100 × 64 KiB, 2 × 64 MiB, 20 000 keys, 1 s idle): its figures are
//   no results.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createObjectStore, type ObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { repoRoot, startS3rverProcess, type S3rverProcess } from '../inventory/s3rver-process.ts';
import { cpuMeter } from '../shared/proc-cpu.ts';
import { bareCopies, bareCopiesInParts, bareServerSideCopies } from './bare-copy.ts';
import { CumuloBench, type CumuloRun, type WorkerSettings } from './cumulo.ts';
import { rcloneCopy, type PeerRun } from './rclone-copy.ts';
import {
  S3_OPERATIONS,
  startCountingProxy,
  totalOf,
  type CountingProxy,
  type RequestCounts,
} from '../shared/counting-proxy.ts';
import { bundleServer, serverNodeFlags } from '../../scripts/build-server.mjs';
import { median, printTable, turnOrder, type GoalRow } from '../shared/goal-table.ts';
import {
  FLOOR_WORK,
  IDLE_GOAL_MB,
  WORKER_PACKAGES,
  floorReadings,
  idleWorkerReadings,
} from '../worker-idle/measure.ts';
import {
  GiB,
  LARGE_BUCKET,
  LARGE_PARTS_BUCKET,
  MiB,
  SMALL_BUCKET,
  largeKeys,
  seedLarge,
  seedLargeParts,
  seedSmall,
  smallKeys,
} from './seed.ts';

const { values: options } = parseArgs({
  options: {
    only: { type: 'string', default: 'idle,a,b,c,d' },
    rounds: { type: 'string', default: '3' },
    /** Shrinks every case for a smoke run of the bench itself; its figures are no results. */
    small: { type: 'boolean', default: false },
    keys: { type: 'string' },
    /** V8 old-space cap (MB) for the planning process, as a worker could be started with. */
    heap: { type: 'string' },
    /** Counts (a)'s requests through proxies and Cumulo's statements; its times are no results. */
    count: { type: 'boolean', default: false },
  },
});
const counting = options.count ?? false;
const only = new Set((options.only ?? '').split(','));
const rounds = Number(options.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be an integer ≥ 1');
const small = options.small ?? false;
const SMALL_COUNT = small ? 100 : 1000;
const LARGE_SIZE = small ? 64 * MiB : GiB;
const PLAN_KEYS = Number(options.keys ?? (small ? 20_000 : 1_000_000));
const IDLE_MS = small ? 1000 : 5000;
const dataDir = path.join(repoRoot, 'bench/.data/transfer');

const SMALL_SETTINGS: WorkerSettings = { objectConcurrency: 32, jobsPerBatch: 2 };
const LARGE_SETTINGS: WorkerSettings = { objectConcurrency: 16, jobsPerBatch: 2 };
/** The copier's parts in flight per object and its smallest copy part (engine/object-copier.ts, methods/parallel-parts.ts). */
const LARGE_PARTS_IN_FLIGHT = 4;
const LARGE_PART_SIZE = 8 * MiB;
const PLAN_GOAL_MB = 100;

const rows: GoalRow[] = [];
const s = (seconds: number) => `${seconds.toFixed(2)} s`;
const mb = (value: number) => `${value.toFixed(1)} MB`;
const orderText = (round: number) => `round ${round + 1} (${round % 2 === 0 ? 'Cumulo' : 'rclone'} first)`;

function storeOf(endpoint: string): Promise<ObjectStore> {
  return createObjectStore({
    provider: 'genericS3',
    endpoint,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    forcePathStyle: true,
  });
}

/** Objects and bytes in a bucket, to check that every copy is complete before its time counts. */
async function contentsOf(endpoint: string, bucket: string) {
  const store = await storeOf(endpoint);
  let objects = 0;
  let bytes = 0;
  for await (const page of store.list(bucket)) {
    objects += page.objects.length;
    for (const object of page.objects) bytes += object.size;
  }
  await store.close();
  return { objects, bytes };
}

/** Removes every object of a bucket, so a repeated copy writes everything again (rclone skips what exists). */
async function emptyBuckets(endpoint: string, buckets: string[]) {
  const store = await storeOf(endpoint);
  for (const bucket of buckets) {
    for await (const page of store.list(bucket)) {
      if (page.objects.length)
        await store.deleteMany(
          bucket,
          page.objects.map((object) => object.key),
        );
    }
  }
  await store.close();
}

async function createBuckets(endpoint: string, names: string[]) {
  const store = await storeOf(endpoint);
  for (const name of names) await store.createBucket(name);
  await store.close();
}

async function freshServer(name: string): Promise<S3rverProcess> {
  const directory = path.join(dataDir, name);
  fs.rmSync(directory, { recursive: true, force: true });
  fs.mkdirSync(directory, { recursive: true });
  return startS3rverProcess(directory);
}

async function expectComplete(
  what: string,
  endpoint: string,
  bucket: string,
  expected: { objects: number; bytes: number },
) {
  const got = await contentsOf(endpoint, bucket);
  if (got.objects !== expected.objects || got.bytes !== expected.bytes) {
    throw new Error(
      `${what} is incomplete: ${JSON.stringify(got)} where ${JSON.stringify(expected)} was expected`,
    );
  }
}

/** One round of a copy case: both tools' runs and the floor's seconds (with its CPU, where it is a copy loop). */
interface CopyRound {
  cumulo: CumuloRun;
  peer: PeerRun;
  floor: { seconds: number; cpuSeconds: number };
}

/**
 * Runs `rounds` rounds, the tools taking turns going first (each into its own emptied bucket), then the floor.
 * Every copy is checked complete before its time counts.
 */
async function copyRounds(
  what: string,
  destination: { endpoint: string; buckets: { cumulo: string; rclone: string; floor: string } },
  expected: { objects: number; bytes: number },
  run: { cumulo: () => Promise<CumuloRun>; peer: () => Promise<PeerRun>; floor: () => Promise<number> },
): Promise<CopyRound[]> {
  const { endpoint, buckets } = destination;
  const done: CopyRound[] = [];
  for (let round = 0; round < rounds; round++) {
    await emptyBuckets(endpoint, [buckets.cumulo, buckets.rclone, buckets.floor]);
    let cumulo: CumuloRun | null = null;
    let peer: PeerRun | null = null;
    for (const tool of turnOrder(round, 'cumulo', 'rclone')) {
      if (tool === 'cumulo') {
        cumulo = await run.cumulo();
        if (cumulo.failed > 0) throw new Error(`Cumulo ${what}: ${cumulo.failed} items failed`);
        await expectComplete(`Cumulo ${what}`, endpoint, buckets.cumulo, expected);
      } else {
        peer = await run.peer();
        await expectComplete(`rclone ${what}`, endpoint, buckets.rclone, expected);
      }
    }
    const ownCpu = process.cpuUsage();
    const seconds = await run.floor();
    const loopCpu = process.cpuUsage(ownCpu);
    await expectComplete(`the floor of ${what}`, endpoint, buckets.floor, expected);
    if (!cumulo || !peer) throw new Error(`${what}: a tool did not run`);
    done.push({ cumulo, peer, floor: { seconds, cpuSeconds: (loopCpu.user + loopCpu.system) / 1e6 } });
    console.log(
      `${what} ${orderText(round)}: Cumulo ${s(cumulo.seconds)}, rclone ${s(peer.seconds)}, floor ${s(seconds)}`,
    );
  }
  return done;
}

const medianOf = (runs: CopyRound[], pick: (round: CopyRound) => number) => median(runs.map(pick));
const cumuloCpu = (round: CopyRound) => round.cumulo.cpuSeconds + round.cumulo.postgresCpuSeconds;

/**
 * A time row against rclone. Its floor is the cheaper of the floor copy and rclone itself: a goal of 1.0 × rclone
 * is one rclone meets, so it is BOUND only when the cheapest copy measured here misses it as well.
 */
function timeRow(name: string, runs: CopyRound[], floorName: string): GoalRow {
  const cumulo = medianOf(runs, (round) => round.cumulo.seconds);
  const peer = medianOf(runs, (round) => round.peer.seconds);
  const floor = medianOf(runs, (round) => round.floor.seconds);
  return {
    name: `${name} time`,
    figure: cumulo / peer,
    goal: { direction: 'at most', value: 1.0 },
    unit: "× rclone's time",
    detail: `Cumulo ${s(cumulo)}, rclone ${s(peer)}, ${floorName} ${s(floor)}`,
    floor: {
      figure: Math.min(floor, peer) / peer,
      what: floor < peer ? floorName : `rclone (faster than ${floorName} here)`,
    },
    rounds: runs.map(
      (round, index) =>
        `${orderText(index)}: Cumulo ${s(round.cumulo.seconds)} (first copy after ${s(round.cumulo.firstCopyAfter)}, ` +
        `batch finished ${s(round.cumulo.finalizedAfterLast)} after the last item), rclone ${s(round.peer.seconds)}, ` +
        `${floorName} ${s(round.floor.seconds)}: ${(round.cumulo.seconds / round.peer.seconds).toFixed(2)}`,
    ),
  };
}

/** Cumulo's throughput as a fraction of the bare loop's: relative to the floor itself, so no bound below it. */
function throughputRow(name: string, runs: CopyRound[], goal: number): GoalRow {
  const cumulo = medianOf(runs, (round) => round.cumulo.seconds);
  const floor = medianOf(runs, (round) => round.floor.seconds);
  return {
    name: `${name} throughput`,
    figure: floor / cumulo,
    goal: { direction: 'at least', value: goal },
    unit: "× the bare loop's",
    detail: `Cumulo ${s(cumulo)}, bare copy loop ${s(floor)} for the same bytes`,
    rounds: runs.map(
      (round, index) =>
        `${orderText(index)}: Cumulo ${s(round.cumulo.seconds)}, bare loop ${s(round.floor.seconds)}: ` +
        `${(round.floor.seconds / round.cumulo.seconds).toFixed(2)}`,
    ),
  };
}

/** The worker's peak RSS against rclone's; the floor is a Node process holding only the worker's packages. */
function rssRow(name: string, runs: CopyRound[], goal: number, packagesFloorMb: number): GoalRow {
  const cumulo = medianOf(runs, (round) => round.cumulo.peakRssMb);
  const peer = medianOf(runs, (round) => round.peer.peakRssMb);
  return {
    name: `${name} peak RSS`,
    figure: cumulo / peer,
    goal: { direction: 'at most', value: goal },
    unit: "× rclone's peak RSS",
    detail: `Cumulo worker ${mb(cumulo)}, rclone ${mb(peer)}, the worker's packages alone ${mb(packagesFloorMb)}`,
    floor: {
      figure: packagesFloorMb / peer,
      what: `a Node process holding only the worker's indispensable packages (${WORKER_PACKAGES.join(', ')}), ${FLOOR_WORK}, idle, before any copy: ${mb(packagesFloorMb)}`,
    },
    rounds: runs.map(
      (round, index) =>
        `${orderText(index)}: Cumulo worker ${mb(round.cumulo.peakRssMb)}, rclone ${mb(round.peer.peakRssMb)}: ` +
        `${(round.cumulo.peakRssMb / round.peer.peakRssMb).toFixed(2)}`,
    ),
  };
}

/** CPU seconds of the worker and its PostgreSQL against rclone's; the floor is the cheaper of the bare loop and rclone. */
function cpuRow(name: string, runs: CopyRound[], goal: number): GoalRow {
  const cumulo = medianOf(runs, cumuloCpu);
  const peer = medianOf(runs, (round) => round.peer.cpuSeconds);
  const floor = medianOf(runs, (round) => round.floor.cpuSeconds);
  return {
    name: `${name} CPU`,
    figure: cumulo / peer,
    goal: { direction: 'at most', value: goal },
    unit: "× rclone's CPU seconds",
    detail:
      `Cumulo worker + PostgreSQL ${s(cumulo)} (worker ${s(medianOf(runs, (round) => round.cumulo.cpuSeconds))}, ` +
      `PostgreSQL ${s(medianOf(runs, (round) => round.cumulo.postgresCpuSeconds))}), rclone ${s(peer)}, ` +
      `bare copy loop ${s(floor)}`,
    floor: {
      figure: Math.min(floor, peer) / peer,
      what: floor < peer ? 'the bare copy loop' : 'rclone (less CPU than the bare copy loop here)',
    },
    rounds: runs.map(
      (round, index) =>
        `${orderText(index)}: Cumulo worker ${s(round.cumulo.cpuSeconds)} + PostgreSQL ` +
        `${s(round.cumulo.postgresCpuSeconds)}, rclone ${s(round.peer.cpuSeconds)}, bare loop ` +
        `${s(round.floor.cpuSeconds)}; s3rvers for Cumulo ${s(round.cumulo.serverCpuSeconds)}, machine ` +
        `${s(round.cumulo.machineCpuSeconds)}: ${(cumuloCpu(round) / round.peer.cpuSeconds).toFixed(2)}`,
    ),
  };
}

/** A tool's requests to both ends, by S3 operation, as one line: `GetObject 1000 + 0, PutObject 0 + 1000, …`. */
function requestsText(source: RequestCounts, destination: RequestCounts): string {
  const used = S3_OPERATIONS.filter((operation) => source[operation] + destination[operation] > 0);
  return (
    `${totalOf(source) + totalOf(destination)} requests (source + destination): ` +
    used.map((operation) => `${operation} ${source[operation]} + ${destination[operation]}`).join(', ')
  );
}

/**
 * Runs a copy and prints what it cost the two s3rvers in CPU seconds (are they slower on one tool's requests?) and,
 * with proxies (--count), what it asked of each end.
 */
async function observedCopy<T>(
  tool: string,
  servers: Array<{ pid: number | undefined }>,
  proxies: { source: CountingProxy; destination: CountingProxy } | null,
  copy: () => Promise<T>,
): Promise<T> {
  proxies?.source.reset();
  proxies?.destination.reset();
  const serverCpu = cpuMeter(servers);
  const result = await copy();
  const requests = proxies ? `, ${requestsText(proxies.source.counts(), proxies.destination.counts())}` : '';
  console.log(`  ${tool}: the s3rvers spent ${s(serverCpu().processes)} of CPU${requests}`);
  return result;
}

/** (b) or (b'): two large objects across endpoints, with their time, throughput and memory rows. */
async function largeAcross(
  cumulo: CumuloBench,
  name: string,
  seed: { directory: string; objects: number; bytes: number },
  bucket: string,
  packagesFloorMb: number,
) {
  const source = await startS3rverProcess(seed.directory);
  const destination = await freshServer('large-destination');
  try {
    await createBuckets(destination.endpoint, ['rclone', 'cumulo', 'bare-copy']);
    const sourceId = await cumulo.connectS3rver(`source of ${name}`, source.endpoint);
    const destinationId = await cumulo.connectS3rver(`destination of ${name}`, destination.endpoint);
    const runs = await copyRounds(
      name,
      { endpoint: destination.endpoint, buckets: { cumulo: 'cumulo', rclone: 'rclone', floor: 'bare-copy' } },
      { objects: seed.objects, bytes: seed.bytes },
      {
        cumulo: () =>
          cumulo.copy(
            {
              sourceCloudAccountId: sourceId,
              sourceBucket: bucket,
              destinationCloudAccountId: destinationId,
              destinationBucket: 'cumulo',
            },
            LARGE_SETTINGS,
            [source, destination],
          ),
        peer: () =>
          rcloneCopy(
            { endpoint: source.endpoint, bucket },
            { endpoint: destination.endpoint, bucket: 'rclone' },
          ),
        floor: () =>
          bareCopiesInParts(
            { endpoint: source.endpoint, bucket },
            { endpoint: destination.endpoint, bucket: 'bare-copy' },
            largeKeys(),
            LARGE_PART_SIZE,
            LARGE_PARTS_IN_FLIGHT,
          ),
      },
    );
    const floorName = `the bare copy loop (${LARGE_PART_SIZE / MiB} MiB parts, ${LARGE_PARTS_IN_FLIGHT} per object)`;
    rows.push(
      timeRow(name, runs, floorName),
      throughputRow(name, runs, 0.85),
      rssRow(name, runs, 0.75, packagesFloorMb),
    );
  } finally {
    await source.stop();
    await destination.stop();
  }
}

async function main() {
  fs.mkdirSync(dataDir, { recursive: true });
  const cumulo = await CumuloBench.start(path.join(dataDir, 'cumulo'), { countStatements: counting });
  const sizes = `${SMALL_COUNT} × 64 KiB`;
  const large = LARGE_SIZE === GiB ? '2 × 1 GiB' : `2 × ${LARGE_SIZE / MiB} MiB`;
  try {
    // The floor of every worker's memory: a Node process with the worker's flags and its packages alone, connected
    // and polling its queues as an idle worker does.
    let packagesFloorMb = Number.NaN;
    if (only.has('idle') || only.has('a') || only.has('b') || only.has('p')) {
      const floors = await floorReadings(rounds, IDLE_MS, cumulo.databaseUrl);
      packagesFloorMb = median(floors.map((reading) => reading.rssMb));
      console.log(
        `the worker's packages alone (${FLOOR_WORK}), idle ${IDLE_MS / 1000} s: RSS ${floors.map((f) => mb(f.rssMb)).join(', ')}`,
      );
    }

    if (only.has('idle')) {
      // Before any account is connected: nothing is queued, so the worker idles as a fresh deployment's does.
      const readings = await idleWorkerReadings(cumulo.workerEnv, rounds, IDLE_MS);
      const rss = median(readings.map((reading) => reading.rssMb));
      rows.push({
        name: `idle worker RSS (${IDLE_MS / 1000} s after its handlers are registered)`,
        figure: rss,
        goal: { direction: 'at most', value: IDLE_GOAL_MB },
        unit: 'MB',
        detail: `worker ${mb(rss)}, the worker's packages alone ${mb(packagesFloorMb)}`,
        floor: {
          figure: packagesFloorMb,
          what: `a Node process holding only the worker's indispensable packages (${WORKER_PACKAGES.join(', ')}), ${FLOOR_WORK}`,
        },
        rounds: readings.map(
          (reading, index) =>
            `round ${index + 1}: RSS ${mb(reading.rssMb)}, peak RSS ${mb(reading.hwmMb)}, ready after ${s(reading.readyMs / 1000)}`,
        ),
      });
    }

    if (only.has('a')) {
      const name = `(a) ${sizes} across endpoints`;
      const seed = await seedSmall(path.join(dataDir, 'seeds'), SMALL_COUNT);
      const source = await startS3rverProcess(seed.directory);
      const destination = await freshServer('small-destination');
      // --count: every tool reaches the s3rvers through a counting proxy each.
      const proxies = counting
        ? {
            source: await startCountingProxy(source.endpoint),
            destination: await startCountingProxy(destination.endpoint),
          }
        : null;
      const via = { source: proxies?.source ?? source, destination: proxies?.destination ?? destination };
      const counted = <T>(tool: string, copy: () => Promise<T>) =>
        observedCopy(tool, [source, destination], proxies, copy);
      try {
        await createBuckets(destination.endpoint, ['rclone', 'cumulo', 'bare-copy']);
        const sourceId = await cumulo.connectS3rver('small source', via.source.endpoint);
        const destinationId = await cumulo.connectS3rver('small destination', via.destination.endpoint);
        const inFlight = SMALL_SETTINGS.objectConcurrency * SMALL_SETTINGS.jobsPerBatch;
        const runs = await copyRounds(
          name,
          {
            endpoint: destination.endpoint,
            buckets: { cumulo: 'cumulo', rclone: 'rclone', floor: 'bare-copy' },
          },
          { objects: seed.objects, bytes: seed.bytes },
          {
            cumulo: () =>
              counted('Cumulo', async () => {
                const run = await cumulo.copy(
                  {
                    sourceCloudAccountId: sourceId,
                    sourceBucket: SMALL_BUCKET,
                    destinationCloudAccountId: destinationId,
                    destinationBucket: 'cumulo',
                  },
                  SMALL_SETTINGS,
                  [source, destination],
                );
                console.log(
                  `  Cumulo: ${run.jobs} jobs of the batch ran, each with ${SMALL_SETTINGS.objectConcurrency} objects in flight`,
                );
                if (run.statements) {
                  console.log(
                    `  Cumulo's database statements (pg_stat_statements): ${run.statements.total}, ` +
                      `${run.statements.ms.toFixed(0)} ms executing, ${run.statements.planMs.toFixed(0)} ms planning ` +
                      '(calls, ms executing, ms planning, statement)',
                  );
                  for (const { calls, ms, planMs, query } of run.statements.top)
                    console.log(
                      `    ${String(calls).padStart(5)} ${ms.toFixed(0).padStart(6)} ${planMs.toFixed(0).padStart(5)} ${query.slice(0, 130)}`,
                    );
                }
                return run;
              }),
            peer: () =>
              counted('rclone', () =>
                rcloneCopy(
                  { endpoint: via.source.endpoint, bucket: SMALL_BUCKET },
                  { endpoint: via.destination.endpoint, bucket: 'rclone' },
                ),
              ),
            floor: () =>
              counted('the bare loop', () =>
                bareCopies(
                  { endpoint: via.source.endpoint, bucket: SMALL_BUCKET },
                  { endpoint: via.destination.endpoint, bucket: 'bare-copy' },
                  smallKeys(SMALL_COUNT),
                  inFlight,
                ),
              ),
          },
        );
        const floorName = `the bare copy loop (${inFlight} in flight)`;
        rows.push(
          timeRow(name, runs, floorName),
          throughputRow(name, runs, 0.75),
          cpuRow(name, runs, 1.5),
          rssRow(name, runs, 1.5, packagesFloorMb),
        );
      } finally {
        await proxies?.source.close();
        await proxies?.destination.close();
        await source.stop();
        await destination.stop();
      }
    }

    if (only.has('b')) {
      const seed = await seedLarge(path.join(dataDir, 'seeds'), LARGE_SIZE);
      await largeAcross(cumulo, `(b) ${large} across endpoints`, seed, LARGE_BUCKET, packagesFloorMb);
    }

    if (only.has('p')) {
      const seed = await seedLargeParts(path.join(dataDir, 'seeds'), LARGE_SIZE);
      await largeAcross(
        cumulo,
        `(b') ${large} uploaded in 5 MiB parts, across endpoints`,
        seed,
        LARGE_PARTS_BUCKET,
        packagesFloorMb,
      );
    }

    if (only.has('c')) {
      const name = `(c) ${large} within one endpoint`;
      const seed = await seedLarge(path.join(dataDir, 'seeds'), LARGE_SIZE);
      const source = await startS3rverProcess(seed.directory);
      const buckets = { cumulo: 'same-cumulo', rclone: 'same-rclone', floor: 'same-bare' };
      // The tools reach the s3rver through a counting proxy, so that each round shows both sent one server-side
      // copy per object and moved no bytes themselves (else the row would time another copy method).
      const proxy = await startCountingProxy(source.endpoint);
      const serverSide = async <T>(tool: string, copy: () => Promise<T>): Promise<T> => {
        proxy.reset();
        const result = await copy();
        const counts = proxy.counts();
        const moved = counts.GetObject + counts.PutObject + counts.UploadPart + counts.UploadPartCopy;
        if (counts.CopyObject !== seed.objects || moved > 0)
          throw new Error(
            `${tool} (c) did not send one CopyObject per object: ${counts.CopyObject} CopyObject, ` +
              `${counts.GetObject} GetObject, ${counts.PutObject} PutObject, ${counts.UploadPart} UploadPart, ` +
              `${counts.UploadPartCopy} UploadPartCopy`,
          );
        return result;
      };
      try {
        await createBuckets(source.endpoint, Object.values(buckets));
        const sourceId = await cumulo.connectS3rver('same-endpoint source', proxy.endpoint);
        // Whichever tool copies second pays for the first one's gigabytes still being written back (measured:
        // 1.8× longer): every run starts from a settled disk, and the tools take turns going first.
        const runs = await copyRounds(
          name,
          { endpoint: source.endpoint, buckets },
          { objects: seed.objects, bytes: seed.bytes },
          {
            cumulo: () =>
              serverSide('Cumulo', () =>
                cumulo.copy(
                  {
                    sourceCloudAccountId: sourceId,
                    sourceBucket: LARGE_BUCKET,
                    destinationCloudAccountId: sourceId,
                    destinationBucket: buckets.cumulo,
                  },
                  LARGE_SETTINGS,
                  [source],
                ),
              ),
            peer: () =>
              serverSide('rclone', () =>
                rcloneCopy(
                  { endpoint: proxy.endpoint, bucket: LARGE_BUCKET },
                  { endpoint: proxy.endpoint, bucket: buckets.rclone },
                  { sameRemote: true },
                ),
              ),
            floor: () =>
              serverSide('the bare loop', () =>
                bareServerSideCopies(
                  { endpoint: proxy.endpoint, bucket: LARGE_BUCKET },
                  { endpoint: proxy.endpoint, bucket: buckets.floor },
                  largeKeys(),
                ),
              ),
          },
        );
        rows.push(timeRow(name, runs, 'a bare CopyObject per object, both at once'));
      } finally {
        await proxy.close();
        await source.stop();
        // The same-endpoint copies were written into the cached seed: take them out again.
        for (const bucket of Object.values(buckets))
          fs.rmSync(path.join(seed.directory, bucket), { recursive: true, force: true });
      }
    }

    if (only.has('d')) {
      const answers = [];
      const bundle = await planBundle();
      for (let round = 0; round < rounds; round++) {
        const answer = await planChild(bundle, cumulo, PLAN_KEYS);
        if (answer.planned !== PLAN_KEYS)
          throw new Error(`(d) planned ${answer.planned} items of ${PLAN_KEYS} keys`);
        answers.push(answer);
      }
      const peak = median(answers.map((answer) => answer.peakRssMb));
      const before = median(answers.map((answer) => answer.rssBeforeMb));
      rows.push({
        name: `(d) planning ${PLAN_KEYS} keys (listing stub) peak RSS`,
        figure: peak,
        goal: { direction: 'at most', value: PLAN_GOAL_MB },
        unit: 'MB',
        detail: `peak ${mb(peak)}, ${mb(before)} before planning, ${s(median(answers.map((answer) => answer.seconds)))}`,
        floor: {
          figure: before,
          what: "the planning process's RSS before it plans (Node, the planner's modules, the S3 adapter)",
        },
        rounds: answers.map(
          (answer, index) =>
            `round ${index + 1}: peak RSS ${mb(answer.peakRssMb)}, ${mb(answer.rssBeforeMb)} before planning, ` +
            `${answer.planned} items in ${s(answer.seconds)}`,
        ),
      });
    }
  } finally {
    await cumulo.close();
  }
  printTable(
    `bench/transfer: issue 29's table, medians of ${rounds} round${rounds === 1 ? '' : 's'}` +
      (small ? ' (--small: a smoke run of the bench, not results)' : ''),
    rows,
  );
}

/** The planning child, built once for every round. */
async function planBundle(): Promise<string> {
  const outdir = path.join(dataDir, 'plan-bundle');
  await bundleServer({ entryPoints: [path.join(repoRoot, 'bench/transfer/plan-million.ts')], outdir });
  return path.join(outdir, 'plan-million.js');
}

/**
 * Plans in its own process, built and started the way the server is deployed (scripts/build-server.mjs: plain
 * JavaScript run by Node with `serverNodeFlags`, no TypeScript compiler loaded), so its peak RSS is what a worker
 * planning the batch would hold.
 */
async function planChild(bundle: string, cumulo: CumuloBench, keys: number) {
  const { spawn } = await import('node:child_process');
  const child = spawn(
    process.execPath,
    [
      ...serverNodeFlags,
      ...(options.heap ? [`--max-old-space-size=${options.heap}`] : []),
      bundle,
      cumulo.databaseUrl,
      cumulo.principal.organizationId,
      String(keys),
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the planning process exited ${code}`);
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
    seconds: number;
    peakRssMb: number;
    rssBeforeMb: number;
    planned: number;
  };
}

await main();

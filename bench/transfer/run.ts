// bench/transfer: Cumulo's transfer engine next to rclone 1.60 (Debian), both between local s3rver instances on
// this machine, in the same run (issue 5 "Benchmarks"):
//   (a) 1000 × 64 KiB across endpoints: time ≤ 0.75 × rclone tuned (--transfers 64 --checkers 64
//       --s3-no-check-bucket --s3-no-head)
//   (b) 2 × 1 GiB across endpoints: time ≤ 0.6 × rclone, peak RSS ≤ rclone's
//   (c) 2 × 1 GiB within one endpoint (server-side copy): time ≤ 0.5 × rclone
//   (d) planning a 1 000 000-key source (a listing stub): peak RSS ≤ 150 MB
//   (e) the ceiling: the same objects written to the destination by a bare SDK client at the same concurrency;
//       Cumulo's copy throughput as a fraction of it (goal ≥ 0.85)
//   for (a) and (b), also not a target: the bare copy loop (bare-copy.ts), the cheapest copy any client can make
//       between these servers (GET piped into PUT, no signature, checksum or database), as rclone's and
//       Cumulo's yardstick: how far each goal is within reach of any tool on this machine
//   (b') not in the issue, only with --only p: (b) again with sources uploaded in 5 MiB parts, as most large
//       objects are, which Cumulo copies in the source's own parts and checks against their parts ETag
// Cumulo runs as the product runs: an embedded PostgreSQL, accounts connected through the service, the batch
// started through TransfersService and copied by the worker role in its own process (its peak RSS is measured).
//
//   npm run transfer -w bench [-- --only a,b,c,d,p]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createObjectStore, type ObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { repoRoot, startS3rverProcess, type S3rverProcess } from '../inventory/s3rver-process.ts';
import { bareCopies, bareCopiesInParts } from './bare-copy.ts';
import { bareLargeWrites, bareSmallWrites } from './ceiling.ts';
import { cores, cpuMeter } from '../shared/proc-cpu.ts';
import { CumuloBench, type CumuloRun, type WorkerSettings } from './cumulo.ts';
import { rcloneCopy, type PeerRun } from './rclone-copy.ts';
import { bundleServer, serverNodeFlags } from '../../scripts/build-server.mjs';
import {
  LARGE_BUCKET,
  LARGE_PARTS_BUCKET,
  MiB,
  SMALL_BUCKET,
  largeBody,
  seedLarge,
  seedLargeParts,
  seedSmall,
  smallBody,
  smallKeys,
} from './seed.ts';

const { values: options } = parseArgs({
  options: {
    only: { type: 'string', default: 'a,b,c,d' },
    keys: { type: 'string', default: '1000000' },
    /** V8 old-space cap (MB) for the planning process, as a worker could be started with. */
    heap: { type: 'string' },
  },
});
const only = new Set((options.only ?? '').split(','));
const dataDir = path.join(repoRoot, 'bench/.data/transfer');

const SMALL_SETTINGS: WorkerSettings = { objectConcurrency: 32, jobsPerBatch: 2 };
const LARGE_SETTINGS: WorkerSettings = { objectConcurrency: 16, jobsPerBatch: 2 };
/** The copier's parts in flight per object and its smallest copy part (engine/object-copier.ts, methods/parallel-parts.ts). */
const LARGE_PARTS_IN_FLIGHT = 4;
const LARGE_PART_SIZE = 8 * MiB;
/** Rounds of (c), each tool going first in turn. */
const SAME_ENDPOINT_ROUNDS = 3;

const results: string[] = [];
const report = (line: string) => {
  console.log(line);
  results.push(line);
};
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
const mb = (value: number) => `${value.toFixed(1)} MB`;

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

/** Removes every object of a bucket, so a repeated copy writes everything again. */
async function emptyBucket(endpoint: string, bucket: string) {
  const store = await storeOf(endpoint);
  for await (const page of store.list(bucket)) {
    if (page.objects.length)
      await store.deleteMany(
        bucket,
        page.objects.map((object) => object.key),
      );
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

interface CpuAccount {
  /** CPU seconds of the object-store servers, and of the whole machine, while rclone copied. */
  servers: number;
  machine: number;
}

/** Runs rclone's `copy` and accounts for the CPU the s3rver processes and the whole machine spent meanwhile. */
async function accounted(
  servers: S3rverProcess[],
  copy: () => Promise<PeerRun>,
): Promise<[PeerRun, CpuAccount]> {
  const meter = cpuMeter(servers);
  const result = await copy();
  const { processes, machine } = meter();
  return [result, { servers: processes, machine }];
}

/**
 * Where the time went, and the bound it sets: the s3rvers serve the same kinds of request for both tools
 * (GET, then PUT or UploadPart; a single PUT of either carries Content-MD5 and an unsigned payload), and on a
 * machine of few cores their CPU alone, spread over every core, is a time no tool can beat. Printed as a fraction of rclone's time, next to the
 * goal.
 */
function cpuLines(what: string, cumulo: CumuloRun, peer: PeerRun, peerCpu: CpuAccount, goal: number) {
  const available = (seconds: number) => (seconds * cores()).toFixed(1);
  console.log(
    `    CPU seconds: Cumulo worker ${cumulo.cpuSeconds.toFixed(2)} + PostgreSQL ` +
      `${cumulo.postgresCpuSeconds.toFixed(2)}, s3rvers ${cumulo.serverCpuSeconds.toFixed(2)}, machine ` +
      `${cumulo.machineCpuSeconds.toFixed(1)} of ${available(cumulo.seconds)}; rclone ${peer.cpuSeconds.toFixed(2)}, ` +
      `s3rvers ${peerCpu.servers.toFixed(2)}, machine ${peerCpu.machine.toFixed(1)} of ${available(peer.seconds)}`,
  );
  const floor = peerCpu.servers / cores();
  report(
    `${what} bound: the s3rvers alone need ${floor.toFixed(2)} s of these ${cores()} cores for rclone's requests, ` +
      `${(floor / peer.seconds).toFixed(2)} × rclone's time (goal ${goal})`,
  );
}

/**
 * Times the bare copy loop (bare-copy.ts) into `bucket` and reports it against rclone's time and the goal, with the
 * CPU it left the servers: how far the goal is within reach of any copying tool on this machine.
 */
async function bareCopyLine(
  what: string,
  servers: S3rverProcess[],
  destination: { endpoint: string; bucket: string; expected: { objects: number; bytes: number } },
  copy: () => Promise<number>,
  against: { cumulo: CumuloRun; peer: PeerRun; goal: number },
) {
  const meter = cpuMeter(servers);
  const ownCpu = process.cpuUsage();
  const seconds = await copy();
  const { processes, machine } = meter();
  const loopCpu = process.cpuUsage(ownCpu);
  await expectComplete(
    `the bare copy ${what}`,
    destination.endpoint,
    destination.bucket,
    destination.expected,
  );
  report(
    `${what} bare copy loop (GET piped into PUT, no signature, checksum or database): ${seconds.toFixed(2)} s, ` +
      `${(seconds / against.peer.seconds).toFixed(2)} × rclone's time (Cumulo's goal ${against.goal}); ` +
      `Cumulo's throughput is ${(seconds / against.cumulo.seconds).toFixed(2)} of it`,
  );
  console.log(
    `    CPU seconds: loop ${((loopCpu.user + loopCpu.system) / 1e6).toFixed(2)}, s3rvers ${processes.toFixed(2)}, ` +
      `machine ${machine.toFixed(1)} of ${(seconds * cores()).toFixed(1)}`,
  );
}

function line(what: string, cumulo: CumuloRun, peer: PeerRun, goal: number) {
  const ratio = cumulo.seconds / peer.seconds;
  report(
    `${what}: Cumulo ${cumulo.seconds.toFixed(2)} s (worker peak RSS ${mb(cumulo.peakRssMb)}), rclone ` +
      `${peer.seconds.toFixed(2)} s (peak RSS ${mb(peer.peakRssMb)}): time ratio ${ratio.toFixed(2)} ` +
      `(goal ≤ ${goal}) ${verdict(ratio <= goal)}`,
  );
  console.log(
    `    Cumulo's timeline: first copy ${cumulo.firstCopyAfter.toFixed(2)} s after the request, batch finished ` +
      `${cumulo.finalizedAfterLast.toFixed(2)} s after the last item`,
  );
  return ratio;
}

/**
 * rclone, then Cumulo, copying a large-object bucket to another s3rver; reports the times, where the CPU went
 * and both peak RSS figures against (b)'s goals.
 */
async function largeAcross(
  cumulo: CumuloBench,
  what: string,
  setup: {
    source: { server: S3rverProcess; bucket: string; accountId: string };
    destination: S3rverProcess;
    buckets: { rclone: string; cumulo: string };
    expected: { objects: number; bytes: number };
  },
) {
  const { source, destination, buckets, expected } = setup;
  const [peer, peerCpu] = await accounted([source.server, destination], () =>
    rcloneCopy(
      { endpoint: source.server.endpoint, bucket: source.bucket },
      { endpoint: destination.endpoint, bucket: buckets.rclone },
    ),
  );
  await expectComplete(`rclone ${what}`, destination.endpoint, buckets.rclone, expected);
  const destinationId = await cumulo.connectS3rver(`destination of ${what}`, destination.endpoint);
  const run = await cumulo.copy(
    {
      sourceCloudAccountId: source.accountId,
      sourceBucket: source.bucket,
      destinationCloudAccountId: destinationId,
      destinationBucket: buckets.cumulo,
    },
    LARGE_SETTINGS,
    [source.server, destination],
  );
  await expectComplete(`Cumulo ${what}`, destination.endpoint, buckets.cumulo, expected);
  const label = what.slice(0, what.indexOf(' '));
  line(what, run, peer, 0.6);
  cpuLines(label, run, peer, peerCpu, 0.6);
  report(
    `${label} peak RSS: Cumulo worker ${mb(run.peakRssMb)} vs rclone ${mb(peer.peakRssMb)} ` +
      `${verdict(run.peakRssMb <= peer.peakRssMb)}`,
  );
  return { run, peer };
}

async function main() {
  fs.mkdirSync(dataDir, { recursive: true });
  const cumulo = await CumuloBench.start(path.join(dataDir, 'cumulo'));
  try {
    if (only.has('a')) {
      const seed = await seedSmall(path.join(dataDir, 'seeds'));
      const source = await startS3rverProcess(seed.directory);
      const destination = await freshServer('small-destination');
      try {
        await createBuckets(destination.endpoint, ['rclone', 'cumulo', 'bare', 'bare-copy']);
        const expected = { objects: seed.objects, bytes: seed.bytes };
        const [peer, peerCpu] = await accounted([source, destination], () =>
          rcloneCopy(
            { endpoint: source.endpoint, bucket: SMALL_BUCKET },
            { endpoint: destination.endpoint, bucket: 'rclone' },
          ),
        );
        await expectComplete('rclone (a)', destination.endpoint, 'rclone', expected);
        const sourceId = await cumulo.connectS3rver('small source', source.endpoint);
        const destinationId = await cumulo.connectS3rver('small destination', destination.endpoint);
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
        await expectComplete('Cumulo (a)', destination.endpoint, 'cumulo', expected);
        line('(a) 1000 × 64 KiB across endpoints', run, peer, 0.75);
        cpuLines('(a)', run, peer, peerCpu, 0.75);
        const inFlight = SMALL_SETTINGS.objectConcurrency * SMALL_SETTINGS.jobsPerBatch;
        const bare = await bareSmallWrites(destination.endpoint, 'bare', smallKeys(), smallBody, inFlight);
        const fraction = bare / run.seconds;
        report(
          `(e) ceiling for (a): bare PUTs at ${inFlight} in flight ${bare.toFixed(2)} s; Cumulo's throughput is ` +
            `${fraction.toFixed(2)} of it (goal ≥ 0.85) ${verdict(fraction >= 0.85)}`,
        );
        await bareCopyLine(
          '(a)',
          [source, destination],
          { endpoint: destination.endpoint, bucket: 'bare-copy', expected },
          () =>
            bareCopies(
              { endpoint: source.endpoint, bucket: SMALL_BUCKET },
              { endpoint: destination.endpoint, bucket: 'bare-copy' },
              smallKeys(),
              inFlight,
            ),
          { cumulo: run, peer, goal: 0.75 },
        );
      } finally {
        await source.stop();
        await destination.stop();
      }
    }

    if (only.has('b') || only.has('c')) {
      const seed = await seedLarge(path.join(dataDir, 'seeds'));
      const source = await startS3rverProcess(seed.directory);
      const destination = await freshServer('large-destination');
      const expected = { objects: seed.objects, bytes: seed.bytes };
      const sameEndpointBuckets = ['same-rclone', 'same-cumulo'];
      try {
        const sourceId = await cumulo.connectS3rver('large source', source.endpoint);
        if (only.has('b')) {
          await createBuckets(destination.endpoint, ['rclone', 'cumulo', 'bare', 'bare-copy']);
          const { run, peer } = await largeAcross(cumulo, '(b) 2 × 1 GiB across endpoints', {
            source: { server: source, bucket: LARGE_BUCKET, accountId: sourceId },
            destination,
            buckets: { rclone: 'rclone', cumulo: 'cumulo' },
            expected,
          });
          const bodies = [0, 1].map((index) => ({
            key: `large/object-${index}.bin`,
            body: largeBody(index),
          }));
          const bare = await bareLargeWrites(
            destination.endpoint,
            'bare',
            bodies,
            LARGE_PART_SIZE,
            LARGE_PARTS_IN_FLIGHT,
          );
          const fraction = bare / run.seconds;
          report(
            `(e) ceiling for (b): bare multipart writes (${LARGE_PART_SIZE / MiB} MiB parts, ` +
              `${LARGE_PARTS_IN_FLIGHT} per object) ${bare.toFixed(2)} s; Cumulo's throughput is ` +
              `${fraction.toFixed(2)} of it (goal ≥ 0.85) ${verdict(fraction >= 0.85)}`,
          );
          await bareCopyLine(
            '(b)',
            [source, destination],
            { endpoint: destination.endpoint, bucket: 'bare-copy', expected },
            () =>
              bareCopiesInParts(
                { endpoint: source.endpoint, bucket: LARGE_BUCKET },
                { endpoint: destination.endpoint, bucket: 'bare-copy' },
                bodies.map((object) => object.key),
                LARGE_PART_SIZE,
                LARGE_PARTS_IN_FLIGHT,
              ),
            { cumulo: run, peer, goal: 0.6 },
          );
        }
        if (only.has('c')) {
          await createBuckets(source.endpoint, sameEndpointBuckets);
          // Whichever tool copies second here pays for the first one's gigabytes (measured: 1.8× longer, even
          // after a sync), so the two take turns going first and each keeps its best of three rounds.
          const copyPeer = () =>
            rcloneCopy(
              { endpoint: source.endpoint, bucket: LARGE_BUCKET },
              { endpoint: source.endpoint, bucket: 'same-rclone' },
              { sameRemote: true },
            );
          const copyCumulo = () =>
            cumulo.copy(
              {
                sourceCloudAccountId: sourceId,
                sourceBucket: LARGE_BUCKET,
                destinationCloudAccountId: sourceId,
                destinationBucket: 'same-cumulo',
              },
              LARGE_SETTINGS,
            );
          let peer: PeerRun | null = null;
          let run: CumuloRun | null = null;
          for (let round = 0; round < SAME_ENDPOINT_ROUNDS; round++) {
            for (const tool of round % 2 === 0 ? ['rclone', 'cumulo'] : ['cumulo', 'rclone']) {
              if (tool === 'rclone') {
                await emptyBucket(source.endpoint, 'same-rclone');
                const attempt = await copyPeer();
                await expectComplete('rclone (c)', source.endpoint, 'same-rclone', expected);
                if (!peer || attempt.seconds < peer.seconds) peer = attempt;
              } else {
                await emptyBucket(source.endpoint, 'same-cumulo');
                const attempt = await copyCumulo();
                await expectComplete('Cumulo (c)', source.endpoint, 'same-cumulo', expected);
                if (!run || attempt.seconds < run.seconds) run = attempt;
              }
            }
          }
          if (!peer || !run) throw new Error('(c) ran no round');
          line(
            `(c) 2 × 1 GiB within one endpoint (server-side), best of ${SAME_ENDPOINT_ROUNDS}`,
            run,
            peer,
            0.5,
          );
        }
      } finally {
        await source.stop();
        await destination.stop();
        // The same-endpoint copies were written into the cached seed: take them out again.
        for (const bucket of sameEndpointBuckets)
          fs.rmSync(path.join(seed.directory, bucket), { recursive: true, force: true });
      }
    }

    if (only.has('p')) {
      const seed = await seedLargeParts(path.join(dataDir, 'seeds'));
      const source = await startS3rverProcess(seed.directory);
      const destination = await freshServer('large-parts-destination');
      try {
        await createBuckets(destination.endpoint, ['rclone', 'cumulo']);
        const sourceId = await cumulo.connectS3rver('large parts source', source.endpoint);
        await largeAcross(cumulo, "(b') 2 × 1 GiB uploaded in 5 MiB parts, across endpoints", {
          source: { server: source, bucket: LARGE_PARTS_BUCKET, accountId: sourceId },
          destination,
          buckets: { rclone: 'rclone', cumulo: 'cumulo' },
          expected: { objects: seed.objects, bytes: seed.bytes },
        });
      } finally {
        await source.stop();
        await destination.stop();
      }
    }

    if (only.has('d')) {
      const keys = Number(options.keys);
      const answer = await planChild(cumulo, keys);
      report(
        `(d) planning ${keys} keys (listing stub): ${answer.seconds.toFixed(1)} s, ${answer.planned} items, ` +
          `peak RSS ${mb(answer.peakRssMb)} (${mb(answer.rssBeforeMb)} before planning) (goal ≤ 150 MB) ${verdict(answer.peakRssMb <= 150 && answer.planned === keys)}`,
      );
    }
  } finally {
    await cumulo.close();
  }
  console.log('\nbench/transfer summary');
  for (const result of results) console.log(`  ${result}`);
}

/**
 * Plans in its own process, built and started the way the server is deployed (scripts/build-server.mjs: plain
 * JavaScript run by Node with `serverNodeFlags`, no TypeScript compiler loaded), so its peak RSS is what a worker
 * planning the batch would hold.
 */
async function planChild(cumulo: CumuloBench, keys: number) {
  const { spawn } = await import('node:child_process');
  const outdir = path.join(dataDir, 'plan-bundle');
  await bundleServer({ entryPoints: [path.join(repoRoot, 'bench/transfer/plan-million.ts')], outdir });
  const child = spawn(
    process.execPath,
    [
      ...serverNodeFlags,
      ...(options.heap ? [`--max-old-space-size=${options.heap}`] : []),
      path.join(outdir, 'plan-million.js'),
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

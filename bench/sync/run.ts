// bench/sync: one incremental sync after a small change, Cumulo's replication cycle next to
// `rclone sync --checksum` (rclone 1.60, Debian) and next to the floor, between two local s3rver instances on this
// machine: issue 29's sync row. N × 4 KiB objects (20 000 by default) at both ends, then 2 % of them changed at the
// source (1 % rewritten at the same size, 0.5 % new, 0.5 % deleted); each tool syncs its own destination bucket,
// both prepared alike. Goals: Cumulo's time ≤ 0.9 × rclone's, and ≤ 1.2 × the floor: the time to list the source
// alone, with @cumulo/storage's S3 store (the client Cumulo's cycle lists with) through the same counting proxy,
// from the bench's process. Under both goals sits the minimal sync, the bound each row prints: that listing and, at
// the same time, the bare copy loop (bench/transfer/bare-copy.ts) of the changed and new keys and a bare DELETE of
// each deleted one, knowing the change beforehand; where even it misses a goal, the row says BOUND. Each figure is
// the median of --rounds rounds (3), each round prepared afresh; in round 1 Cumulo goes first, in round 2 rclone,
// and so on; the floors run after both. Each row prints its goal, its bound and a verdict (bench/shared/goal-table.ts), then every
// round's raw numbers.
// A counting proxy in front of each s3rver counts both tools' requests by S3 operation (Cumulo's diff must read no
// object metadata one by one: 0 HeadObject). Both destinations are checked against the source afterwards (keys and
// bytes); a wrong result fails the rows whatever the times.
// Cumulo runs as the product runs: embedded PostgreSQL, accounts connected through the service, the cycle
// started through the cycle service and advanced by the worker role in its own process. As in real use, its job
// has already run once before the change (untimed): that first cycle is a full check, listing both sides and
// building the job's state, so the timed cycle lists only the source and reads the destination from the state
// (a full check again only every SYNC_FULL_CHECK_DAYS). rclone keeps no state and needs none: it lists both.
//
//   npm run sync -w bench [-- --objects 20000] [--rounds 3] [--small] [--only rclone,cumulo]
//   --small syncs 1000 objects, a smoke run of the bench whose figures are no results.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot, startS3rverProcess, type S3rverProcess } from '../inventory/s3rver-process.ts';
import {
  S3_OPERATIONS,
  startCountingProxy,
  totalOf,
  type CountingProxy,
  type RequestCounts,
  type RequestWindows,
} from '../shared/counting-proxy.ts';
import { CumuloBench, type WorkerSettings } from '../transfer/cumulo.ts';
import { cycleCompleted, cycleNoChange, replicationJob, runCycle } from './cumulo-sync.ts';
import { rcloneSync } from './rclone-sync.ts';
import { changeOf, changeSource, seedSync, SYNC_BUCKET } from './seed.ts';
import { bareCopies, bareDeletes } from '../transfer/bare-copy.ts';
import { differences, type Side } from './verify.ts';
import type { SyncJobRow } from '@cumulo/server';
import { createObjectStore } from '@cumulo/storage';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { median, printTable, turnOrder, type GoalRow } from '../shared/goal-table.ts';
import { settleDisk } from '../shared/settle.ts';

const { values: options } = parseArgs({
  options: {
    objects: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    /** 1000 objects: a smoke run of the bench itself, whose figures are no results. */
    small: { type: 'boolean', default: false },
    only: { type: 'string', default: 'rclone,cumulo' },
  },
});
const objects = Number(options.objects ?? (options.small ? 1000 : 20_000));
if (!Number.isInteger(objects) || objects < 200) throw new Error('--objects must be an integer ≥ 200');
const rounds = Number(options.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be an integer ≥ 1');
const only = new Set((options.only ?? '').split(','));
const dataDir = path.join(repoRoot, 'bench/.data/sync');
/** As bench/transfer's small objects: 32 objects at once per job, two jobs per batch. */
const WORKER_SETTINGS: WorkerSettings = { objectConcurrency: 32, jobsPerBatch: 2 };
const GOAL_OF_RCLONE = 0.9;
const GOAL_OF_FLOOR = 1.2;
const FLOOR_WHAT =
  "listing the source alone (@cumulo/storage's S3 store, the client Cumulo's cycle lists with, through the same counting proxy)";
const MINIMAL_WHAT =
  'the minimal sync: listing the source while, at the same time, the bare copy loop (GET piped into PUT, 64 in ' +
  'flight, no signature or checksum) copies the changed and new keys and then sends a bare DELETE per deleted ' +
  'key, knowing the change beforehand (no diff, no database): a lower bound for any client, which must list the ' +
  'source and write the change through the same servers';
/** In flight in the minimal sync's copies and deletes, as Cumulo's worker copies (2 jobs × 32 objects). */
const MINIMAL_IN_FLIGHT = 64;

interface ToolRun {
  seconds: number;
  source: RequestCounts;
  destination: RequestCounts;
  problems: string[];
  /** When each side saw each operation, in seconds after the start. */
  timeline: string;
}

/**
 * One round: each tool's run (absent with --only), the floor (listing the source alone) and the minimal
 * sync: that listing plus the bare copy loop of the changed and new keys and a bare DELETE of each deleted one,
 * the cheapest sync a client that already knew the change could make.
 */
interface Round {
  rclone?: ToolRun;
  cumulo?: ToolRun & { peakRssMb: number; summary: string };
  floorSeconds: number;
  minimalSeconds: number;
}

/** A fresh s3rver root holding `buckets`, each a copy of the seed's bucket. */
function prepareRoot(name: string, seedDirectory: string, buckets: string[]): string {
  const root = path.join(dataDir, name);
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  for (const bucket of buckets) copyTree(path.join(seedDirectory, SYNC_BUCKET), path.join(root, bucket));
  return root;
}

/** `cp -R`: several times faster than fs.cpSync on 60 000 small files. */
function copyTree(from: string, to: string) {
  execFileSync('cp', ['-R', from, to]);
}

function countsTable(runs: Array<[string, ToolRun]>): string[] {
  const header = ['operation', ...runs.flatMap(([tool]) => [`${tool} src`, `${tool} dst`, `${tool} total`])];
  const rows = S3_OPERATIONS.filter(
    (operation) =>
      operation === 'HeadObject' ||
      runs.some(([, run]) => run.source[operation] + run.destination[operation] > 0),
  ).map((operation) => [
    operation,
    ...runs.flatMap(([, run]) => {
      const a = run.source[operation];
      const b = run.destination[operation];
      return [a, b, a + b].map(String);
    }),
  ]);
  rows.push([
    'all',
    ...runs.flatMap(([, run]) => {
      const a = totalOf(run.source);
      const b = totalOf(run.destination);
      return [a, b, a + b].map(String);
    }),
  ]);
  const widths = header.map((_, column) =>
    Math.max(...[header, ...rows].map((row) => (row[column] ?? '').length)),
  );
  const format = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  return [format(header), ...rows.map(format)];
}

/** "src ListObjectsV2 0.01–3.20, …": which requests ran when, on each side, from `start` (performance.now()). */
function timelineOf(start: number, sides: Array<[string, RequestWindows]>): string {
  const spans: Array<{ at: number; text: string }> = [];
  for (const [side, windows] of sides) {
    for (const [operation, window] of Object.entries(windows)) {
      const from = (window.first - start) / 1000;
      const to = (window.last - start) / 1000;
      spans.push({ at: from, text: `${side} ${operation} ${from.toFixed(2)}–${to.toFixed(2)}` });
    }
  }
  return spans
    .sort((a, b) => a.at - b.at)
    .map((span) => span.text)
    .join(', ');
}

const orderText = (round: number) => `round ${round + 1} (${round % 2 === 0 ? 'Cumulo' : 'rclone'} first)`;
const s = (seconds: number) => `${seconds.toFixed(2)} s`;

/** Seconds to list every object of the source bucket, and how many it lists. */
async function listSource(endpoint: string): Promise<{ seconds: number; listed: number }> {
  const store = await createObjectStore({
    provider: 'genericS3',
    endpoint,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    forcePathStyle: true,
  });
  try {
    const started = performance.now();
    let listed = 0;
    for await (const page of store.list(SYNC_BUCKET)) listed += page.objects.length;
    return { seconds: (performance.now() - started) / 1000, listed };
  } finally {
    await store.close();
  }
}

/**
 * One round from scratch: a fresh source and destinations, a new replication job whose untimed first cycle builds
 * its state, the change, then both tools in `turnOrder` and the floor after them.
 */
async function oneRound(
  round: number,
  seedDirectory: string,
  cumulo: CumuloBench | null,
  expectedListed: number,
): Promise<Round> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const started = performance.now();
    const sourceRoot = path.join(dataDir, 'source');
    fs.rmSync(sourceRoot, { recursive: true, force: true });
    copyTree(seedDirectory, sourceRoot);
    // Both destinations start as the source did: the state a previous full sync leaves.
    const destinationRoot = prepareRoot('destination', seedDirectory, ['rclone', 'cumulo', 'minimal']);
    console.log(
      `round ${round + 1}: prepared source and two destinations in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const servers: S3rverProcess[] = [];
    for (const root of [sourceRoot, destinationRoot]) {
      const server = await startS3rverProcess(root);
      servers.push(server);
      stops.push(() => server.stop());
    }
    const [sourceServer, destinationServer] = servers as [S3rverProcess, S3rverProcess];
    const proxies: CountingProxy[] = [];
    for (const server of servers) {
      const proxy = await startCountingProxy(server.endpoint);
      proxies.push(proxy);
      stops.push(() => proxy.close());
    }
    const [sourceProxy, destinationProxy] = proxies as [CountingProxy, CountingProxy];
    const resetCounts = () => proxies.forEach((proxy) => proxy.reset());
    const timeline = (start: number) =>
      timelineOf(start, [
        ['src', sourceProxy.windows()],
        ['dst', destinationProxy.windows()],
      ]);

    let job: SyncJobRow | null = null;
    if (cumulo) {
      const sourceId = await cumulo.connectS3rver(`sync source ${round + 1}`, sourceProxy.endpoint);
      const destinationId = await cumulo.connectS3rver(
        `sync destination ${round + 1}`,
        destinationProxy.endpoint,
      );
      job = await replicationJob(
        cumulo,
        { accountId: sourceId, bucket: SYNC_BUCKET },
        { accountId: destinationId, bucket: 'cumulo' },
      );
      // The job's previous run, before the change: a full check that finds both sides equal and builds the state.
      const initial = await runCycle(cumulo, job, WORKER_SETTINGS, () => undefined);
      const i = initial.cycle;
      if (!cycleNoChange(i) || !i.destinationListed)
        throw new Error(`the initial full check ended with status ${i.status} (${i.error ?? 'no error'})`);
      console.log(
        `  Cumulo's initial cycle (untimed, a full check): ${initial.seconds.toFixed(2)} s, ` +
          `${i.unchangedCount} unchanged, state built`,
      );
    }

    const change = await changeSource(sourceServer.endpoint, objects);
    if (round === 0)
      console.log(
        `${objects} objects of 4 KiB; at the source ${change.changed.length} changed at the same size, ` +
          `${change.added.length} new, ${change.deleted.length} deleted`,
      );
    const source: Side = { endpoint: sourceServer.endpoint, directory: sourceRoot, bucket: SYNC_BUCKET };
    const destination = (bucket: string): Side => ({
      endpoint: destinationServer.endpoint,
      directory: destinationRoot,
      bucket,
    });

    const result: Round = { floorSeconds: Number.NaN, minimalSeconds: Number.NaN };
    for (const tool of turnOrder(round, 'cumulo', 'rclone')) {
      if (tool === 'rclone' && only.has('rclone')) {
        resetCounts();
        const start = performance.now();
        const run = await rcloneSync(
          { endpoint: sourceProxy.endpoint, bucket: SYNC_BUCKET },
          { endpoint: destinationProxy.endpoint, bucket: 'rclone' },
        );
        const problems = await differences(source, destination('rclone'));
        result.rclone = {
          seconds: run.seconds,
          source: sourceProxy.counts(),
          destination: destinationProxy.counts(),
          problems,
          timeline: timeline(start),
        };
        console.log(
          `  rclone sync --checksum: ${run.seconds.toFixed(2)} s (peak RSS ${run.peakRssMb.toFixed(1)} MB); ` +
            `destination ${problems.length ? 'DIFFERS' : 'equals the source'}`,
        );
      }
      if (tool === 'cumulo' && cumulo && job) {
        let start = 0;
        const run = await runCycle(cumulo, job, WORKER_SETTINGS, () => {
          resetCounts();
          start = performance.now();
        });
        const counts = { source: sourceProxy.counts(), destination: destinationProxy.counts() };
        const problems = await differences(source, destination('cumulo'));
        if (!cycleCompleted(run.cycle))
          problems.unshift(
            `the cycle ended with status ${run.cycle.status} (${run.cycle.error ?? 'no error'})`,
          );
        if (run.cycle.destinationListed)
          problems.unshift('the cycle listed the destination instead of reading the state');
        const c = run.cycle;
        const summary =
          `status ${c.status}, ${c.destinationListed ? 'destination listed' : 'source listed, destination read from the state'}, ` +
          `copied ${c.copyCount}, unchanged ${c.unchangedCount}, deleted ${c.deletedCount} of ${c.deleteCount}`;
        result.cumulo = {
          seconds: run.seconds,
          ...counts,
          problems,
          timeline: timeline(start),
          peakRssMb: run.peakRssMb,
          summary,
        };
        console.log(
          `  Cumulo replication cycle: ${run.seconds.toFixed(2)} s (worker peak RSS ${run.peakRssMb.toFixed(1)} MB), ` +
            `${summary}; destination ${problems.length ? 'DIFFERS' : 'equals the source'}`,
        );
      }
    }
    settleDisk();
    const floor = await listSource(sourceProxy.endpoint);
    if (floor.listed !== expectedListed)
      throw new Error(`the list-only floor listed ${floor.listed} objects, not ${expectedListed}`);
    const from = { endpoint: sourceProxy.endpoint, bucket: SYNC_BUCKET };
    const to = { endpoint: destinationProxy.endpoint, bucket: 'minimal' };
    settleDisk();
    const minimalStart = performance.now();
    const [, applied] = await Promise.all([
      listSource(sourceProxy.endpoint),
      (async () => {
        const copies = await bareCopies(from, to, [...change.changed, ...change.added], MINIMAL_IN_FLIGHT, {
          settle: false,
        });
        const deletes = await bareDeletes(to, change.deleted, MINIMAL_IN_FLIGHT, { settle: false });
        return { copies, deletes };
      })(),
    ]);
    result.minimalSeconds = (performance.now() - minimalStart) / 1000;
    const minimalProblems = await differences(source, destination('minimal'));
    if (minimalProblems.length) throw new Error(`the minimal sync is wrong: ${minimalProblems.join('; ')}`);
    result.floorSeconds = floor.seconds;
    console.log(
      `  floor, ${FLOOR_WHAT}: ${s(floor.seconds)} for ${floor.listed} objects; minimal sync ` +
        `${s(result.minimalSeconds)} (its copies ${s(applied.copies)}, deletes ${s(applied.deletes)}, beside its listing)`,
    );
    return result;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

async function main() {
  fs.mkdirSync(dataDir, { recursive: true });
  const seed = await seedSync(path.join(dataDir, 'seeds'), objects);
  const { added, deleted } = changeOf(objects);
  const expectedListed = objects + added.length - deleted.length;
  const cumulo = only.has('cumulo') ? await CumuloBench.start(path.join(dataDir, 'cumulo')) : null;
  const done: Round[] = [];
  try {
    for (let round = 0; round < rounds; round++)
      done.push(await oneRound(round, seed.directory, cumulo, expectedListed));
  } finally {
    await cumulo?.close();
  }

  const last = done.at(-1);
  const lastRuns: Array<[string, ToolRun]> = [];
  if (last?.rclone) lastRuns.push(['rclone', last.rclone]);
  if (last?.cumulo) lastRuns.push(['Cumulo', last.cumulo]);
  console.log(
    `\nrequests by S3 operation in round ${done.length} (through the counting proxies; src = source s3rver, dst = destination)`,
  );
  for (const row of countsTable(lastRuns)) console.log(`  ${row}`);
  console.log(
    `\nwhen the requests ran in round ${done.length} (seconds after the start, first–last request of each kind)`,
  );
  for (const [tool, run] of lastRuns) console.log(`  ${tool} (${run.seconds.toFixed(2)} s): ${run.timeline}`);

  const floor = median(done.map((round) => round.floorSeconds));
  const minimal = median(done.map((round) => round.minimalSeconds));
  const rows: GoalRow[] = [];
  const ours = done.map((round) => round.cumulo).filter((run) => run !== undefined);
  const peers = done.map((round) => round.rclone).filter((run) => run !== undefined);
  const problems = [...ours, ...peers].flatMap((run) => run.problems);
  const invalid = problems.length ? `a destination differs from the source: ${problems[0]}` : undefined;
  const name = `sync, ${objects} objects, 2 % changed`;
  const floors = (round: Round) =>
    `list-only floor ${s(round.floorSeconds)}, minimal sync ${s(round.minimalSeconds)}`;
  if (ours.length === done.length) {
    const cumuloSeconds = median(ours.map((run) => run.seconds));
    if (peers.length === done.length) {
      const peerSeconds = median(peers.map((run) => run.seconds));
      rows.push({
        name: `${name}, time against rclone sync --checksum`,
        figure: cumuloSeconds / peerSeconds,
        goal: { direction: 'at most', value: GOAL_OF_RCLONE },
        unit: "× rclone's time",
        detail: `Cumulo ${s(cumuloSeconds)}, rclone ${s(peerSeconds)}, minimal sync ${s(minimal)}`,
        floor: {
          figure: Math.min(minimal, peerSeconds) / peerSeconds,
          what: minimal < peerSeconds ? MINIMAL_WHAT : 'rclone (faster than the minimal sync here)',
        },
        rounds: done.map(
          (round, index) =>
            `${orderText(index)}: Cumulo ${s(round.cumulo?.seconds ?? Number.NaN)}, rclone ` +
            `${s(round.rclone?.seconds ?? Number.NaN)}, ${floors(round)}: ` +
            `${((round.cumulo?.seconds ?? Number.NaN) / (round.rclone?.seconds ?? Number.NaN)).toFixed(2)}`,
        ),
        invalid,
      });
    }
    rows.push({
      name: `${name}, time against listing the source alone`,
      figure: cumuloSeconds / floor,
      goal: { direction: 'at most', value: GOAL_OF_FLOOR },
      unit: "× the list-only floor's time",
      detail: `Cumulo ${s(cumuloSeconds)}, list-only floor ${s(floor)}, minimal sync ${s(minimal)}`,
      floor: { figure: minimal / floor, what: MINIMAL_WHAT },
      rounds: done.map(
        (round, index) =>
          `${orderText(index)}: Cumulo ${s(round.cumulo?.seconds ?? Number.NaN)} (worker peak RSS ` +
          `${(round.cumulo?.peakRssMb ?? Number.NaN).toFixed(1)} MB; ${round.cumulo?.summary ?? ''}), ` +
          `${floors(round)}: ${((round.cumulo?.seconds ?? Number.NaN) / round.floorSeconds).toFixed(2)}`,
      ),
      invalid,
    });
    const heads = ours.reduce((sum, run) => sum + run.source.HeadObject + run.destination.HeadObject, 0);
    console.log(
      `\nCumulo HeadObject requests over ${ours.length} cycles: ${heads} ${heads === 0 ? 'PASS' : 'FAIL'}`,
    );
  }
  for (const problem of problems) console.log(`destination problem: ${problem}`);
  printTable(
    `bench/sync: issue 29's row, medians of ${rounds} round${rounds === 1 ? '' : 's'}` +
      (options.small ? ' (--small: a smoke run of the bench, not results)' : ''),
    rows,
  );
}

await main();

// bench/sync: one incremental sync after a small change, Cumulo's replication cycle next to
// `rclone sync --checksum` (rclone 1.60, Debian), between two local s3rver instances on this machine (issue 6
// "Done when"): N × 4 KiB objects (20 000 by default) at both ends, then 1 % of them rewritten at the same size,
// 0.5 % new and 0.5 % deleted at the source; each tool syncs its own destination bucket, both prepared alike.
// Goal: Cumulo's time ≤ 0.6 × rclone's. A counting proxy in front of each s3rver counts both tools' requests by
// S3 operation (Cumulo's diff must read no object metadata one by one: 0 HeadObject). Both destinations are
// checked against the source afterwards (keys and bytes); a wrong result fails whatever the times.
// Cumulo runs as the product runs: embedded PostgreSQL, accounts connected through the service, the cycle
// started through the cycle service and advanced by the worker role in its own process. As in real use, its job
// has already run once before the change (untimed): that first cycle is a full check, listing both sides and
// building the job's state, so the timed cycle lists only the source and reads the destination from the state
// (a full check again only every SYNC_FULL_CHECK_DAYS). rclone keeps no state and needs none: it lists both.
//
//   npm run sync -w bench [-- --objects 2000] [-- --only rclone,cumulo]
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
import { changeSource, seedSync, SYNC_BUCKET } from './seed.ts';
import { differences, type Side } from './verify.ts';
import type { SyncJobRow } from '@cumulo/server';

const { values: options } = parseArgs({
  options: {
    objects: { type: 'string', default: '20000' },
    only: { type: 'string', default: 'rclone,cumulo' },
  },
});
const objects = Number(options.objects);
if (!Number.isInteger(objects) || objects < 200) throw new Error('--objects must be an integer ≥ 200');
const only = new Set((options.only ?? '').split(','));
const dataDir = path.join(repoRoot, 'bench/.data/sync');
/** As bench/transfer's small objects: 32 objects at once per job, two jobs per batch. */
const WORKER_SETTINGS: WorkerSettings = { objectConcurrency: 32, jobsPerBatch: 2 };
const GOAL = 0.6;

interface ToolRun {
  seconds: number;
  source: RequestCounts;
  destination: RequestCounts;
  problems: string[];
  /** When each side saw each operation, in seconds after the start. */
  timeline: string;
}

const results: string[] = [];
const report = (line: string) => {
  console.log(line);
  results.push(line);
};

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

async function main() {
  fs.mkdirSync(dataDir, { recursive: true });
  const seed = await seedSync(path.join(dataDir, 'seeds'), objects);
  let cumulo: CumuloBench | null = null;
  const stops: Array<() => Promise<void>> = [];
  const runs: Array<[string, ToolRun]> = [];
  try {
    const started = performance.now();
    const sourceRoot = path.join(dataDir, 'source');
    fs.rmSync(sourceRoot, { recursive: true, force: true });
    copyTree(seed.directory, sourceRoot);
    // Both destinations start as the source did: the state a previous full sync leaves.
    const destinationRoot = prepareRoot('destination', seed.directory, ['rclone', 'cumulo']);
    console.log(
      `prepared source and two destinations in ${((performance.now() - started) / 1000).toFixed(1)} s`,
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

    let job: SyncJobRow | null = null;
    if (only.has('cumulo')) {
      cumulo = await CumuloBench.start(path.join(dataDir, 'cumulo'));
      const sourceId = await cumulo.connectS3rver('sync source', sourceProxy.endpoint);
      const destinationId = await cumulo.connectS3rver('sync destination', destinationProxy.endpoint);
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
        `Cumulo's initial cycle (untimed, a full check): ${initial.seconds.toFixed(2)} s, ` +
          `${i.unchangedCount} unchanged, state built`,
      );
    }

    const change = await changeSource(sourceServer.endpoint, objects);
    report(
      `${objects} objects of 4 KiB; at the source ${change.changed.length} changed at the same size, ` +
        `${change.added.length} new, ${change.deleted.length} deleted`,
    );
    const source: Side = { endpoint: sourceServer.endpoint, directory: sourceRoot, bucket: SYNC_BUCKET };
    const destination = (bucket: string): Side => ({
      endpoint: destinationServer.endpoint,
      directory: destinationRoot,
      bucket,
    });

    if (only.has('rclone')) {
      resetCounts();
      const start = performance.now();
      const run = await rcloneSync(
        { endpoint: sourceProxy.endpoint, bucket: SYNC_BUCKET },
        { endpoint: destinationProxy.endpoint, bucket: 'rclone' },
      );
      const problems = await differences(source, destination('rclone'));
      runs.push([
        'rclone',
        {
          seconds: run.seconds,
          source: sourceProxy.counts(),
          destination: destinationProxy.counts(),
          problems,
          timeline: timelineOf(start, [
            ['src', sourceProxy.windows()],
            ['dst', destinationProxy.windows()],
          ]),
        },
      ]);
      report(
        `rclone sync --checksum: ${run.seconds.toFixed(2)} s; destination ${problems.length ? 'DIFFERS' : 'equals the source'}`,
      );
    }

    if (cumulo && job) {
      let start = 0;
      const run = await runCycle(cumulo, job, WORKER_SETTINGS, () => {
        resetCounts();
        start = performance.now();
      });
      const counts = { source: sourceProxy.counts(), destination: destinationProxy.counts() };
      const timeline = timelineOf(start, [
        ['src', sourceProxy.windows()],
        ['dst', destinationProxy.windows()],
      ]);
      const problems = await differences(source, destination('cumulo'));
      if (!cycleCompleted(run.cycle))
        problems.unshift(
          `the cycle ended with status ${run.cycle.status} (${run.cycle.error ?? 'no error'})`,
        );
      if (run.cycle.destinationListed)
        problems.unshift('the cycle listed the destination instead of reading the state');
      runs.push(['Cumulo', { seconds: run.seconds, ...counts, problems, timeline }]);
      const c = run.cycle;
      report(
        `Cumulo replication cycle: ${run.seconds.toFixed(2)} s (worker peak RSS ${run.peakRssMb.toFixed(1)} MB), ` +
          `status ${c.status}, ${c.destinationListed ? 'destination listed' : 'source listed, destination read from the state'}, ` +
          `copied ${c.copyCount}, unchanged ${c.unchangedCount}, deleted ${c.deletedCount} ` +
          `of ${c.deleteCount}; destination ${problems.length ? 'DIFFERS' : 'equals the source'}`,
      );
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
    await cumulo?.close();
  }

  for (const [tool, run] of runs) for (const problem of run.problems) report(`${tool}: ${problem}`);
  const peer = runs.find(([tool]) => tool === 'rclone')?.[1];
  const ours = runs.find(([tool]) => tool === 'Cumulo')?.[1];
  if (peer && ours) {
    const ratio = ours.seconds / peer.seconds;
    const correct = peer.problems.length === 0 && ours.problems.length === 0;
    const noHeads = ours.source.HeadObject + ours.destination.HeadObject === 0;
    report(
      `time ratio Cumulo/rclone ${ratio.toFixed(2)} (goal ≤ ${GOAL}) ${ratio <= GOAL && correct ? 'PASS' : 'FAIL'}` +
        (correct ? '' : ' (a destination differs from the source)'),
    );
    report(
      `Cumulo HeadObject requests: ${ours.source.HeadObject + ours.destination.HeadObject} ${noHeads ? 'PASS' : 'FAIL'}`,
    );
  }
  console.log(
    '\nrequests by S3 operation (through the counting proxies; src = source s3rver, dst = destination)',
  );
  for (const row of countsTable(runs)) console.log(`  ${row}`);
  console.log('\nwhen the requests ran (seconds after the start, first–last request of each kind)');
  for (const [tool, run] of runs) console.log(`  ${tool} (${run.seconds.toFixed(2)} s): ${run.timeline}`);
  console.log('\nbench/sync summary');
  for (const result of results) console.log(`  ${result}`);
}

await main();

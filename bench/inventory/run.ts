// bench/inventory: the product's bucket inventory (BucketInventory walking an s3rver bucket page by page) next
// to `rclone size` on the same bucket, at 20 000 and 200 000 objects.
// Goals (issue): time ratio cumulo/rclone ≤ 1.0 on the 200 000-object bucket, and peak RSS growing by less than
// 50 MB from 20 000 to 200 000 objects. Exits 1 when a goal is missed or the tools disagree on the totals.
//
//   npm run inventory -w bench [-- --counts 20000,200000 --rounds 3 --no-fast-list]
//
// Needs rclone (Debian: apt-get install -y rclone). Seeds are cached in bench/.data/inventory by object count.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { startS3rverProcess, repoRoot } from './s3rver-process.ts';
import { BENCH_BUCKET, ensureSeed, type Seed } from './seed.ts';
import { rcloneEnv } from '../shared/rclone.ts';

const RATIO_GOAL = 1.0;
const RSS_GROWTH_GOAL_BYTES = 50e6;
const MB = 1e6;
const GNU_TIME = '/usr/bin/time';

const { values: options } = parseArgs({
  options: {
    counts: { type: 'string', default: '20000,200000' },
    rounds: { type: 'string', default: '3' },
    'no-fast-list': { type: 'boolean', default: false },
  },
});
const counts = options.counts.split(',').map(Number);
const rounds = Number(options.rounds);
const withFastList = !options['no-fast-list'];
if (counts.some((n) => !Number.isInteger(n) || n <= 0) || !(rounds >= 1))
  throw new Error('bad --counts/--rounds');

interface Measured {
  objects: number;
  bytes: number;
  /** The measured work: the walk inside the child for cumulo, the whole process for rclone. */
  seconds: number;
  wallSeconds: number;
  /** CPU time of the client (user + system), to tell a slow client from a slow server. */
  cpuSeconds: number | null;
  peakRssBytes: number | null;
  /** cumulo only: RSS once the server modules are loaded, before the walk starts. */
  loadedRssBytes?: number;
  /** Warm-up runs count for peak RSS (every process is fresh) but not for time. */
  warmUp?: boolean;
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  wallSeconds: number;
}

function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ code, stdout, stderr, wallSeconds: (performance.now() - started) / 1000 }),
    );
  });
}

function failWith(what: string, outcome: Outcome): never {
  throw new Error(`${what} exited ${outcome.code}\n${outcome.stderr}${outcome.stdout}`);
}

async function runCumulo(endpoint: string): Promise<Measured> {
  const walker = path.join(import.meta.dirname, 'walk.ts');
  const outcome = await runProcess(process.execPath, ['--import', 'tsx', walker, endpoint, S3RVER_KEY]);
  if (outcome.code !== 0) failWith('cumulo inventory', outcome);
  const line = outcome.stdout.trim().split('\n').at(-1) ?? '';
  const result = JSON.parse(line) as {
    buckets: number;
    objects: number;
    bytes: number;
    seconds: number;
    cpuSeconds: number;
    peakRssBytes: number;
    rssBeforeBytes: number;
    failed: string[];
  };
  if (result.buckets !== 1 || result.failed.length > 0) {
    throw new Error(`cumulo inventory did not finish its one bucket: ${line}`);
  }
  return { ...result, loadedRssBytes: result.rssBeforeBytes, wallSeconds: outcome.wallSeconds };
}

const haveGnuTime = fs.existsSync(GNU_TIME);

async function runRclone(endpoint: string, fastList: boolean): Promise<Measured> {
  const rcloneArgs = ['--config', '/dev/null', 'size', '--json', ...(fastList ? ['--fast-list'] : [])];
  rcloneArgs.push(`s3rver:${BENCH_BUCKET}`);
  const outcome = haveGnuTime
    ? await runProcess(
        GNU_TIME,
        ['-f', 'maxrss-kb=%M cpu-s=%U+%S', 'rclone', ...rcloneArgs],
        rcloneEnv(endpoint),
      )
    : await runProcess('rclone', rcloneArgs, rcloneEnv(endpoint));
  if (outcome.code !== 0) failWith(`rclone size${fastList ? ' --fast-list' : ''}`, outcome);
  const size = JSON.parse(outcome.stdout) as { count: number; bytes: number };
  const rssKb = /maxrss-kb=(\d+)/.exec(outcome.stderr)?.[1];
  const cpu = /cpu-s=([\d.]+)\+([\d.]+)/.exec(outcome.stderr);
  return {
    objects: size.count,
    bytes: size.bytes,
    seconds: outcome.wallSeconds,
    wallSeconds: outcome.wallSeconds,
    cpuSeconds: cpu ? Number(cpu[1]) + Number(cpu[2]) : null,
    peakRssBytes: rssKb ? Number(rssKb) * 1024 : null,
  };
}

function checkTotals(tool: string, seed: Seed, measured: Measured) {
  if (measured.objects !== seed.objects || measured.bytes !== seed.bytes) {
    throw new Error(
      `${tool} counted ${measured.objects} objects / ${measured.bytes} bytes; ` +
        `the bucket holds ${seed.objects} objects / ${seed.bytes} bytes`,
    );
  }
}

interface Row {
  seed: Seed;
  cumulo: Measured[];
  rclone: Measured[];
  rcloneFastList: Measured[];
}

const timed = (runs: Measured[]) => runs.filter((r) => !r.warmUp);
const best = (runs: Measured[]) => Math.min(...timed(runs).map((r) => r.seconds));
const cpuOfBest = (runs: Measured[]) => {
  const fastest = timed(runs).reduce((a, b) => (b.seconds < a.seconds ? b : a));
  return fastest.cpuSeconds === null ? 'n/a' : fastest.cpuSeconds.toFixed(2);
};
const peak = (runs: Measured[]) =>
  runs.some((r) => r.peakRssBytes === null) ? null : Math.max(...runs.map((r) => r.peakRssBytes ?? 0));

async function benchOne(seed: Seed): Promise<Row> {
  const server = await startS3rverProcess(seed.directory);
  const row: Row = { seed, cumulo: [], rclone: [], rcloneFastList: [] };
  try {
    const tools: Array<[string, () => Promise<Measured>, Measured[]]> = [
      ['cumulo', () => runCumulo(server.endpoint), row.cumulo],
      ['rclone size', () => runRclone(server.endpoint, false), row.rclone],
    ];
    if (withFastList) {
      tools.push(['rclone size --fast-list', () => runRclone(server.endpoint, true), row.rcloneFastList]);
    }
    // One warm-up of each (page cache, s3rver's lazy requires), then rounds interleaved, each starting with
    // the next tool, so that noise from other work on the shared machine falls on every tool alike.
    for (let round = 0; round <= rounds; round++) {
      const order = [...tools.slice(round % tools.length), ...tools.slice(0, round % tools.length)];
      for (const [tool, run, runs] of order) {
        const measured = await run();
        checkTotals(tool, seed, measured);
        const label = round === 0 ? 'warm-up' : `round ${round}`;
        console.log(
          `  ${seed.objects} objects, ${label}, ${tool}: ${measured.seconds.toFixed(2)} s` +
            (measured.cpuSeconds === null ? '' : ` (client CPU ${measured.cpuSeconds.toFixed(2)} s)`) +
            (measured.peakRssBytes === null
              ? ''
              : `, peak RSS ${(measured.peakRssBytes / MB).toFixed(1)} MB`) +
            (measured.loadedRssBytes === undefined
              ? ''
              : ` (${(measured.loadedRssBytes / MB).toFixed(1)} MB before the walk)`),
        );
        runs.push({ ...measured, warmUp: round === 0 });
      }
    }
  } finally {
    await server.stop();
  }
  return row;
}

function table(header: string[], lines: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const format = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  return [format(header), format(widths.map((w) => '-'.repeat(w))), ...lines.map(format)].join('\n');
}

async function main() {
  const dataDir = path.join(repoRoot, 'bench/.data/inventory');
  fs.mkdirSync(dataDir, { recursive: true });
  const version = await runProcess('rclone', ['version'], rcloneEnv('http://127.0.0.1:1'));
  if (version.code !== 0) failWith('rclone version (install it: apt-get install -y rclone)', version);
  console.log(
    `bench/inventory: node ${process.version}, ${version.stdout.split('\n')[0]}, best of ${rounds} after a warm-up`,
  );

  const rows: Row[] = [];
  for (const count of [...counts].sort((a, b) => a - b)) {
    const seed = await ensureSeed(dataDir, count);
    rows.push(await benchOne(seed));
  }

  const mb = (bytes: number | null) => (bytes === null ? 'n/a' : (bytes / MB).toFixed(1));
  const lines = rows.map(({ seed, cumulo, rclone, rcloneFastList }) => {
    const cumuloSeconds = best(cumulo);
    const cells = [
      String(seed.objects),
      String(seed.bytes),
      cumuloSeconds.toFixed(2),
      Math.round(seed.objects / cumuloSeconds).toString(),
      cpuOfBest(cumulo),
      mb(peak(cumulo)),
      best(rclone).toFixed(2),
      cpuOfBest(rclone),
      mb(peak(rclone)),
      (cumuloSeconds / best(rclone)).toFixed(2),
    ];
    if (withFastList) {
      cells.push(best(rcloneFastList).toFixed(2), (cumuloSeconds / best(rcloneFastList)).toFixed(2));
    }
    return cells;
  });
  const header = [
    'objects',
    'bytes',
    'cumulo s',
    'objects/s',
    'cumulo CPU s',
    'cumulo peak RSS MB',
    'rclone s',
    'rclone CPU s',
    'rclone RSS MB',
    'ratio',
  ];
  if (withFastList) header.push('rclone --fast-list s', 'ratio (fast-list)');
  console.log(`\n${table(header, lines)}`);
  console.log(
    '(MB = 10^6 bytes; cumulo s = the walk inside its process; rclone s = the whole rclone process; ' +
      'CPU s = CPU time of the client process in its fastest run)',
  );

  const verdicts: Array<[string, boolean]> = [];
  const largest = rows.at(-1);
  if (largest) {
    const ratio = best(largest.cumulo) / best(largest.rclone);
    verdicts.push([
      `time ratio cumulo/rclone at ${largest.seed.objects} objects ${ratio.toFixed(2)} ≤ ${RATIO_GOAL}`,
      ratio <= RATIO_GOAL,
    ]);
  }
  const smallest = rows[0];
  if (smallest && largest && smallest !== largest) {
    const growth = (peak(largest.cumulo) ?? 0) - (peak(smallest.cumulo) ?? 0);
    verdicts.push([
      `peak RSS growth ${smallest.seed.objects}→${largest.seed.objects} objects ${mb(growth)} MB < ${mb(RSS_GROWTH_GOAL_BYTES)} MB`,
      growth < RSS_GROWTH_GOAL_BYTES,
    ]);
  }
  console.log('');
  for (const [text, ok] of verdicts) console.log(`${ok ? 'PASS' : 'FAIL'}  ${text}`);
  if (verdicts.some(([, ok]) => !ok)) process.exitCode = 1;
}

await main();

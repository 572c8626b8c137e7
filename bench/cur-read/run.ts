// bench/cur-read: reading a month of billing report (issue 24) — a 5 000 000-line legacy Cost and Usage Report split
// into gzip CSV files, as AWS delivers it — and folding it into daily rollup rows:
//   (b) the server's ingestion engine (modules/analytics/ingest/engine.ts) as the worker role runs it: bundled by
//       scripts/build-server.mjs, started with the server's Node flags, its files read in worker threads
//       (ANALYTICS_READ_THREADS, default 2) each with its own aggregator, merged at the end;
//   (b1) the same engine with one thread (the files read one after the other in the process's own thread);
//   (c) DuckDB (@duckdb/node-api) reading the same files with a GROUP BY to the same daily keys, when installed;
// beside (a) `gzip -dc` of the same files to /dev/null, the bound. Each runs in its own child process, so its peak
// RSS is its own. Goals: ingestion ≤ 2.0 × gzip -dc; peak RSS ≤ 300 MB. The machine is shared, so each round runs
// gzip -dc just before and just after (b) and divides by their mean; CPU-seconds (all threads) are shown too.
// The files come from a small generator of its own below (seeded, cached in bench/.data/cur-read).
//
//   npm run cur-read -w bench [-- --lines 5000000 --files 5 --rounds 3 --threads 2 --one-thread]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { DEFAULT_READ_THREADS } from '@cumulo/server/ingest';
import { analyticsReadWorkerEntry, bundleServer, serverNodeFlags } from '../../scripts/build-server.mjs';

const TIME_RATIO_GOAL = 2.0;
const RSS_GOAL_MB = 300;

const { values: options } = parseArgs({
  options: {
    lines: { type: 'string', default: '5000000' },
    files: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    threads: { type: 'string', default: String(DEFAULT_READ_THREADS) },
    'one-thread': { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});
const lines = Number(options.lines);
const fileCount = Number(options.files);
const rounds = Number(options.rounds);
if (
  !Number.isInteger(lines) ||
  lines <= 0 ||
  !Number.isInteger(fileCount) ||
  fileCount <= 0 ||
  !(rounds >= 1)
) {
  throw new Error('bad --lines/--files/--rounds');
}

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = path.join(here, '../.data/cur-read', `${lines}-${fileCount}`);
const engineDir = path.join(here, '../.data/cur-read-engine');

const HEADER = [
  'identity/LineItemId',
  'identity/TimeInterval',
  'bill/InvoiceId',
  'bill/BillingEntity',
  'bill/BillType',
  'bill/PayerAccountId',
  'bill/BillingPeriodStartDate',
  'bill/BillingPeriodEndDate',
  'lineItem/UsageAccountId',
  'lineItem/LineItemType',
  'lineItem/UsageStartDate',
  'lineItem/UsageEndDate',
  'lineItem/ProductCode',
  'lineItem/UsageType',
  'lineItem/Operation',
  'lineItem/AvailabilityZone',
  'lineItem/ResourceId',
  'lineItem/UsageAmount',
  'lineItem/CurrencyCode',
  'lineItem/UnblendedRate',
  'lineItem/UnblendedCost',
  'lineItem/BlendedCost',
  'lineItem/LineItemDescription',
  'product/ProductName',
  'product/region',
  'pricing/unit',
  'resourceTags/user:team',
];

type Product = [string, string, string, string, string];
const S3_STORAGE: Product = [
  'AmazonS3',
  'TimedStorage-ByteHrs',
  'StandardStorage',
  'Amazon Simple Storage Service',
  'GB-Mo',
];
const PRODUCTS: Product[] = [
  S3_STORAGE,
  ['AmazonS3', 'Requests-Tier1', 'PutObject', 'Amazon Simple Storage Service', 'Requests'],
  ['AmazonS3', 'Requests-Tier2', 'GetObject', 'Amazon Simple Storage Service', 'Requests'],
  ['AmazonS3', 'DataTransfer-Out-Bytes', 'GetObject', 'Amazon Simple Storage Service', 'GB'],
  ['AmazonEC2', 'BoxUsage:t3.medium', 'RunInstances', 'Amazon Elastic Compute Cloud', 'Hrs'],
  ['AmazonEC2', 'EBS:VolumeUsage.gp3', 'CreateVolume-Gp3', 'Amazon Elastic Compute Cloud', 'GB-Mo'],
  [
    'AmazonRDS',
    'InstanceUsage:db.t3.medium',
    'CreateDBInstance:0014',
    'Amazon Relational Database Service',
    'Hrs',
  ],
  ['AmazonEFS', 'TimedStorage-ByteHrs', 'Storage', 'Amazon Elastic File System', 'GB-Mo'],
  ['AmazonCloudWatch', 'CW:MetricMonitorUsage', 'MetricStorage', 'AmazonCloudWatch', 'Metrics'],
  ['AmazonRoute53', 'HostedZone', 'HostedZone', 'Amazon Route 53', 'HostedZone'],
];
const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-2'];
const ACCOUNTS = ['111122223333', '444455556666', '777788889999'];
const RESOURCES = 2000;

/** A seeded generator, so every run reads the same month. */
function* generatedLines(seed: number, count: number, firstId: number): Generator<string> {
  let state = seed >>> 0;
  const next = (limit: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % limit;
  };
  for (let id = firstId; id < firstId + count; id++) {
    // A resource belongs to one product, region and account, as in a real report; a tenth of lines have none.
    const resourceNumber = next(RESOURCES);
    const [product, usageType, operation, productName, unit] =
      PRODUCTS[resourceNumber % PRODUCTS.length] ?? S3_STORAGE;
    const region = REGIONS[Math.floor(resourceNumber / PRODUCTS.length) % REGIONS.length] ?? '';
    const account = ACCOUNTS[Math.floor(resourceNumber / 50) % ACCOUNTS.length] ?? '';
    const day = String(1 + next(30)).padStart(2, '0');
    const hour = String(next(24)).padStart(2, '0');
    const resource = next(10) === 0 ? '' : `arn:aws:${product.toLowerCase()}:${region}:res-${resourceNumber}`;
    const amount = (next(1_000_000) / 1000).toFixed(3);
    const rate = '0.0000230000';
    const cost = `0.${String(next(1_000_000_000)).padStart(10, '0')}`;
    const start = `2026-06-${day}T${hour}:00:00Z`;
    yield [
      `li-${id.toString(36)}`,
      `${start}/2026-06-${day}T${hour}:59:59Z`,
      '',
      'AWS',
      'Anniversary',
      '111122223333',
      '2026-06-01T00:00:00Z',
      '2026-07-01T00:00:00Z',
      account,
      'Usage',
      start,
      `2026-06-${day}T${hour}:59:59Z`,
      product,
      usageType,
      operation,
      `${region}a`,
      resource,
      amount,
      'USD',
      rate,
      cost,
      cost,
      // A quoted description with a comma, as AWS writes them.
      `"$0.023 per GB-Mo, first 50 TB"`,
      productName,
      region,
      unit,
      next(3) === 0 ? 'storage' : '',
    ].join(',');
  }
}

function filePaths(): string[] {
  return Array.from({ length: fileCount }, (_, index) => path.join(dataDir, `cur-month-${index + 1}.csv.gz`));
}

async function ensureFiles(): Promise<string[]> {
  const files = filePaths();
  const done = path.join(dataDir, '.complete');
  if (fs.existsSync(done)) return files;
  fs.mkdirSync(dataDir, { recursive: true });
  const perFile = Math.ceil(lines / fileCount);
  const started = performance.now();
  for (const [index, file] of files.entries()) {
    const count = Math.min(perFile, lines - index * perFile);
    async function* text() {
      let batch = `${HEADER.join(',')}\n`;
      for (const line of generatedLines(index + 1, count, index * perFile)) {
        batch += `${line}\n`;
        if (batch.length > 1 << 20) {
          yield batch;
          batch = '';
        }
      }
      yield batch;
    }
    await pipeline(text, zlib.createGzip(), fs.createWriteStream(file));
  }
  fs.writeFileSync(done, '');
  console.log(
    `generated ${lines} lines in ${fileCount} files in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return files;
}

interface Measure {
  seconds: number;
  rssMb: number;
  /** User + system CPU-seconds of every thread. */
  cpuSeconds?: number;
  rows?: number;
  costNano?: string;
}

/** The part of @duckdb/node-api the bench uses: DuckDB is not a dependency (see the analytics README, "Engine"). */
interface DuckDbModule {
  DuckDBInstance: {
    create(path: string): Promise<{
      connect(): Promise<{
        run(sql: string): Promise<unknown>;
        streamAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }>;
        closeSync(): void;
      }>;
      closeSync(): void;
    }>;
  };
}
/** Installed by hand to compare: `npm install --no-save @duckdb/node-api`. */
const DUCKDB_MODULE = '@duckdb/node-api';
const importDuckDb = () => import(DUCKDB_MODULE) as Promise<DuckDbModule>;

/** (c) in this process: DuckDB's own gzip CSV reader and GROUP BY to the same keys, the rows read back out. */
async function childDuckdb(files: string[]): Promise<Measure> {
  const { DuckDBInstance } = await importDuckDb();
  const started = performance.now();
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  // Its defaults (threads = cores, memory up to 80 % of RAM) unless told: DUCKDB_MEMORY_LIMIT=250MB DUCKDB_THREADS=1.
  if (process.env.DUCKDB_MEMORY_LIMIT)
    await connection.run(`SET memory_limit = '${process.env.DUCKDB_MEMORY_LIMIT}'`);
  if (process.env.DUCKDB_THREADS) await connection.run(`SET threads = ${Number(process.env.DUCKDB_THREADS)}`);
  await connection.run('SET preserve_insertion_order = false');
  const list = files.map((file) => `'${file}'`).join(', ');
  const reader = await connection.streamAndReadAll(`
    SELECT "lineItem/UsageAccountId", substr("lineItem/UsageStartDate", 1, 10) AS day, "lineItem/LineItemType",
           "lineItem/ProductCode", "lineItem/UsageType", "lineItem/Operation", "product/region", "lineItem/ResourceId",
           sum(CAST("lineItem/UsageAmount" AS DOUBLE)) AS usage,
           CAST(sum(CAST("lineItem/UnblendedCost" AS DECIMAL(38, 9))) AS VARCHAR) AS cost, count(*) AS lines
    FROM read_csv([${list}], header = true, all_varchar = true)
    GROUP BY ALL`);
  let costNano = 0n;
  const rows = reader.getRows();
  for (const row of rows) {
    const [whole = '0', fraction = ''] = String(row[9]).split('.');
    costNano += BigInt(whole + fraction.padEnd(9, '0'));
  }
  connection.closeSync();
  instance.closeSync();
  const cpu = process.cpuUsage();
  return {
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    rssMb: process.resourceUsage().maxRSS / 1024,
    rows: rows.length,
    costNano: String(costNano),
  };
}

/** The engine's child (engine-child.ts) bundled with the reading thread's entry, as the server's build does. */
async function buildEngine(): Promise<string> {
  await bundleServer({
    entryPoints: [{ in: path.join(here, 'engine-child.ts'), out: 'engine-child' }, analyticsReadWorkerEntry],
    outdir: engineDir,
  });
  return path.join(engineDir, 'engine-child.js');
}

function measureOf(out: string): Measure {
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Measure;
}

function spawnMeasure(name: string, args: string[]): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`${name} exited ${code}`));
      else resolve(measureOf(out));
    });
  });
}

/** (b) the bundled engine with `threads` reading threads, run with the server's Node flags. */
const runEngine = (entry: string, files: string[], threads: number) =>
  spawnMeasure('engine', [...serverNodeFlags, entry, String(threads), ...files]);

/** (c) DuckDB in a child of this script. */
const runDuckdb = () =>
  spawnMeasure('duckdb', [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    '--lines',
    String(lines),
    '--files',
    String(fileCount),
    '--child',
    'duckdb',
  ]);

/** (a) `gzip -dc` of every file to /dev/null under /usr/bin/time: seconds and peak RSS. */
function gunzipBound(files: string[]): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%e %U %S %M', 'gzip', '-dc', ...files], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const [seconds, user, system, kb] = err.trim().split('\n').pop()?.split(' ').map(Number) ?? [];
      if (
        code !== 0 ||
        seconds === undefined ||
        user === undefined ||
        system === undefined ||
        kb === undefined
      )
        reject(new Error(`gzip -dc failed: ${err}`));
      else resolve({ seconds, rssMb: kb / 1024, cpuSeconds: user + system });
    });
  });
}

async function main() {
  if (options.child === 'duckdb') {
    console.log(JSON.stringify(await childDuckdb(filePaths())));
    return;
  }
  const threads = Number(options.threads);
  if (!Number.isInteger(threads) || threads < 1) throw new Error('bad --threads');
  const files = await ensureFiles();
  const entry = await buildEngine();
  const bytes = files.reduce((sum, file) => sum + fs.statSync(file).size, 0);
  let duckdbAvailable = true;
  try {
    await importDuckDb();
  } catch {
    duckdbAvailable = false;
    console.log(
      '(c) skipped: @duckdb/node-api is not installed (npm install --no-save @duckdb/node-api to compare)',
    );
  }
  console.log(
    `${lines} lines, ${fileCount} gzip CSV files, ${(bytes / 1e6).toFixed(0)} MB compressed; ${rounds} rounds; ` +
      `engine with ${threads} reading threads, Node flags ${serverNodeFlags.join(' ')}`,
  );
  console.log('Noisy: the machine is shared; compare ratios within one round, not seconds across runs.');
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const before = await gunzipBound(files);
    const engine = await runEngine(entry, files, threads);
    const after = await gunzipBound(files);
    const bound = (before.seconds + after.seconds) / 2;
    const oneThread = options['one-thread'] ? await runEngine(entry, files, 1) : undefined;
    const duckdb = duckdbAvailable ? await runDuckdb() : undefined;
    const show = (name: string, measure: Measure) =>
      console.log(
        `round ${round} ${name.padEnd(26)} ${measure.seconds.toFixed(2).padStart(7)} s  ×${(measure.seconds / bound).toFixed(2)}` +
          `  ${(measure.cpuSeconds ?? 0).toFixed(1).padStart(5)} CPU-s  peak RSS ${measure.rssMb.toFixed(0).padStart(4)} MB` +
          (measure.rows === undefined ? '' : `  ${measure.rows} rows, cost ${measure.costNano} n$`),
      );
    show('(a) gzip -dc, before', before);
    show(`(b) engine, ${threads} threads`, engine);
    show('(a) gzip -dc, after', after);
    if (oneThread) show('(b1) engine, 1 thread', oneThread);
    if (duckdb) show('(c) duckdb', duckdb);
    const ratio = engine.seconds / bound;
    ratios.push(ratio);
    console.log(
      `round ${round} goals (b): time ×${ratio.toFixed(2)} of gzip -dc ≤ ${TIME_RATIO_GOAL} ${ratio <= TIME_RATIO_GOAL ? 'met' : 'MISSED'}; ` +
        `peak RSS ${engine.rssMb.toFixed(0)} ≤ ${RSS_GOAL_MB} MB ${engine.rssMb <= RSS_GOAL_MB ? 'met' : 'MISSED'}`,
    );
  }
  console.log(`ratios of (b) to gzip -dc: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
}

await main();

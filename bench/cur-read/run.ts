// bench/cur-read: reading a month of billing report (issue 24) — a 5 000 000-line legacy Cost and Usage Report split
// into gzip CSV files, as AWS delivers it — and folding it into daily rollup rows, by the two candidate engines:
//   (b) the module's reader: zlib + csv-records streaming into the RollupAggregator (read-report.ts, aggregate.ts);
//   (c) DuckDB (@duckdb/node-api) reading the same files with a GROUP BY to the same daily keys;
// next to (a) `gzip -dc` of the same files to /dev/null, the bound. Each runs in its own child process, so its peak
// RSS is its own. Goals: ingestion ≤ 2.0 × gzip -dc; peak RSS ≤ 300 MB.
// The files come from a small generator of its own below (seeded, cached in bench/.data/cur-read); the realistic
// report generator of issue 24 point 6 replaces it later.
//
//   npm run cur-read -w bench [-- --lines 5000000 --files 5 --rounds 3]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import {
  RollupAggregator,
  aggregateLineItems,
} from '@cumulo/server/src/modules/analytics/ingest/aggregate.ts';
import { readLineItemBatches } from '@cumulo/server/src/modules/analytics/ingest/read-report.ts';

const TIME_RATIO_GOAL = 2.0;
const RSS_GOAL_MB = 300;

const { values: options } = parseArgs({
  options: {
    lines: { type: 'string', default: '5000000' },
    files: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
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
  rows?: number;
  costNano?: string;
}

/** (b) in this process: the module's reader and aggregator over every file. */
async function childRead(files: string[]): Promise<Measure> {
  const started = performance.now();
  const aggregator = new RollupAggregator();
  for (const file of files) {
    await aggregateLineItems(
      readLineItemBatches(
        fs.createReadStream(file),
        { key: path.basename(file), format: 'csv.gz' },
        'cur-legacy',
      ),
      aggregator,
    );
  }
  let costNano = 0n;
  for (const row of aggregator.rows()) costNano += row.costNano;
  return {
    seconds: (performance.now() - started) / 1000,
    rssMb: process.resourceUsage().maxRSS / 1024,
    rows: aggregator.size,
    costNano: String(costNano),
  };
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
  return {
    seconds: (performance.now() - started) / 1000,
    rssMb: process.resourceUsage().maxRSS / 1024,
    rows: rows.length,
    costNano: String(costNano),
  };
}

function runChild(kind: 'read' | 'duckdb'): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        '--lines',
        String(lines),
        '--files',
        String(fileCount),
        '--child',
        kind,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`${kind} exited ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as Measure);
    });
  });
}

/** (a) `gzip -dc` of every file to /dev/null under /usr/bin/time: seconds and peak RSS. */
function gunzipBound(files: string[]): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%e %M', 'gzip', '-dc', ...files], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const [seconds, kb] = err.trim().split('\n').pop()?.split(' ').map(Number) ?? [];
      if (code !== 0 || seconds === undefined || kb === undefined)
        reject(new Error(`gzip -dc failed: ${err}`));
      else resolve({ seconds, rssMb: kb / 1024 });
    });
  });
}

async function main() {
  if (options.child) {
    const files = filePaths();
    const measure = options.child === 'duckdb' ? await childDuckdb(files) : await childRead(files);
    console.log(JSON.stringify(measure));
    return;
  }
  const files = await ensureFiles();
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
    `${lines} lines, ${fileCount} gzip CSV files, ${(bytes / 1e6).toFixed(0)} MB compressed; ${rounds} rounds`,
  );
  console.log('Noisy: the machine is shared; compare ratios within one run, not seconds across runs.');
  for (let round = 1; round <= rounds; round++) {
    const bound = await gunzipBound(files);
    const read = await runChild('read');
    const duckdb = duckdbAvailable ? await runChild('duckdb') : undefined;
    const show = (name: string, measure: Measure) =>
      console.log(
        `round ${round} ${name.padEnd(24)} ${measure.seconds.toFixed(2).padStart(7)} s  ×${(measure.seconds / bound.seconds).toFixed(2)}  peak RSS ${measure.rssMb.toFixed(0).padStart(4)} MB` +
          (measure.rows === undefined ? '' : `  ${measure.rows} rows, cost ${measure.costNano} n$`),
      );
    show('(a) gzip -dc', bound);
    show('(b) zlib + csv-records', read);
    if (duckdb) show('(c) duckdb', duckdb);
    console.log(
      `round ${round} goals (b): time ×${(read.seconds / bound.seconds).toFixed(2)} ≤ ${TIME_RATIO_GOAL} ${read.seconds / bound.seconds <= TIME_RATIO_GOAL ? 'met' : 'MISSED'}; ` +
        `RSS ${read.rssMb.toFixed(0)} ≤ ${RSS_GOAL_MB} MB ${read.rssMb <= RSS_GOAL_MB ? 'met' : 'MISSED'}`,
    );
  }
}

await main();

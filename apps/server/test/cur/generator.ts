/**
 * A seeded generator of AWS billing reports (issue 24, TESTING.md "Billing reports"): it lays legacy Cost and Usage
 * Report and CUR 2.0 (Data Exports) deliveries — manifests, split gzip or zip CSV files — into an object store or a
 * directory, and answers the exact totals it wrote, in nano-dollars. Integration tests write into s3rver through
 * `objectStoreSink`; bench/cur writes big months to disk through `directorySink`.
 *
 * It lives under apps/server/test because both can import it without a build: the server's vitest project and
 * tsc include test/, and the bench and e2e import it through tsx as `@cumulo/server/testing` (package.json).
 *
 *   const generator = new CurReportGenerator({ seed: 7, layout: 'cur-legacy', endMonth: '2026-10', months: 12 });
 *   await generator.writeAll(objectStoreSink(store, 'billing'));
 *   await generator.redeliver(sink, '2026-09');          // a new assembly with new content: totals follow it
 *   generator.expected().periods['2026-09'].costNano;     // bigint nano-dollars
 */
import { mkdir } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { parquetWriteBuffer, type SchemaElement } from 'hyparquet-writer';
import type { ObjectStore } from '@cumulo/storage';
import type { ReportLayout, RollupKey } from '../../src/modules/analytics/ingest/report-types.ts';
import {
  periodBounds,
  periodLines,
  Prng,
  resourcePool,
  type GeneratedLine,
  type ResourcePool,
} from './report-lines.ts';

export interface CurGeneratorOptions {
  seed: number | string;
  layout: ReportLayout;
  /** The month the report ends with, 'YYYY-MM'. */
  endMonth: string;
  /** How many months end at endMonth (default 12). */
  months?: number;
  /** Lines per delivery of a month (default 200). */
  linesPerMonth?: number;
  /** Usage account ids; the first is the payer (default two accounts). */
  accounts?: string[];
  /** The bucket the manifests name (legacy `bucket`, 2.0 `dataFiles` URIs); default 'billing'. */
  bucket?: string;
  /** The report's S3 prefix (default 'cur'). */
  prefix?: string;
  /** The report's (legacy) or export's (2.0) name (default 'cumulo-cur'). */
  name?: string;
  /**
   * 'gzip' CSV (default) for both layouts, 'zip' CSV for legacy only, 'parquet' (snappy) for CUR 2.0 only. A
   * Parquet file is built in memory (keep its months small); its costs are DOUBLE as AWS writes them, from which
   * round(cost × 1e9) gives back the exact nano-dollars of the totals.
   */
  compression?: 'gzip' | 'zip' | 'parquet';
  /** Numbered files per delivery (default 1). */
  filesPerPeriod?: number;
  /**
   * Overwrite mode: legacy files sit in the period folder without an assemblyId folder, 2.0 files directly under
   * `BILLING_PERIOD=…`; a re-delivery replaces them in place. Otherwise (default) each delivery has its own folder
   * (legacy assemblyId, 2.0 executionId) and the manifest points at the newest.
   */
  overwrite?: boolean;
  /** zlib level (default 6). */
  gzipLevel?: number;
  /**
   * Also answer each period's daily rollup rows (`PeriodTotals.rollups`): the rows an ingestion's rollup table
   * must hold. Off by default: a big month has tens of thousands of them.
   */
  rollups?: boolean;
}

/** Where generated files go. `put` consumes the body stream and answers the bytes written. */
export interface ReportSink {
  put(key: string, body: Readable): Promise<number>;
}

/** Writes into a bucket of an ObjectStore (s3rver in tests); each file is buffered once, compressed, to give its size. */
export function objectStoreSink(store: ObjectStore, bucket: string): ReportSink {
  return {
    async put(key, body) {
      const chunks: Buffer[] = [];
      for await (const chunk of body)
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
      const bytes = Buffer.concat(chunks);
      await store.write(bucket, key, bytes, { size: bytes.length });
      return bytes.length;
    },
  };
}

/** Writes under a local directory (keys become paths), streaming. */
export function directorySink(root: string): ReportSink {
  return {
    async put(key, body) {
      const file = path.join(root, ...key.split('/'));
      await mkdir(path.dirname(file), { recursive: true });
      let bytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          callback(null, chunk);
        },
      });
      await pipeline(body, counter, createWriteStream(file));
      return bytes;
    },
  };
}

/** Exact sums of what one delivery wrote, in nano-dollars; keys are the column values as written ('' for blank). */
export interface PeriodTotals {
  period: string;
  /** The delivery's version: legacy assemblyId, 2.0 executionId. */
  version: string;
  lines: number;
  costNano: bigint;
  byProduct: Record<string, bigint>;
  byLineItemType: Record<string, bigint>;
  /** 'YYYY-MM-DD' (UTC) of the usage start. */
  byDay: Record<string, bigint>;
  byResource: Record<string, bigint>;
  byAccount: Record<string, bigint>;
  byUsageType: Record<string, bigint>;
  byRegion: Record<string, bigint>;
  /** With `rollups: true`: one row per RollupKey (day, account, type, product, usage type, operation, region, resource). */
  rollups?: ExpectedRollup[];
}

/** A daily rollup row as the generator wrote it (usage amounts are floats, so they are left out of exact checks). */
export interface ExpectedRollup extends RollupKey {
  costNano: bigint;
  lineItems: number;
}

export interface ExpectedTotals {
  /** Per period, the latest readable delivery only (a corrupt re-delivery leaves the previous one). */
  periods: Record<string, PeriodTotals>;
  costNano: bigint;
  lines: number;
}

export interface GeneratedFile {
  key: string;
  bytes: number;
  lines: number;
}

export interface Delivery {
  period: string;
  /** 1 for the first delivery of the period, 2 for its first re-delivery, … */
  delivery: number;
  version: string;
  /** The manifest keys written (legacy: the period's and the assembly's copy; 2.0: one). */
  manifestKeys: string[];
  files: GeneratedFile[];
  totals: PeriodTotals;
  /**
   * Where a corrupt delivery is broken: the file, and the line (1 = header) for a bad number. Its `totals` are what
   * it would hold if it were readable; `expected()` keeps the previous delivery's.
   */
  corrupt?: { key: string; line?: number };
}

export type Corruption = 'truncated' | 'bad-number';

interface Column {
  /** Legacy `category/name`, or the 2.0 snake_case name. */
  name: string;
  type: string;
  value(line: GeneratedLine, period: { start: string; end: string; payer: string }): string;
}

const isoCache = new Map<number, string>();
/** ISO-8601 without milliseconds, as CUR writes dates; memoised, as a month has at most 745 distinct hours. */
function iso(ms: number): string {
  let text = isoCache.get(ms);
  if (text === undefined) {
    text = new Date(ms).toISOString().replace('.000Z', 'Z');
    if (isoCache.size > 100_000) isoCache.clear();
    isoCache.set(ms, text);
  }
  return text;
}

const LEGACY_COLUMNS: Column[] = [
  { name: 'identity/LineItemId', type: 'String', value: (l) => l.lineItemId },
  { name: 'identity/TimeInterval', type: 'Interval', value: (l) => `${iso(l.start)}/${iso(l.end)}` },
  { name: 'bill/BillingPeriodStartDate', type: 'DateTime', value: (_l, p) => p.start },
  { name: 'bill/BillingPeriodEndDate', type: 'DateTime', value: (_l, p) => p.end },
  { name: 'bill/PayerAccountId', type: 'String', value: (_l, p) => p.payer },
  { name: 'lineItem/UsageAccountId', type: 'String', value: (l) => l.usageAccountId },
  { name: 'lineItem/LineItemType', type: 'String', value: (l) => l.lineItemType },
  { name: 'lineItem/UsageStartDate', type: 'DateTime', value: (l) => iso(l.start) },
  { name: 'lineItem/UsageEndDate', type: 'DateTime', value: (l) => iso(l.end) },
  { name: 'lineItem/ProductCode', type: 'String', value: (l) => l.productCode },
  { name: 'lineItem/UsageType', type: 'String', value: (l) => l.usageType },
  { name: 'lineItem/Operation', type: 'String', value: (l) => l.operation },
  { name: 'lineItem/AvailabilityZone', type: 'String', value: (l) => l.availabilityZone },
  { name: 'lineItem/ResourceId', type: 'String', value: (l) => l.resourceId },
  { name: 'lineItem/UsageAmount', type: 'BigDecimal', value: (l) => l.usageAmount },
  { name: 'lineItem/UnblendedRate', type: 'BigDecimal', value: (l) => l.unblendedRate },
  { name: 'lineItem/UnblendedCost', type: 'BigDecimal', value: (l) => l.costText },
  { name: 'lineItem/LineItemDescription', type: 'String', value: (l) => l.description },
  { name: 'product/ProductName', type: 'String', value: (l) => l.productName },
  { name: 'product/region', type: 'String', value: (l) => l.region },
  { name: 'pricing/unit', type: 'String', value: (l) => l.pricingUnit },
  { name: 'resourceTags/user:Project', type: 'String', value: (l) => l.tagProject },
  { name: 'resourceTags/user:Team', type: 'String', value: (l) => l.tagTeam },
];

/** The names of AWS's CUR 2.0 table dictionary; `product` and `resource_tags` are maps, written as JSON. */
const CUR2_COLUMNS: Column[] = [
  { name: 'bill_billing_period_end_date', type: 'timestamp', value: (_l, p) => p.end },
  { name: 'bill_billing_period_start_date', type: 'timestamp', value: (_l, p) => p.start },
  { name: 'bill_payer_account_id', type: 'string', value: (_l, p) => p.payer },
  { name: 'identity_line_item_id', type: 'string', value: (l) => l.lineItemId },
  { name: 'identity_time_interval', type: 'string', value: (l) => `${iso(l.start)}/${iso(l.end)}` },
  { name: 'line_item_availability_zone', type: 'string', value: (l) => l.availabilityZone },
  { name: 'line_item_line_item_description', type: 'string', value: (l) => l.description },
  { name: 'line_item_line_item_type', type: 'string', value: (l) => l.lineItemType },
  { name: 'line_item_operation', type: 'string', value: (l) => l.operation },
  { name: 'line_item_product_code', type: 'string', value: (l) => l.productCode },
  { name: 'line_item_resource_id', type: 'string', value: (l) => l.resourceId },
  { name: 'line_item_unblended_cost', type: 'double', value: (l) => l.costText },
  { name: 'line_item_unblended_rate', type: 'string', value: (l) => l.unblendedRate },
  { name: 'line_item_usage_account_id', type: 'string', value: (l) => l.usageAccountId },
  { name: 'line_item_usage_amount', type: 'double', value: (l) => l.usageAmount },
  { name: 'line_item_usage_end_date', type: 'timestamp', value: (l) => iso(l.end) },
  { name: 'line_item_usage_start_date', type: 'timestamp', value: (l) => iso(l.start) },
  { name: 'line_item_usage_type', type: 'string', value: (l) => l.usageType },
  { name: 'pricing_unit', type: 'string', value: (l) => l.pricingUnit },
  {
    name: 'product',
    type: 'map<string,string>',
    value: (l) =>
      JSON.stringify({
        ...(l.productName ? { product_name: l.productName } : {}),
        ...(l.region ? { region: l.region } : {}),
      }),
  },
  { name: 'product_region_code', type: 'string', value: (l) => l.region },
  {
    name: 'resource_tags',
    type: 'map<string,string>',
    value: (l) =>
      JSON.stringify({
        ...(l.tagProject ? { user_project: l.tagProject } : {}),
        ...(l.tagTeam ? { user_team: l.tagTeam } : {}),
      }),
  },
];

/** A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function emptyTotals(period: string, version: string): PeriodTotals {
  return {
    period,
    version,
    lines: 0,
    costNano: 0n,
    byProduct: {},
    byLineItemType: {},
    byDay: {},
    byResource: {},
    byAccount: {},
    byUsageType: {},
    byRegion: {},
  };
}

function add(sums: Record<string, bigint>, key: string, nano: bigint): void {
  sums[key] = (sums[key] ?? 0n) + nano;
}

function count(totals: PeriodTotals, line: GeneratedLine, rollups: Map<string, ExpectedRollup> | null): void {
  totals.lines++;
  totals.costNano += line.costNano;
  add(totals.byProduct, line.productCode, line.costNano);
  add(totals.byLineItemType, line.lineItemType, line.costNano);
  add(totals.byDay, iso(line.start).slice(0, 10), line.costNano);
  add(totals.byResource, line.resourceId, line.costNano);
  add(totals.byAccount, line.usageAccountId, line.costNano);
  add(totals.byUsageType, line.usageType, line.costNano);
  add(totals.byRegion, line.region, line.costNano);
  if (!rollups) return;
  const day = iso(line.start).slice(0, 10);
  const key = [
    day,
    line.usageAccountId,
    line.lineItemType,
    line.productCode,
    line.usageType,
    line.operation,
    line.region,
    line.resourceId,
  ].join('\u0000');
  const row = rollups.get(key);
  if (row) {
    row.costNano += line.costNano;
    row.lineItems++;
  } else
    rollups.set(key, {
      usageAccountId: line.usageAccountId,
      day,
      lineItemType: line.lineItemType,
      productCode: line.productCode,
      usageType: line.usageType,
      operation: line.operation,
      region: line.region,
      resourceId: line.resourceId,
      costNano: line.costNano,
      lineItems: 1,
    });
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
const LINES_PER_CHUNK = 500;

/** Lays out a report's deliveries month by month and keeps the totals of each period's latest good delivery. */
export class CurReportGenerator {
  readonly options: Required<CurGeneratorOptions>;
  private readonly seed: string;
  private readonly pool: ResourcePool;
  private readonly deliveries = new Map<string, number>();
  private readonly latest = new Map<string, PeriodTotals>();

  constructor(options: CurGeneratorOptions) {
    this.options = {
      months: 12,
      linesPerMonth: 200,
      accounts: ['111122223333', '444455556666'],
      bucket: 'billing',
      prefix: 'cur',
      name: 'cumulo-cur',
      compression: 'gzip',
      filesPerPeriod: 1,
      overwrite: false,
      gzipLevel: 6,
      rollups: false,
      ...options,
    };
    if (this.options.layout === 'cur2' && this.options.compression === 'zip')
      throw new Error('CUR 2.0 writes gzip CSV or Parquet, never zip');
    if (this.options.layout === 'cur-legacy' && this.options.compression === 'parquet')
      throw new Error('Parquet is generated for CUR 2.0 only');
    if (this.options.accounts.length === 0) throw new Error('at least one account');
    this.seed = String(options.seed);
    this.pool = resourcePool(this.seed, this.options.accounts);
  }

  /** The periods, oldest first. */
  get periods(): string[] {
    const [year, month] = this.options.endMonth.split('-').map(Number);
    if (!year || !month) throw new Error(`bad endMonth ${this.options.endMonth}`);
    return Array.from({ length: this.options.months }, (_, i) => {
      const d = new Date(Date.UTC(year, month - this.options.months + i, 1));
      return d.toISOString().slice(0, 7);
    });
  }

  /** The first delivery of every period. */
  async writeAll(sink: ReportSink): Promise<Delivery[]> {
    const out: Delivery[] = [];
    for (const period of this.periods) out.push(await this.deliver(sink, period));
    return out;
  }

  /**
   * One more delivery of a period with new content (a new assembly/execution; in overwrite mode the same keys).
   * A corrupt one is written but does not change the expected totals: the reader must keep the previous data.
   */
  redeliver(sink: ReportSink, period: string, options: { corrupt?: Corruption } = {}): Promise<Delivery> {
    return this.deliver(sink, period, options.corrupt);
  }

  /** What a correct ingestion of everything written so far holds. */
  expected(): ExpectedTotals {
    const periods: Record<string, PeriodTotals> = {};
    let costNano = 0n;
    let lines = 0;
    for (const period of this.periods) {
      const totals = this.latest.get(period);
      if (!totals) continue;
      periods[period] = totals;
      costNano += totals.costNano;
      lines += totals.lines;
    }
    return { periods, costNano, lines };
  }

  private async deliver(sink: ReportSink, period: string, corrupt?: Corruption): Promise<Delivery> {
    const { layout, prefix, name, accounts, overwrite, filesPerPeriod, linesPerMonth } = this.options;
    const delivery = (this.deliveries.get(period) ?? 0) + 1;
    this.deliveries.set(period, delivery);
    const deliverySeed = `${this.seed}|${name}|${period}|${delivery}`;
    const prng = new Prng(`${deliverySeed}|layout`);
    const version = prng.uuid();
    const columns = prng.shuffle(layout === 'cur-legacy' ? LEGACY_COLUMNS : CUR2_COLUMNS);
    const bounds = periodBounds(period);
    const context = { start: iso(bounds.start), end: iso(bounds.end), payer: accounts[0] ?? '' };
    const range = `${ymd(bounds.start)}-${ymd(bounds.end)}`;
    const extension = { gzip: 'csv.gz', zip: 'csv.zip', parquet: 'snappy.parquet' }[this.options.compression];
    if (corrupt === 'bad-number' && this.options.compression === 'parquet')
      throw new Error('a Parquet column is typed: corrupt it with truncated');
    const base = `${prefix}/${name}`;
    const folder =
      layout === 'cur-legacy'
        ? `${base}/${range}/${overwrite ? '' : `${version}/`}`
        : `${base}/data/BILLING_PERIOD=${period}/${overwrite ? '' : `${version}/`}`;
    const fileKey = (n: number) =>
      layout === 'cur-legacy'
        ? `${folder}${name}-${n}.${extension}`
        : `${folder}${name}-${String(n).padStart(5, '0')}.${extension}`;

    const totals = emptyTotals(period, version);
    const rollups = this.options.rollups ? new Map<string, ExpectedRollup>() : null;
    const lines = periodLines(deliverySeed, bounds, linesPerMonth, accounts, this.pool);
    const corruptFile = corrupt ? prng.int(1, filesPerPeriod) : 0;
    const badLine =
      corrupt === 'bad-number' ? prng.int(0, Math.max(0, Math.ceil(linesPerMonth / filesPerPeriod) - 1)) : -1;
    let corruptAt: Delivery['corrupt'];
    const files: GeneratedFile[] = [];
    for (let n = 1; n <= filesPerPeriod; n++) {
      // Lines are split evenly; the last file takes the remainder.
      const share =
        n < filesPerPeriod
          ? Math.floor(linesPerMonth / filesPerPeriod)
          : linesPerMonth - Math.floor(linesPerMonth / filesPerPeriod) * (filesPerPeriod - 1);
      const key = fileKey(n);
      const written = { lines: 0 };
      const breakAt = n === corruptFile && badLine >= 0 ? Math.min(badLine, share - 1) : -1;
      if (breakAt >= 0) corruptAt = { key, line: breakAt + 2 };
      let body: Readable;
      if (this.options.compression === 'parquet') {
        const taken = [...takeLines(lines, share, { totals, rollups })];
        written.lines = taken.length;
        body = Readable.from([parquetFile(columns, context, taken)]);
      } else {
        const text = Readable.from(
          csvChunks(columns, context, lines, share, { totals, rollups }, written, breakAt),
        );
        body =
          this.options.compression === 'zip'
            ? Readable.from(zipOf(text, `${name}-${n}.csv`, this.options.gzipLevel))
            : piped(text, zlib.createGzip({ level: this.options.gzipLevel }));
      }
      if (n === corruptFile && corrupt === 'truncated') {
        body = Readable.from([await truncated(body)]);
        corruptAt = { key };
      }
      files.push({ key, bytes: await sink.put(key, body), lines: written.lines });
    }

    const manifestKeys = await this.writeManifests(sink, {
      period,
      version,
      columns,
      files,
      bounds,
      range,
      folder,
    });
    if (rollups)
      totals.rollups = [...rollups.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, row]) => row);
    const result: Delivery = { period, delivery, version, manifestKeys, files, totals };
    if (corruptAt) result.corrupt = corruptAt;
    else this.latest.set(period, totals);
    return result;
  }

  private async writeManifests(
    sink: ReportSink,
    d: {
      period: string;
      version: string;
      columns: Column[];
      files: GeneratedFile[];
      bounds: { start: number; end: number };
      range: string;
      folder: string;
    },
  ): Promise<string[]> {
    const { layout, prefix, name, bucket, accounts, overwrite } = this.options;
    const json = (value: unknown) => Readable.from([Buffer.from(JSON.stringify(value, null, 2))]);
    const stamp = (ms: number) => new Date(ms).toISOString().replaceAll('-', '').replaceAll(':', '');
    if (layout === 'cur-legacy') {
      const manifest = {
        assemblyId: d.version,
        account: accounts[0],
        columns: d.columns.map((c) => {
          const [category, columnName] = c.name.split('/');
          return { category, name: columnName, type: c.type };
        }),
        charset: 'UTF-8',
        compression: this.options.compression === 'zip' ? 'ZIP' : 'GZIP',
        contentType: 'text/csv',
        reportId: new Prng(`${this.seed}|report`).hex(64),
        reportName: name,
        billingPeriod: { start: stamp(d.bounds.start), end: stamp(d.bounds.end) },
        bucket,
        reportKeys: d.files.map((f) => f.key),
        additionalArtifactKeys: [],
      };
      const keys = [`${prefix}/${name}/${d.range}/${name}-Manifest.json`];
      if (!overwrite) keys.push(`${d.folder}${name}-Manifest.json`);
      // The assembly's copy first: AWS writes the period's manifest last, once every file is in place.
      for (const key of [...keys].reverse()) await sink.put(key, json(manifest));
      return keys;
    }
    const manifest = {
      executionId: d.version,
      exportArn: `arn:aws:bcm-data-exports:us-east-1:${accounts[0]}:export/${name}-${new Prng(`${this.seed}|export`).uuid()}`,
      exportName: name,
      billingPeriod: {
        start: new Date(d.bounds.start).toISOString(),
        end: new Date(d.bounds.end).toISOString(),
      },
      columns: d.columns.map((c) => ({ name: c.name, type: c.type })),
      dataFiles: d.files.map((f) => `s3://${bucket}/${f.key}`),
      additionalOutputFiles: [],
    };
    const key = `${prefix}/${name}/metadata/BILLING_PERIOD=${d.period}/${name}-Manifest.json`;
    await sink.put(key, json(manifest));
    return [key];
  }
}

/**
 * The CSV text of one file, in chunks of lines: the header, then `share` lines from the period's line stream,
 * each added to the totals. `breakAt` (a data row index) gets an unreadable cost.
 */
async function* csvChunks(
  columns: Column[],
  context: { start: string; end: string; payer: string },
  lines: Iterator<GeneratedLine>,
  share: number,
  tally: Tally,
  written: { lines: number },
  breakAt: number,
): AsyncGenerator<string> {
  let chunk = `${columns.map((c) => csvField(c.name)).join(',')}\n`;
  let row = 0;
  for (const line of takeLines(lines, share, tally)) {
    written.lines++;
    const cells = columns.map((c) => {
      if (row === breakAt && (c.name === 'lineItem/UnblendedCost' || c.name === 'line_item_unblended_cost'))
        return '12.3x4';
      return csvField(c.value(line, context));
    });
    chunk += `${cells.join(',')}\n`;
    row++;
    if (row % LINES_PER_CHUNK === 0) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

interface Tally {
  totals: PeriodTotals;
  rollups: Map<string, ExpectedRollup> | null;
}

/** Up to `share` lines of the period's stream, each added to the totals as it is taken. */
function* takeLines(lines: Iterator<GeneratedLine>, share: number, tally: Tally): Generator<GeneratedLine> {
  for (let row = 0; row < share; row++) {
    const next = lines.next();
    if (next.done) return;
    count(tally.totals, next.value, tally.rollups);
    yield next.value;
  }
}

/** One CUR 2.0 Parquet file (snappy): strings, DOUBLE amounts, millisecond timestamps and MAP columns. */
function parquetFile(
  columns: Column[],
  context: { start: string; end: string; payer: string },
  lines: GeneratedLine[],
): Buffer {
  const schema: SchemaElement[] = [{ name: 'root', num_children: columns.length }];
  const columnData = columns.map((c) => {
    const texts = lines.map((line) => c.value(line, context));
    if (c.type === 'double') {
      schema.push({ name: c.name, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
      return { name: c.name, data: texts.map(Number) };
    }
    if (c.type === 'timestamp') {
      schema.push({
        name: c.name,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        repetition_type: 'OPTIONAL',
      });
      return { name: c.name, data: texts.map((t) => new Date(t)) };
    }
    if (c.type.startsWith('map')) {
      schema.push(
        { name: c.name, repetition_type: 'OPTIONAL', converted_type: 'MAP', num_children: 1 },
        { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
        { name: 'key', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        { name: 'value', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      );
      return { name: c.name, data: texts.map((t) => JSON.parse(t) as Record<string, string>) };
    }
    schema.push({ name: c.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
    return { name: c.name, data: texts };
  });
  return Buffer.from(parquetWriteBuffer({ columnData, schema }));
}

/** The last stream of a chain, which fails with the error of any stage (pipe() alone would leave it waiting). */
function piped(source: Readable, ...stages: Transform[]): Readable {
  const last = stages.at(-1);
  if (!last) return source;
  pipeline([source, ...stages]).catch((error: unknown) =>
    last.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return last;
}

/** The compressed bytes cut in the middle of the deflate stream: a reader must fail on it, not read a prefix. */
async function truncated(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  const whole = Buffer.concat(chunks);
  return whole.subarray(0, Math.max(20, Math.floor(whole.length / 2)));
}

/**
 * A zip archive of one entry, streamed: deflated data with a data descriptor (general-purpose flag bit 3), so the
 * CRC and sizes follow the data, then the central directory. What AWS's legacy ZIP reports hold: one CSV per file.
 */
async function* zipOf(text: Readable, entryName: string, level: number): AsyncGenerator<Buffer> {
  const nameBytes = Buffer.from(entryName, 'utf8');
  const dosTime = 0;
  const dosDate = ((2026 - 1980) << 9) | (1 << 5) | 1;
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0x0808, 6); // data descriptor follows; UTF-8 name
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt16LE(dosTime, 10);
  local.writeUInt16LE(dosDate, 12);
  local.writeUInt16LE(nameBytes.length, 26);
  yield local;
  yield nameBytes;
  let crc = 0;
  let plainSize = 0;
  let compressedSize = 0;
  const checksum = new Transform({
    transform(chunk: Buffer | string, _encoding, callback) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      crc = zlib.crc32(bytes, crc);
      plainSize += bytes.length;
      callback(null, bytes);
    },
  });
  for await (const chunk of piped(text, checksum, zlib.createDeflateRaw({ level }))) {
    const bytes = chunk as Buffer;
    compressedSize += bytes.length;
    yield bytes;
  }
  if (plainSize > 0xffffffff || compressedSize > 0xffffffff) throw new Error('zip64 is not written here');
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(crc >>> 0, 4);
  descriptor.writeUInt32LE(compressedSize, 8);
  descriptor.writeUInt32LE(plainSize, 12);
  yield descriptor;
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0x0808, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt16LE(dosTime, 12);
  central.writeUInt16LE(dosDate, 14);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(compressedSize, 20);
  central.writeUInt32LE(plainSize, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42); // local header offset
  yield central;
  yield nameBytes;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + nameBytes.length, 12);
  end.writeUInt32LE(30 + nameBytes.length + compressedSize + 16, 16);
  yield end;
}

/** JSON of totals with bigints as decimal strings (for a bench's expected-totals file). */
export function totalsJson(totals: ExpectedTotals): string {
  return JSON.stringify(
    totals,
    (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
    2,
  );
}

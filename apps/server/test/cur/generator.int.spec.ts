import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '@cumulo/storage/adapters';
import { keysOf, readAll, startS3rver, type TestStoreServer } from '@cumulo/storage/testing';
import { s3rverStore } from '../harness.ts';
import {
  CurReportGenerator,
  directorySink,
  objectStoreSink,
  type CurGeneratorOptions,
  type PeriodTotals,
} from './generator.ts';

// The checks below re-read what the generator wrote with their own small CSV, zip and decimal readers, so the
// totals are verified independently of the code that computed them.

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'cumulo-curgen-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let runs = 0;
async function generated(options: Partial<CurGeneratorOptions> & Pick<CurGeneratorOptions, 'layout'>) {
  const dir = path.join(root, `run-${++runs}`);
  const generator = new CurReportGenerator({
    seed: 11,
    endMonth: '2026-03',
    months: 3,
    linesPerMonth: 120,
    ...options,
  });
  const sink = directorySink(dir);
  const deliveries = await generator.writeAll(sink);
  return { dir, generator, sink, deliveries };
}

async function filesUnder(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, file).split(path.sep).join('/'), await readFile(file));
  }
  return out;
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and line breaks). */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** The one entry of a zip archive, found through its central directory. */
function unzipOne(zip: Buffer): Buffer {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const central = zip.readUInt32LE(end + 16);
  expect(zip.readUInt32LE(central)).toBe(0x02014b50);
  const compressedSize = zip.readUInt32LE(central + 20);
  const size = zip.readUInt32LE(central + 24);
  const local = zip.readUInt32LE(central + 42);
  const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const plain = zlib.inflateRawSync(zip.subarray(dataStart, dataStart + compressedSize));
  expect(plain.length).toBe(size);
  expect(zlib.crc32(plain) >>> 0).toBe(zip.readUInt32LE(central + 16));
  return plain;
}

function nanoOf(decimal: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,10}))?$/.exec(decimal);
  if (!match) throw new Error(`not a decimal: ${decimal}`);
  const fraction = (match[3] ?? '').padEnd(10, '0');
  expect(fraction.endsWith('0')).toBe(true);
  const nano = BigInt(match[2] ?? '0') * 1_000_000_000n + BigInt(fraction.slice(0, 9));
  return match[1] ? -nano : nano;
}

const NAMES = {
  'cur-legacy': {
    account: 'lineItem/UsageAccountId',
    type: 'lineItem/LineItemType',
    start: 'lineItem/UsageStartDate',
    product: 'lineItem/ProductCode',
    resource: 'lineItem/ResourceId',
    cost: 'lineItem/UnblendedCost',
    description: 'lineItem/LineItemDescription',
    usageType: 'lineItem/UsageType',
    operation: 'lineItem/Operation',
    region: 'product/region',
  },
  cur2: {
    account: 'line_item_usage_account_id',
    type: 'line_item_line_item_type',
    start: 'line_item_usage_start_date',
    product: 'line_item_product_code',
    resource: 'line_item_resource_id',
    cost: 'line_item_unblended_cost',
    description: 'line_item_line_item_description',
    usageType: 'line_item_usage_type',
    operation: 'line_item_operation',
    region: 'product_region_code',
  },
} as const;

interface ReRead {
  totals: Pick<
    PeriodTotals,
    'lines' | 'costNano' | 'byProduct' | 'byLineItemType' | 'byDay' | 'byResource' | 'byAccount'
  >;
  starts: string[];
  descriptions: string[];
  header: string[];
  /** Cost and count per day, account, type, product, usage type, operation, region and resource. */
  rollups: Map<string, { costNano: bigint; lineItems: number }>;
}

/** Reads a period the way an ingestion would: its manifest, then every file it lists, columns by header name. */
async function reRead(
  dir: string,
  manifestKey: string,
  layout: CurGeneratorOptions['layout'],
): Promise<ReRead> {
  const manifest = JSON.parse(await readFile(path.join(dir, manifestKey), 'utf8')) as {
    reportKeys?: string[];
    dataFiles?: string[];
  };
  const keys =
    layout === 'cur-legacy'
      ? (manifest.reportKeys ?? [])
      : (manifest.dataFiles ?? []).map((u) => u.replace(/^s3:\/\/[^/]+\//, ''));
  const totals: ReRead['totals'] = {
    lines: 0,
    costNano: 0n,
    byProduct: {},
    byLineItemType: {},
    byDay: {},
    byResource: {},
    byAccount: {},
  };
  const add = (sums: Record<string, bigint>, key: string, nano: bigint) =>
    (sums[key] = (sums[key] ?? 0n) + nano);
  const out: ReRead = { totals, starts: [], descriptions: [], header: [], rollups: new Map() };
  for (const key of keys) {
    const bytes = await readFile(path.join(dir, key));
    const text = (key.endsWith('.zip') ? unzipOne(bytes) : zlib.gunzipSync(bytes)).toString('utf8');
    const [header = [], ...rows] = csvRows(text);
    out.header = header;
    const n = NAMES[layout];
    const at = (name: string) => {
      const index = header.indexOf(name);
      expect(index, name).toBeGreaterThanOrEqual(0);
      return index;
    };
    const col = {
      account: at(n.account),
      type: at(n.type),
      start: at(n.start),
      product: at(n.product),
      resource: at(n.resource),
      cost: at(n.cost),
      description: at(n.description),
    };
    for (const row of rows) {
      expect(row).toHaveLength(header.length);
      const cost = nanoOf(row[col.cost] ?? '');
      const start = row[col.start] ?? '';
      totals.lines++;
      totals.costNano += cost;
      add(totals.byProduct, row[col.product] ?? '', cost);
      add(totals.byLineItemType, row[col.type] ?? '', cost);
      add(totals.byDay, start.slice(0, 10), cost);
      add(totals.byResource, row[col.resource] ?? '', cost);
      add(totals.byAccount, row[col.account] ?? '', cost);
      out.starts.push(start);
      out.descriptions.push(row[col.description] ?? '');
      const rollupKey = [
        start.slice(0, 10),
        row[col.account],
        row[col.type],
        row[col.product],
        row[at(n.usageType)],
        row[at(n.operation)],
        row[at(n.region)],
        row[col.resource],
      ].join('|');
      const rollup = out.rollups.get(rollupKey) ?? { costNano: 0n, lineItems: 0 };
      out.rollups.set(rollupKey, { costNano: rollup.costNano + cost, lineItems: rollup.lineItems + 1 });
    }
  }
  return out;
}

function summed(t: PeriodTotals): ReRead['totals'] {
  const { lines, costNano, byProduct, byLineItemType, byDay, byResource, byAccount } = t;
  return { lines, costNano, byProduct, byLineItemType, byDay, byResource, byAccount };
}

describe('billing-report generator (files on disk, re-read independently)', () => {
  it('writes the same bytes and totals for the same seed, and other bytes for another seed', async () => {
    const a = await generated({ layout: 'cur-legacy', filesPerPeriod: 2 });
    const b = await generated({ layout: 'cur-legacy', filesPerPeriod: 2 });
    const c = await generated({ layout: 'cur-legacy', filesPerPeriod: 2, seed: 12 });
    const [filesA, filesB, filesC] = await Promise.all([
      filesUnder(a.dir),
      filesUnder(b.dir),
      filesUnder(c.dir),
    ]);
    expect([...filesA.keys()].sort()).toEqual([...filesB.keys()].sort());
    for (const [key, bytes] of filesA)
      expect(bytes.equals(filesB.get(key) ?? Buffer.alloc(0)), key).toBe(true);
    expect(a.generator.expected()).toEqual(b.generator.expected());
    expect(c.generator.expected().costNano).not.toBe(a.generator.expected().costNano);
    expect([...filesC.keys()].filter((key) => filesA.has(key) && key.endsWith('.gz'))).toEqual([]);
  });

  it.each([
    { layout: 'cur-legacy', compression: 'gzip', filesPerPeriod: 3 },
    { layout: 'cur-legacy', compression: 'zip', filesPerPeriod: 2 },
    { layout: 'cur2', compression: 'gzip', filesPerPeriod: 2 },
  ] as const)('answers the totals a re-read of its $layout $compression files finds', async (options) => {
    const { dir, generator, deliveries } = await generated(options);
    const expected = generator.expected();
    expect(Object.keys(expected.periods)).toEqual(['2026-01', '2026-02', '2026-03']);
    const headers = new Set<string>();
    for (const delivery of deliveries) {
      expect(delivery.files).toHaveLength(options.filesPerPeriod);
      const read = await reRead(dir, delivery.manifestKeys[0] ?? '', options.layout);
      const totals = expected.periods[delivery.period];
      if (!totals) throw new Error(`no totals for ${delivery.period}`);
      expect(read.totals).toEqual(summed(totals));
      headers.add(read.header.join(','));

      // Month boundaries: every line starts inside its own period, some on its first hour and some on its last.
      const [year, month] = delivery.period.split('-').map(Number);
      const first = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, 1)).toISOString().replace('.000Z', 'Z');
      const last = new Date(Date.UTC(year ?? 0, month ?? 1, 1) - 3_600_000)
        .toISOString()
        .replace('.000Z', 'Z');
      expect(read.starts.every((s) => s >= first && s <= last)).toBe(true);
      expect(read.starts).toContain(last);
      expect(read.starts.filter((s) => s === first).length).toBeGreaterThan(1);

      for (const type of [
        'Usage',
        'Fee',
        'RIFee',
        'Tax',
        'Credit',
        'Refund',
        'SavingsPlanCoveredUsage',
        'SavingsPlanNegation',
      ])
        expect(Object.keys(totals.byLineItemType)).toContain(type);
      expect(totals.byLineItemType.Credit ?? 0n).toBeLessThan(0n);
      expect(totals.byLineItemType.Refund ?? 0n).toBeLessThan(0n);
      expect(Object.keys(totals.byResource)).toContain('');
      // Quoted fields with commas and quotes come back whole.
      expect(read.descriptions).toContain('Refund for "service disruption", us-east-1');
    }
    // Column order differs between deliveries: readers map columns by name.
    expect(headers.size).toBe(deliveries.length);
  });

  it('answers the totals a re-read of its CUR 2.0 Parquet files finds (costs as DOUBLE, maps as MAP)', async () => {
    const { dir, generator, deliveries } = await generated({
      layout: 'cur2',
      compression: 'parquet',
      filesPerPeriod: 2,
    });
    for (const delivery of deliveries) {
      const manifest = JSON.parse(await readFile(path.join(dir, delivery.manifestKeys[0] ?? ''), 'utf8')) as {
        dataFiles: string[];
      };
      expect(manifest.dataFiles.every((f) => f.endsWith('.snappy.parquet'))).toBe(true);
      const byProduct: Record<string, bigint> = {};
      let costNano = 0n;
      let lines = 0;
      for (const uri of manifest.dataFiles) {
        const bytes = await readFile(path.join(dir, uri.replace('s3://billing/', '')));
        const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        const rows = (await parquetReadObjects({ file })) as Array<Record<string, unknown>>;
        for (const row of rows) {
          const cost = BigInt(Math.round(Number(row.line_item_unblended_cost) * 1e9));
          const product = String(row.line_item_product_code);
          byProduct[product] = (byProduct[product] ?? 0n) + cost;
          costNano += cost;
          lines++;
          expect(row.line_item_usage_start_date).toBeInstanceOf(Date);
          if (row.line_item_line_item_type === 'Fee')
            expect(row.product).toEqual({ product_name: 'AWS Support (Business)' });
        }
      }
      const totals = generator.expected().periods[delivery.period];
      expect({ lines, costNano, byProduct }).toEqual({
        lines: totals?.lines,
        costNano: totals?.costNano,
        byProduct: totals?.byProduct,
      });
    }
  });

  it.each(['cur-legacy', 'cur2'] as const)(
    'answers the daily rollup rows of its %s files when asked',
    async (layout) => {
      const { dir, generator, deliveries } = await generated({ layout, rollups: true, filesPerPeriod: 2 });
      for (const delivery of deliveries) {
        const read = await reRead(dir, delivery.manifestKeys[0] ?? '', layout);
        const rows = generator.expected().periods[delivery.period]?.rollups ?? [];
        const answered = new Map(
          rows.map((r) => [
            [
              r.day,
              r.usageAccountId,
              r.lineItemType,
              r.productCode,
              r.usageType,
              r.operation,
              r.region,
              r.resourceId,
            ].join('|'),
            { costNano: r.costNano, lineItems: r.lineItems },
          ]),
        );
        expect(answered.size).toBe(rows.length);
        expect(answered).toEqual(read.rollups);
      }
    },
  );

  it.each(['cur-legacy', 'cur2'] as const)(
    'a re-delivered %s month gets a new manifest version and new totals; the other months keep theirs',
    async (layout) => {
      const { dir, generator, sink, deliveries } = await generated({ layout, filesPerPeriod: 2 });
      const before = generator.expected();
      const again = await generator.redeliver(sink, '2026-02');
      const after = generator.expected();

      const periodManifest = deliveries[1]?.manifestKeys[0] ?? '';
      expect(again.manifestKeys[0]).toBe(periodManifest);
      const manifest = JSON.parse(await readFile(path.join(dir, periodManifest), 'utf8')) as Record<
        string,
        unknown
      >;
      const version = layout === 'cur-legacy' ? manifest.assemblyId : manifest.executionId;
      const files = ((layout === 'cur-legacy' ? manifest.reportKeys : manifest.dataFiles) as string[]).map(
        (k) => k.replace('s3://billing/', ''),
      );
      expect(version).toBe(again.version);
      expect(version).not.toBe(deliveries[1]?.version);
      expect(files).toEqual(again.files.map((f) => f.key));
      expect(files.every((k) => k.includes(`/${again.version}/`))).toBe(true);
      // The first delivery's files stay where they were (create-new mode keeps every version).
      for (const file of deliveries[1]?.files ?? [])
        await expect(readFile(path.join(dir, file.key))).resolves.toBeTruthy();

      expect(after.periods['2026-02']?.version).toBe(again.version);
      expect(after.periods['2026-02']?.costNano).not.toBe(before.periods['2026-02']?.costNano);
      expect(after.periods['2026-01']).toEqual(before.periods['2026-01']);
      expect(after.periods['2026-03']).toEqual(before.periods['2026-03']);
      expect((await reRead(dir, periodManifest, layout)).totals).toEqual(
        summed(after.periods['2026-02'] as PeriodTotals),
      );
    },
  );

  it.each(['cur-legacy', 'cur2'] as const)(
    'in %s overwrite mode a re-delivery replaces the files in place',
    async (layout) => {
      const { dir, generator, sink, deliveries } = await generated({
        layout,
        overwrite: true,
        filesPerPeriod: 2,
      });
      const first = deliveries[2];
      if (!first) throw new Error('no third delivery');
      expect(first.files.every((f) => !f.key.includes(first.version))).toBe(true);
      const filesBefore = await filesUnder(dir);
      const again = await generator.redeliver(sink, '2026-03');
      const filesAfter = await filesUnder(dir);

      expect(again.files.map((f) => f.key)).toEqual(first.files.map((f) => f.key));
      expect([...filesAfter.keys()].sort()).toEqual([...filesBefore.keys()].sort());
      for (const file of again.files)
        expect(filesAfter.get(file.key)?.equals(filesBefore.get(file.key) ?? Buffer.alloc(0))).toBe(false);
      const manifest = JSON.parse(
        await readFile(path.join(dir, again.manifestKeys[0] ?? ''), 'utf8'),
      ) as Record<string, unknown>;
      expect(manifest[layout === 'cur-legacy' ? 'assemblyId' : 'executionId']).toBe(again.version);
      expect((await reRead(dir, again.manifestKeys[0] ?? '', layout)).totals).toEqual(
        summed(generator.expected().periods['2026-03'] as PeriodTotals),
      );
    },
  );

  it('a corrupt re-delivery names where it is broken and leaves the expected totals as they were', async () => {
    const { dir, generator, sink } = await generated({ layout: 'cur-legacy', filesPerPeriod: 2 });
    const before = generator.expected();

    const truncated = await generator.redeliver(sink, '2026-01', { corrupt: 'truncated' });
    const cut = await readFile(path.join(dir, truncated.corrupt?.key ?? ''));
    expect(() => zlib.gunzipSync(cut)).toThrow();

    const badNumber = await generator.redeliver(sink, '2026-02', { corrupt: 'bad-number' });
    const line = badNumber.corrupt?.line ?? 0;
    const text = zlib
      .gunzipSync(await readFile(path.join(dir, badNumber.corrupt?.key ?? '')))
      .toString('utf8');
    const [header = [], ...rows] = csvRows(text);
    expect(rows[line - 2]?.[header.indexOf('lineItem/UnblendedCost')]).toBe('12.3x4');

    expect(generator.expected()).toEqual(before);
  });
});

describe('billing-report generator into s3rver', () => {
  let s3rver: TestStoreServer;
  let store: S3ObjectStore;
  beforeAll(async () => {
    s3rver = await startS3rver();
    store = s3rverStore(s3rver.endpoint);
    await store.createBucket('billing');
  });
  afterAll(async () => {
    await store.close();
    await s3rver.stop();
  });

  it('a generated year of both layouts lists exactly the manifests and files it wrote', async () => {
    const sink = objectStoreSink(store, 'billing');
    const legacy = new CurReportGenerator({
      seed: 3,
      layout: 'cur-legacy',
      name: 'legacy',
      endMonth: '2026-10',
      linesPerMonth: 40,
      filesPerPeriod: 2,
    });
    const cur2 = new CurReportGenerator({
      seed: 3,
      layout: 'cur2',
      name: 'exports',
      endMonth: '2026-10',
      linesPerMonth: 40,
    });
    const written = [...(await legacy.writeAll(sink)), ...(await cur2.writeAll(sink))];
    expect(legacy.periods).toHaveLength(12);
    expect(legacy.periods[0]).toBe('2025-11');

    const listed = await keysOf(store, 'billing', 'cur/');
    const expectedKeys = written.flatMap((d) => [...d.manifestKeys, ...d.files.map((f) => f.key)]);
    expect(listed.sort()).toEqual([...new Set(expectedKeys)].sort());
    expect(listed).toContain('cur/legacy/20251101-20251201/legacy-Manifest.json');
    expect(listed).toContain('cur/exports/metadata/BILLING_PERIOD=2026-10/exports-Manifest.json');

    const body = await readAll(store, 'billing', written[0]?.files[0]?.key ?? '');
    expect(zlib.gunzipSync(body).toString('utf8').split('\n').length).toBe(
      (written[0]?.files[0]?.lines ?? 0) + 2,
    );
  });
});

import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { RollupAggregator, aggregateLineItems } from './aggregate.ts';
import { parseNanoDollars } from './money.ts';
import { readLineItemBatches, readLineItems } from './read-report.ts';
import type { LineItem, ReportFile, ReportFileFormat, ReportLayout } from './report-types.ts';
import { ReportError } from './report-types.ts';

const LEGACY_COLUMNS = {
  usageAccountId: 'lineItem/UsageAccountId',
  day: 'lineItem/UsageStartDate',
  lineItemType: 'lineItem/LineItemType',
  productCode: 'lineItem/ProductCode',
  usageType: 'lineItem/UsageType',
  operation: 'lineItem/Operation',
  region: 'product/region',
  resourceId: 'lineItem/ResourceId',
  usageAmount: 'lineItem/UsageAmount',
  costNano: 'lineItem/UnblendedCost',
};
const CUR2_COLUMNS = {
  usageAccountId: 'line_item_usage_account_id',
  day: 'line_item_usage_start_date',
  lineItemType: 'line_item_line_item_type',
  productCode: 'line_item_product_code',
  usageType: 'line_item_usage_type',
  operation: 'line_item_operation',
  region: 'product_region_code',
  resourceId: 'line_item_resource_id',
  usageAmount: 'line_item_usage_amount',
  costNano: 'line_item_unblended_cost',
};
type Column = keyof typeof LEGACY_COLUMNS;

interface ReportLine {
  account?: string;
  start?: string;
  type?: string;
  product?: string;
  usageType?: string;
  operation?: string;
  region?: string;
  resource?: string;
  usage?: string;
  cost?: string;
}

const valueOf = (line: ReportLine, column: Column): string =>
  ({
    usageAccountId: line.account ?? '111122223333',
    day: line.start ?? '2026-06-01T00:00:00Z',
    lineItemType: line.type ?? 'Usage',
    productCode: line.product ?? 'AmazonS3',
    usageType: line.usageType ?? 'TimedStorage-ByteHrs',
    operation: line.operation ?? 'StandardStorage',
    region: line.region ?? 'us-east-1',
    resourceId: line.resource ?? 'my-bucket',
    usageAmount: line.usage ?? '1',
    costNano: line.cost ?? '0.5',
  })[column];

const quoted = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** A report's CSV text with the given columns in the given order (plus unmapped ones AWS also writes). */
function csvOf(layout: ReportLayout, lines: ReportLine[], order?: Column[]): string {
  const names = layout === 'cur-legacy' ? LEGACY_COLUMNS : CUR2_COLUMNS;
  const columns = order ?? (Object.keys(names) as Column[]);
  const header = ['identity/LineItemId', ...columns.map((column) => names[column]), 'resourceTags/user:team'];
  const rows = lines.map((line, index) =>
    [`id-${index}`, ...columns.map((column) => quoted(valueOf(line, column))), 'storage'].join(','),
  );
  return [header.join(','), ...rows].join('\n') + '\n';
}

const fileOf = (format: ReportFileFormat, key = `report-00001.${format}`): ReportFile => ({ key, format });

/** The stream of some bytes, in small chunks so records straddle chunk boundaries. */
const streamOf = (bytes: Buffer, chunk = 7): Readable =>
  Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += chunk) yield bytes.subarray(at, at + chunk);
    })(),
  );

async function itemsOf(
  bytes: Buffer,
  file: ReportFile,
  layout: ReportLayout = 'cur-legacy',
): Promise<LineItem[]> {
  const items: LineItem[] = [];
  for await (const item of readLineItems(streamOf(bytes), file, layout)) items.push(item);
  return items;
}

async function failureOf(
  bytes: Buffer,
  file: ReportFile,
  layout: ReportLayout = 'cur-legacy',
): Promise<ReportError> {
  const error = await itemsOf(bytes, file, layout).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ReportError);
  return error as ReportError;
}

/** A one-entry zip archive, as AWS writes a legacy report's `.csv.zip` (deflated or stored). */
function zipOf(name: string, content: Buffer, method: 0 | 8 = 8): Buffer {
  const data = method === 8 ? zlib.deflateRawSync(content) : content;
  const fileName = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(method, 8);
  local.writeUInt32LE(zlib.crc32(content), 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(method, 10);
  central.writeUInt32LE(zlib.crc32(content), 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + fileName.length, 12);
  end.writeUInt32LE(30 + fileName.length + data.length, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}

describe('readLineItems (billing report reader, issue 24)', () => {
  it('maps legacy and CUR 2.0 columns by header name, in any order', async () => {
    const line: ReportLine = {
      account: '444455556666',
      start: '2026-06-03T05:00:00Z',
      type: 'DiscountedUsage',
      product: 'AmazonEC2',
      usageType: 'BoxUsage:t3.medium',
      operation: 'RunInstances',
      region: 'eu-west-1',
      resource: 'i-0abc',
      usage: '24',
      cost: '1.25',
    };
    const expected: LineItem = {
      usageAccountId: '444455556666',
      day: '2026-06-03',
      lineItemType: 'DiscountedUsage',
      productCode: 'AmazonEC2',
      usageType: 'BoxUsage:t3.medium',
      operation: 'RunInstances',
      region: 'eu-west-1',
      resourceId: 'i-0abc',
      usageAmount: 24,
      costNano: 1_250_000_000n,
    };
    const shuffled: Column[] = [
      'costNano',
      'region',
      'day',
      'resourceId',
      'usageAccountId',
      'operation',
      'usageAmount',
      'lineItemType',
      'usageType',
      'productCode',
    ];
    for (const layout of ['cur-legacy', 'cur2'] as const) {
      for (const order of [undefined, shuffled]) {
        const items = await itemsOf(Buffer.from(csvOf(layout, [line], order)), fileOf('csv'), layout);
        expect(items, `${layout} ${order ? 'shuffled' : 'in order'}`).toEqual([expected]);
      }
    }
  });

  it('reads quoted fields holding commas, doubled quotes and line breaks, with CRLF line ends', async () => {
    const text = csvOf('cur-legacy', [
      { resource: 'a,b "c"\nd', operation: 'Op,"x"' },
      { resource: '', cost: '2' },
    ]).replaceAll('\n', '\r\n');
    const items = await itemsOf(Buffer.from(text), fileOf('csv'));
    expect(items.map((item) => [item.resourceId, item.operation, item.costNano])).toEqual([
      ['a,b "c"\r\nd', 'Op,"x"', 500_000_000n],
      ['', 'StandardStorage', 2_000_000_000n],
    ]);
  });

  it('reads UTF-8 text whose characters straddle chunks, beside ASCII-only chunks', async () => {
    const resource = 'bücket-é€𝄞-ñ';
    const text = csvOf('cur-legacy', [
      { resource, operation: 'Öp' },
      { resource: 'plain-ascii-bucket-name' },
    ]);
    // Every chunk size cuts some multi-byte character and leaves other chunks all ASCII.
    for (const chunk of [1, 2, 3, 5, 7]) {
      const items: LineItem[] = [];
      for await (const item of readLineItems(streamOf(Buffer.from(text), chunk), fileOf('csv'), 'cur-legacy'))
        items.push(item);
      expect(
        items.map((item) => [item.resourceId, item.operation]),
        `${chunk}-byte chunks`,
      ).toEqual([
        [resource, 'Öp'],
        ['plain-ascii-bucket-name', 'StandardStorage'],
      ]);
    }
    // A character cut short by an ASCII chunk reads as U+FFFD, as a UTF-8 decoder writes it.
    const cut = Buffer.concat([
      Buffer.from(csvOf('cur-legacy', []).trimEnd() + '\n'),
      Buffer.from('id-0,111122223333,2026-06-01T00:00:00Z,Usage,AmazonS3,T,Op,us-east-1,b'),
      Buffer.from('é').subarray(0, 1),
      Buffer.from('x,1,0.5,storage\n'),
    ]);
    const [item] = await itemsOf(cut, fileOf('csv'));
    expect(item?.resourceId).toBe('b\ufffdx');
  });

  it('takes the day of the usage start in UTC, across midnight and month ends', async () => {
    const starts = [
      '2026-06-30T23:59:59Z',
      '2026-07-01T00:00:00Z',
      '2026-06-30T23:00:00.000Z',
      '2026-07-01T01:30:00+02:00',
      '2026-12-31 23:00:00',
    ];
    const items = await itemsOf(
      Buffer.from(
        csvOf(
          'cur-legacy',
          starts.map((start) => ({ start })),
        ),
      ),
      fileOf('csv'),
    );
    expect(items.map((item) => item.day)).toEqual([
      '2026-06-30',
      '2026-07-01',
      '2026-06-30',
      '2026-06-30',
      '2026-12-31',
    ]);
  });

  it('reads gzip CSV (several members) and zip CSV (deflated and stored)', async () => {
    const text = Buffer.from(
      csvOf('cur-legacy', [{ cost: '0.1' }, { cost: '0.2' }, { cost: '-0.05', type: 'Credit' }]),
    );
    const split = text.indexOf('\n', 200);
    const twoMembers = Buffer.concat([
      zlib.gzipSync(text.subarray(0, split)),
      zlib.gzipSync(text.subarray(split)),
    ]);
    for (const [bytes, format] of [
      [zlib.gzipSync(text), 'csv.gz'],
      [twoMembers, 'csv.gz'],
      [zipOf('report-1.csv', text), 'csv.zip'],
      [zipOf('report-1.csv', text, 0), 'csv.zip'],
    ] as const) {
      const items = await itemsOf(bytes, fileOf(format));
      expect(items.map((item) => [item.lineItemType, item.costNano])).toEqual([
        ['Usage', 100_000_000n],
        ['Usage', 200_000_000n],
        ['Credit', -50_000_000n],
      ]);
    }
  });

  it('reads CUR 2.0 Parquet row group by row group, floats and timestamps made exact', async () => {
    const rows = 25;
    const column = (name: string, data: unknown[]) => ({ name, data });
    const buffer = parquetWriteBuffer({
      rowGroupSize: 10,
      columnData: [
        column(
          'line_item_unblended_cost',
          Array.from({ length: rows }, (_, index) => (index === 0 ? 1.2e-7 : 0.1)),
        ),
        column(
          'line_item_usage_account_id',
          Array.from({ length: rows }, () => '111122223333'),
        ),
        column(
          'line_item_usage_start_date',
          Array.from({ length: rows }, (_, index) => new Date(Date.UTC(2026, 5, 30, 23 + index))),
        ),
        column(
          'line_item_line_item_type',
          Array.from({ length: rows }, () => 'Usage'),
        ),
        column(
          'line_item_product_code',
          Array.from({ length: rows }, () => 'AmazonS3'),
        ),
        column(
          'line_item_usage_type',
          Array.from({ length: rows }, () => 'Requests-Tier1'),
        ),
        column(
          'line_item_operation',
          Array.from({ length: rows }, () => 'PutObject'),
        ),
        column(
          'product_region_code',
          Array.from({ length: rows }, () => 'us-east-1'),
        ),
        column(
          'line_item_resource_id',
          Array.from({ length: rows }, () => null),
        ),
        column(
          'line_item_usage_amount',
          Array.from({ length: rows }, () => 2),
        ),
      ] as Parameters<typeof parquetWriteBuffer>[0]['columnData'],
    });
    const batches: LineItem[][] = [];
    for await (const batch of readLineItemBatches(
      streamOf(Buffer.from(buffer), 1000),
      fileOf('parquet'),
      'cur2',
    )) {
      batches.push(batch);
    }
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    const items = batches.flat();
    expect(items[0]).toMatchObject({ day: '2026-06-30', costNano: 120n, resourceId: '', usageAmount: 2 });
    expect(items[1]).toMatchObject({ day: '2026-07-01', costNano: 100_000_000n });
    expect(items.reduce((sum, item) => sum + item.costNano, 0n)).toBe(120n + 24n * 100_000_000n);

    const cut = Buffer.from(buffer).subarray(0, buffer.byteLength - 100);
    const cutError = await failureOf(
      cut,
      fileOf('parquet', 'data/BILLING_PERIOD=2026-06/x-00001.snappy.parquet'),
      'cur2',
    );
    expect(cutError.message).toContain(
      'data/BILLING_PERIOD=2026-06/x-00001.snappy.parquet: the file is not a readable Parquet file',
    );
    const legacyNames = await failureOf(Buffer.from(buffer), fileOf('parquet'), 'cur-legacy');
    expect(legacyNames.message).toContain('the header has no lineItem/UsageAccountId column');
  });

  it('fails a truncated gzip or zip with a ReportError naming the file', async () => {
    const text = Buffer.from(
      csvOf(
        'cur-legacy',
        Array.from({ length: 500 }, () => ({})),
      ),
    );
    const gzip = zlib.gzipSync(text);
    const gzipError = await failureOf(
      gzip.subarray(0, gzip.length - 40),
      fileOf('csv.gz', 'cur/2026-06/a-1.csv.gz'),
    );
    expect(gzipError.file).toBe('cur/2026-06/a-1.csv.gz');
    expect(gzipError.message).toContain('truncated');
    const zip = zipOf('a.csv', text);
    const zipError = await failureOf(zip.subarray(0, 200), fileOf('csv.zip', 'cur/2026-06/a-1.csv.zip'));
    expect(zipError.file).toBe('cur/2026-06/a-1.csv.zip');
    expect(zipError.message).toContain('truncated');
    // The object's GET failing half way through fails the file too, for every format, instead of hanging.
    for (const format of ['csv', 'csv.gz', 'csv.zip'] as const) {
      const bytes = format === 'csv' ? text : format === 'csv.gz' ? gzip : zip;
      const failing = Readable.from(
        (async function* () {
          yield bytes.subarray(0, 100);
          throw new Error('socket hang up');
        })(),
      );
      const items = (async () => {
        for await (const item of readLineItems(failing, fileOf(format, `broken.${format}`), 'cur-legacy'))
          void item;
      })();
      await expect(items).rejects.toThrow(`broken.${format}: the file cannot be read (socket hang up)`);
    }
    const storedZip = zipOf('a.csv', text, 0);
    expect((await failureOf(storedZip.subarray(0, 300), fileOf('csv.zip'))).message).toContain('truncated');
  });

  it('fails a bad cost, a bad date, a wrong column count or a missing column with the file and line', async () => {
    const file = fileOf('csv', 'cur/2026-06/a-1.csv');
    const badCost = csvOf('cur-legacy', [{}, { resource: 'x\ny' }, { cost: '12,5' }]);
    // The third line item starts on line 5: the header, one line, then a resource id holding a line break.
    const costError = await failureOf(Buffer.from(badCost), file);
    expect([costError.file, costError.line]).toEqual(['cur/2026-06/a-1.csv', 5]);
    expect(costError.message).toContain("line 5: the cost '12,5' is not a number");

    const badNumber = await failureOf(Buffer.from(csvOf('cur-legacy', [{}, { cost: 'n/a' }])), file);
    expect([badNumber.line, badNumber.message]).toEqual([
      3,
      "cur/2026-06/a-1.csv, line 3: the cost 'n/a' is not a number",
    ]);

    const badDate = await failureOf(Buffer.from(csvOf('cur-legacy', [{ start: 'yesterday' }])), file);
    expect(badDate.line).toBe(2);

    const shortLine = `${csvOf('cur-legacy', [{}])}id-x,1,2\n`;
    const shortError = await failureOf(Buffer.from(shortLine), file);
    expect([shortError.line, shortError.message]).toEqual([
      3,
      'cur/2026-06/a-1.csv, line 3: the line has 3 columns where the header has 12',
    ]);

    const noCost = csvOf('cur-legacy', [{}]).replace('lineItem/UnblendedCost', 'lineItem/BlendedCost');
    const headerError = await failureOf(Buffer.from(noCost), file);
    expect(headerError.message).toBe(
      'cur/2026-06/a-1.csv, line 1: the header has no lineItem/UnblendedCost column',
    );
    // A CUR 2.0 file read as legacy names the legacy column it lacks.
    expect((await failureOf(Buffer.from(csvOf('cur2', [{}])), file)).line).toBe(1);

    const unclosed = `${csvOf('cur-legacy', [{}])}id-x,"open`;
    expect((await failureOf(Buffer.from(unclosed), file)).line).toBe(3);
  });
});

describe('parseNanoDollars (exact money of billing reports)', () => {
  it('parses decimals, negatives, exponents and blanks exactly, rounding half away from zero', () => {
    expect(parseNanoDollars('')).toBe(0n);
    expect(parseNanoDollars('12.345678901')).toBe(12_345_678_901n);
    expect(parseNanoDollars('12.3456789015')).toBe(12_345_678_902n);
    expect(parseNanoDollars('12.3456789014')).toBe(12_345_678_901n);
    expect(parseNanoDollars('0.0000000015')).toBe(2n);
    expect(parseNanoDollars('0.0000000014999')).toBe(1n);
    expect(parseNanoDollars('-0.0000000015')).toBe(-2n);
    expect(parseNanoDollars('-0.0000000014')).toBe(-1n);
    expect(parseNanoDollars('0.00000000049')).toBe(0n);
    expect(parseNanoDollars('1.2E-7')).toBe(120n);
    expect(parseNanoDollars('-4.5e-10')).toBe(0n);
    expect(parseNanoDollars('-5e-10')).toBe(-1n);
    expect(parseNanoDollars('3E+2')).toBe(300_000_000_000n);
    expect(parseNanoDollars('.5')).toBe(500_000_000n);
    expect(parseNanoDollars('7.')).toBe(7_000_000_000n);
    expect(parseNanoDollars('123456789012.123456789')).toBe(123_456_789_012_123_456_789n);
    for (const bad of ['abc', '1,5', '.', '-', '1e', '0x10', '1.2.3', 'NaN'])
      expect(parseNanoDollars(bad), bad).toBeUndefined();
  });

  it('is exact for plain decimals of every length, around the 15 digits a Number holds', () => {
    let state = 7;
    const next = (limit: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state % limit;
    };
    for (let index = 0; index < 20_000; index++) {
      const whole = Array.from({ length: next(9) }, () => next(10)).join('');
      const fraction = Array.from({ length: next(14) }, () => next(10)).join('');
      const negative = next(2) === 0;
      const text = `${negative ? '-' : ''}${whole || '0'}${fraction ? `.${fraction}` : ''}`;
      // The reference in BigInt alone: digits × 10^9 ÷ 10^decimals, half away from zero.
      const scaled = BigInt(`${whole}${fraction}` || '0') * 10n ** 9n;
      const divisor = 10n ** BigInt(fraction.length);
      const magnitude = scaled / divisor + ((scaled % divisor) * 2n >= divisor ? 1n : 0n);
      expect(parseNanoDollars(text), text).toBe(negative ? -magnitude : magnitude);
    }
  });
});

describe('RollupAggregator (daily rollups of line items)', () => {
  it('sums exactly where floats drift, and rounds each line at the nano-dollar', async () => {
    const tenths = new RollupAggregator();
    let floatSum = 0;
    for (let index = 0; index < 1_000_000; index++) {
      tenths.add(lineItemOf({ costNano: parseNanoDollars('0.1') ?? 0n }));
      floatSum += 0.1;
    }
    expect([...tenths.rows()][0]?.costNano).toBe(100_000n * 1_000_000_000n);
    expect(floatSum).not.toBe(100_000);

    // 0.0000000001 is a tenth of a nano-dollar: each line rounds to 0, 0.0000000005 rounds up to 1.
    const text = csvOf('cur-legacy', [
      ...Array.from({ length: 1000 }, () => ({ cost: '0.0000000001' })),
      ...Array.from({ length: 1000 }, () => ({ cost: '0.0000000005', type: 'Fee' })),
      ...Array.from({ length: 1000 }, () => ({ cost: '-0.0000000005', type: 'Credit' })),
    ]);
    const aggregator = await aggregateLineItems(
      readLineItemBatches(streamOf(Buffer.from(text), 4096), fileOf('csv'), 'cur-legacy'),
    );
    expect([...aggregator.rows()].map((row) => [row.lineItemType, row.costNano, row.lineItems])).toEqual([
      ['Usage', 0n, 1000],
      ['Fee', 1000n, 1000],
      ['Credit', -1000n, 1000],
    ]);
  });

  it('keeps line-item types, days and resources apart and nets credits only within their own type', () => {
    const aggregator = new RollupAggregator();
    aggregator.add(lineItemOf({ costNano: 1_000_000_000n, usageAmount: 1.5 }));
    aggregator.add(lineItemOf({ costNano: 2_000_000_000n, usageAmount: 0.25 }));
    aggregator.add(lineItemOf({ lineItemType: 'Credit', costNano: -500_000_000n, usageAmount: 0 }));
    aggregator.add(lineItemOf({ lineItemType: 'Credit', costNano: -250_000_000n, usageAmount: 0 }));
    aggregator.add(lineItemOf({ day: '2026-06-02', costNano: 7n }));
    aggregator.add(lineItemOf({ resourceId: '', costNano: 9n }));
    const rows = [...aggregator.rows()];
    expect(aggregator.size).toBe(4);
    expect(
      rows.map((row) => [
        row.day,
        row.lineItemType,
        row.resourceId,
        row.costNano,
        row.usageAmount,
        row.lineItems,
      ]),
    ).toEqual([
      ['2026-06-01', 'Usage', 'my-bucket', 3_000_000_000n, 1.75, 2],
      ['2026-06-01', 'Credit', 'my-bucket', -750_000_000n, 0, 2],
      ['2026-06-02', 'Usage', 'my-bucket', 7n, 1, 1],
      ['2026-06-01', 'Usage', '', 9n, 1, 1],
    ]);
  });

  it('holds one row per distinct key, not per line: a 1 000 000-line gzip stream', async () => {
    const lines = 1_000_000;
    const resources = 7;
    async function* gzipText() {
      let batch = csvOf('cur-legacy', []);
      for (let index = 0; index < lines; index++) {
        const day = String(1 + (index % 30)).padStart(2, '0');
        batch += `id-${index},111122223333,2026-06-${day}T10:00:00Z,Usage,AmazonS3,Requests-Tier1,PutObject,us-east-1,b-${index % resources},1,0.000000001,t\n`;
        if (batch.length > 1 << 20) {
          yield batch;
          batch = '';
        }
      }
      yield batch;
    }
    const compressed = Readable.from(gzipText()).pipe(zlib.createGzip({ level: 1 }));
    const aggregator = await aggregateLineItems(
      readLineItemBatches(compressed, fileOf('csv.gz'), 'cur-legacy'),
    );
    // 30 days × 7 buckets: 30 and 7 share no factor, so every (day, bucket) pair occurs.
    expect(aggregator.size).toBe(30 * resources);
    const rows = [...aggregator.rows()];
    expect(rows.reduce((sum, row) => sum + row.lineItems, 0)).toBe(lines);
    expect(rows.reduce((sum, row) => sum + row.costNano, 0n)).toBe(BigInt(lines));
    expect(rows.reduce((sum, row) => sum + row.usageAmount, 0)).toBe(lines);
  });
});

function lineItemOf(overrides: Partial<LineItem>): LineItem {
  return {
    usageAccountId: '111122223333',
    day: '2026-06-01',
    lineItemType: 'Usage',
    productCode: 'AmazonS3',
    usageType: 'TimedStorage-ByteHrs',
    operation: 'StandardStorage',
    region: 'us-east-1',
    resourceId: 'my-bucket',
    usageAmount: 1,
    costNano: 0n,
    ...overrides,
  };
}

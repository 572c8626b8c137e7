import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RollupAggregator, aggregateLineItems } from './aggregate.ts';
import { aggregateFilesInThreads, liveReadWorkers, type OpenReportFile } from './read-pool.ts';
import { readLineItemBatches } from './read-report.ts';
import { ReportError, type ReportFile, type RollupRow } from './report-types.ts';

const HEADER = [
  'identity/LineItemId',
  'lineItem/UsageAccountId',
  'lineItem/LineItemType',
  'lineItem/UsageStartDate',
  'lineItem/ProductCode',
  'lineItem/UsageType',
  'lineItem/Operation',
  'lineItem/ResourceId',
  'lineItem/UsageAmount',
  'lineItem/UnblendedCost',
  'lineItem/LineItemDescription',
  'product/region',
].join(',');
const TYPES = ['Usage', 'Usage', 'Usage', 'Credit', 'Tax', 'Fee'];

/**
 * A seeded month's file: every file shares keys with the others (same days, buckets), so merging matters. With
 * `quirks`, every seventh description holds a line break and a doubled quote, and one cost is quoted.
 */
function csvText(seed: number, lines: number, badLine?: number, quirks = false): string {
  let state = seed;
  const next = (limit: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % limit;
  };
  const rows = [HEADER];
  for (let index = 0; index < lines; index++) {
    const day = String(1 + next(30)).padStart(2, '0');
    const type = TYPES[next(TYPES.length)] ?? 'Usage';
    const sign = type === 'Credit' ? '-' : '';
    // Ten decimals: each line rounds at the nano-dollar, so a float sum would drift from the exact one.
    const cost = `${sign}${next(100)}.${String(next(1_000_000_000)).padStart(9, '0')}${next(10)}`;
    const resource = next(5) === 0 ? '' : `bucket-${next(40)}`;
    // Line numbers count the header as line 1.
    const costText = index + 2 === badLine ? 'abc' : quirks && index % 11 === 0 ? `"${cost}"` : cost;
    const description =
      quirks && index % 7 === 0 ? '"$0.023 per GB-Mo,\n ""first"" 50 TB"' : '"$0.023 per GB-Mo, first 50 TB"';
    rows.push(
      `li-${seed}-${index},11112222333${next(3)},${type},2026-06-${day}T0${next(10)}:00:00Z,AmazonS3,` +
        `TimedStorage-ByteHrs,StandardStorage,${resource},${next(1000) / 8},${costText},${description},us-east-1`,
    );
  }
  return `${rows.join('\n')}\n`;
}

interface TestFile {
  file: ReportFile;
  bytes: Buffer;
}

const gzipFile = (index: number, lines: number, badLine?: number): TestFile => ({
  file: { key: `cur/20260601-20260701/report-${index}.csv.gz`, format: 'csv.gz' },
  bytes: zlib.gzipSync(csvText(index, lines, badLine)),
});
const quirkyGzipFile = (index: number, lines: number, badLine?: number): TestFile => ({
  file: { key: `cur/20260601-20260701/report-${index}.csv.gz`, format: 'csv.gz' },
  bytes: zlib.gzipSync(csvText(index, lines, badLine, true)),
});
const quirkyPlainFile = (index: number, lines: number, badLine?: number): TestFile => ({
  file: { key: `cur/20260601-20260701/report-${index}.csv`, format: 'csv' },
  bytes: Buffer.from(csvText(index, lines, badLine, true)),
});
const plainFile = (index: number, lines: number): TestFile => ({
  file: { key: `cur/20260601-20260701/report-${index}.csv`, format: 'csv' },
  bytes: Buffer.from(csvText(index, lines)),
});

/** Opens the test files as a download would deliver them: in chunks of 16 KB (or `chunkBytes`). */
const opener =
  (files: TestFile[], chunkBytes = 16384): OpenReportFile =>
  async (file) => {
    const bytes = files.find((f) => f.file.key === file.key)?.bytes ?? Buffer.alloc(0);
    const chunks = Array.from({ length: Math.ceil(bytes.length / chunkBytes) }, (_, index) =>
      bytes.subarray(index * chunkBytes, (index + 1) * chunkBytes),
    );
    return Readable.from(chunks, { objectMode: false });
  };

/** The error of reading the files in this thread, as before the pool. */
async function oneThreadFailure(files: TestFile[]): Promise<unknown> {
  return oneThread(files).then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** The rows of one aggregator fed every file in this thread, as before the pool. */
async function oneThread(files: TestFile[]): Promise<RollupRow[]> {
  const aggregator = new RollupAggregator();
  const open = opener(files);
  for (const { file } of files)
    await aggregateLineItems(readLineItemBatches(await open(file), file, 'cur-legacy'), aggregator);
  return [...aggregator.rows()];
}

const keyed = (rows: RollupRow[]) =>
  new Map(
    rows.map((row) => [
      [
        row.day,
        row.usageAccountId,
        row.lineItemType,
        row.productCode,
        row.usageType,
        row.operation,
        row.region,
        row.resourceId,
      ].join('|'),
      row,
    ]),
  );

describe('aggregateFilesInThreads (a period read in worker threads)', () => {
  it('merges the files read in threads into the rows one thread makes, to the nano-dollar', async () => {
    const files = [gzipFile(1, 6000), gzipFile(2, 5000), plainFile(3, 4000), gzipFile(4, 3000)];
    const expected = keyed(await oneThread(files));
    for (const threads of [2, 3]) {
      const rows = await aggregateFilesInThreads(
        files.map((f) => f.file),
        'cur-legacy',
        opener(files),
        threads,
      );
      const got = keyed(rows);
      expect(got.size).toBe(expected.size);
      for (const [key, row] of expected) {
        const merged = got.get(key);
        expect(merged?.costNano, key).toBe(row.costNano);
        expect(merged?.lineItems, key).toBe(row.lineItems);
        expect(merged?.usageAmount ?? Number.NaN).toBeCloseTo(row.usageAmount, 6);
      }
      expect(rows.reduce((sum, row) => sum + row.lineItems, 0)).toBe(18_000);
      expect(liveReadWorkers()).toBe(0);
    }
    // Credits stay their own rows, never netted into usage.
    expect([...expected.values()].some((row) => row.lineItemType === 'Credit' && row.costNano < 0n)).toBe(
      true,
    );
  });

  it('fails the period with the bad file and line, and ends every thread', async () => {
    const files = [gzipFile(1, 3000), gzipFile(2, 3000), gzipFile(3, 3000, 2345), gzipFile(4, 3000)];
    const failure = aggregateFilesInThreads(
      files.map((f) => f.file),
      'cur-legacy',
      opener(files),
      2,
    );
    await expect(failure).rejects.toThrow(
      new ReportError(`the cost 'abc' is not a number`, 'cur/20260601-20260701/report-3.csv.gz', 2345),
    );
    await expect(failure).rejects.toMatchObject({
      file: 'cur/20260601-20260701/report-3.csv.gz',
      line: 2345,
    });
    await expect(failure).rejects.toBeInstanceOf(ReportError);
    expect(liveReadWorkers()).toBe(0);
  });

  it('fails with the file when its download breaks or cannot start, and ends every thread', async () => {
    const files = [gzipFile(1, 3000), gzipFile(2, 3000), gzipFile(3, 3000)];
    const open = opener(files);
    const broken: OpenReportFile = async (file) => {
      if (!file.key.endsWith('report-2.csv.gz')) return open(file);
      const bytes = files[1]?.bytes ?? Buffer.alloc(0);
      async function* cut() {
        yield bytes.subarray(0, 4096);
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      return Readable.from(cut());
    };
    await expect(
      aggregateFilesInThreads(
        files.map((f) => f.file),
        'cur-legacy',
        broken,
        2,
      ),
    ).rejects.toThrow('cur/20260601-20260701/report-2.csv.gz: the file cannot be read (socket hang up)');
    expect(liveReadWorkers()).toBe(0);

    const unreadable: OpenReportFile = async (file) => {
      if (file.key.endsWith('report-3.csv.gz'))
        throw new ReportError('the report file cannot be read (Access Denied)', file.key);
      return open(file);
    };
    await expect(
      aggregateFilesInThreads(
        files.map((f) => f.file),
        'cur-legacy',
        unreadable,
        2,
      ),
    ).rejects.toThrow(
      'cur/20260601-20260701/report-3.csv.gz: the report file cannot be read (Access Denied)',
    );
    expect(liveReadWorkers()).toBe(0);
  });

  it('splits one file between two threads at line ends outside quotes: the one-thread rows exactly', async () => {
    // A gzip file in pieces of at least 4 KB; a plain one delivered 997 bytes at a time and cut after every
    // delivery, so that some deliveries end inside a quoted line break: thousands of cuts.
    for (const [file, chunkBytes, pieceBytes] of [
      [quirkyGzipFile(1, 20_000), 16384, 4096],
      [quirkyPlainFile(1, 20_000), 997, 1],
    ] as const) {
      const files = [file];
      const expected = keyed(await oneThread(files));
      const rows = await aggregateFilesInThreads(
        files.map((f) => f.file),
        'cur-legacy',
        opener(files, chunkBytes),
        2,
        { pieceBytes },
      );
      const got = keyed(rows);
      expect(got.size).toBe(expected.size);
      for (const [key, row] of expected) {
        expect(got.get(key)?.costNano, key).toBe(row.costNano);
        expect(got.get(key)?.lineItems, key).toBe(row.lineItems);
      }
      expect(rows.reduce((sum, row) => sum + row.lineItems, 0)).toBe(20_000);
      expect(liveReadWorkers()).toBe(0);
    }
  });

  it('names the physical line of a bad line deep in a split file, quoted line breaks before it counted', async () => {
    // Every seventh line before it spans two physical lines: 17 001 lines in, it is line 19 430.
    const physical = 17_001 + Math.ceil((17_001 - 1) / 7);
    for (const [split, chunkBytes, pieceBytes] of [
      [quirkyGzipFile(2, 20_000, 17_001), 16384, 4096],
      [quirkyPlainFile(2, 20_000, 17_001), 997, 1],
    ] as const) {
      const files = [gzipFile(1, 3000), split, gzipFile(3, 3000)];
      const bad = new ReportError(`the cost 'abc' is not a number`, split.file.key, physical);
      expect(await oneThreadFailure(files)).toEqual(bad);
      const failure = aggregateFilesInThreads(
        files.map((f) => f.file),
        'cur-legacy',
        opener(files, chunkBytes),
        2,
        { pieceBytes },
      );
      await expect(failure).rejects.toThrow(bad);
      await expect(failure).rejects.toMatchObject({ file: bad.file, line: physical });
      expect(liveReadWorkers()).toBe(0);
    }
  });

  it('fails a split file that is truncated, not gzip, or ends inside quotes, as one thread does', async () => {
    const whole = gzipFile(1, 20_000);
    const cases: [TestFile, string][] = [
      [
        { file: whole.file, bytes: whole.bytes.subarray(0, Math.floor(whole.bytes.length / 2)) },
        'the file is truncated',
      ],
      [{ file: whole.file, bytes: Buffer.from(csvText(1, 2000)) }, 'the file is not valid compressed data'],
      [
        { file: whole.file, bytes: zlib.gzipSync(`${csvText(1, 20_000)}li-x,1,Usage,"unclosed\n`) },
        'a quoted field is not closed',
      ],
    ];
    for (const [file, reason] of cases) {
      const files = [gzipFile(2, 3000), file];
      const expected = await oneThreadFailure(files);
      expect(expected).toBeInstanceOf(ReportError);
      expect((expected as Error).message).toContain(reason);
      const failure = aggregateFilesInThreads(
        files.map((f) => f.file),
        'cur-legacy',
        opener(files),
        2,
        { pieceBytes: 4096 },
      );
      await expect(failure).rejects.toThrow(expected as Error);
      await expect(failure).rejects.toMatchObject({
        file: (expected as ReportError).file,
        line: (expected as ReportError).line,
      });
      expect(liveReadWorkers()).toBe(0);
    }
  });

  it('fails a quoted field that runs on for 64 pieces at its line, without reading the rest of the file', async () => {
    const text = `${csvText(1, 200)}li-x,1,Usage,"${'x'.repeat(4_000_000)}\n`;
    const file: TestFile = {
      file: { key: 'cur/20260601-20260701/report-9.csv', format: 'csv' },
      bytes: Buffer.from(text),
    };
    const expected = await oneThreadFailure([file]);
    expect((expected as Error).message).toContain('a quoted field is not closed');
    let served = 0;
    const counting: OpenReportFile = async (opened) =>
      (await opener([file])(opened)).on('data', (chunk: Buffer) => {
        served += chunk.length;
      });
    const failure = aggregateFilesInThreads([file.file], 'cur-legacy', counting, 2, { pieceBytes: 4096 });
    await expect(failure).rejects.toMatchObject({
      file: file.file.key,
      line: (expected as ReportError).line,
    });
    await expect(failure).rejects.toThrow('a quoted field is not closed');
    // Failed once the open field passed 64 pieces (256 KB here), not after holding all 4 MB of it.
    expect(served).toBeLessThan(1_000_000);
    expect(liveReadWorkers()).toBe(0);
  });
});

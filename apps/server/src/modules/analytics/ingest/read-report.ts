/**
 * The reader of billing-report files (issue 24): one file's bytes in, normalised line items out, streamed so a
 * file of millions of lines never sits in memory. CSV (plain, gzip, zip) goes through Node's zlib and a CSV splitter
 * of our own (csv-records.ts);
 * Parquet (CUR 2.0) is read one row group at a time with hyparquet. Columns are found by header name, in any
 * order, for both layouts. Why this engine and not DuckDB: ../README.md ("Engine").
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isAscii } from 'node:buffer';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import zlib from 'node:zlib';
import type { AsyncBuffer } from 'hyparquet';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { CsvRecordSplitter, CsvSyntaxError } from './csv-records.ts';
import { nanoDollarsOfNumber, parseNanoDollars } from './money.ts';
import type { LineItem, ReportFile, ReportLayout } from './report-types.ts';
import { ReportError } from './report-types.ts';

type Field = keyof LineItem;

/** Each field's column, by layout; `required: false` columns exist only in some reports (resource ids are opt-in). */
const COLUMNS: Record<Field, { 'cur-legacy': string[]; cur2: string[]; required: boolean }> = {
  usageAccountId: {
    'cur-legacy': ['lineItem/UsageAccountId'],
    cur2: ['line_item_usage_account_id'],
    required: true,
  },
  day: { 'cur-legacy': ['lineItem/UsageStartDate'], cur2: ['line_item_usage_start_date'], required: true },
  lineItemType: {
    'cur-legacy': ['lineItem/LineItemType'],
    cur2: ['line_item_line_item_type'],
    required: true,
  },
  productCode: { 'cur-legacy': ['lineItem/ProductCode'], cur2: ['line_item_product_code'], required: true },
  usageType: { 'cur-legacy': ['lineItem/UsageType'], cur2: ['line_item_usage_type'], required: true },
  operation: { 'cur-legacy': ['lineItem/Operation'], cur2: ['line_item_operation'], required: true },
  region: {
    'cur-legacy': ['product/region', 'product/regionCode'],
    cur2: ['product_region_code', 'product_region'],
    required: false,
  },
  resourceId: { 'cur-legacy': ['lineItem/ResourceId'], cur2: ['line_item_resource_id'], required: false },
  usageAmount: { 'cur-legacy': ['lineItem/UsageAmount'], cur2: ['line_item_usage_amount'], required: true },
  costNano: { 'cur-legacy': ['lineItem/UnblendedCost'], cur2: ['line_item_unblended_cost'], required: true },
};
const FIELDS = Object.keys(COLUMNS) as Field[];

/** Where each field sits in a row (-1: the optional column is absent), from the header's names. */
type ColumnIndex = Record<Field, number>;

function columnIndexOf(header: readonly string[], file: ReportFile, layout: ReportLayout): ColumnIndex {
  const positions = new Map(header.map((name, position) => [name.trim(), position]));
  const index = {} as ColumnIndex;
  for (const field of FIELDS) {
    const column = COLUMNS[field];
    const found = column[layout].find((name) => positions.has(name));
    if (found === undefined && column.required) {
      throw new ReportError(`the header has no ${column[layout].join(' or ')} column`, file.key, 1);
    }
    index[field] = found === undefined ? -1 : (positions.get(found) ?? -1);
  }
  return index;
}

const UTC_STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z$/;

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * `YYYY-MM-DDTHH:MM:SSZ`, the form of nearly every legacy report line, checked without the regular expression
 * (one per line): the same answer as UTC_STAMP for this form, which takes every other one.
 */
function isPlainUtcStamp(value: string): boolean {
  if (value.length !== 20 || value.charCodeAt(19) !== 90) return false;
  for (let at = 0; at < 19; at++) {
    const code = value.charCodeAt(at);
    const expected = at === 4 || at === 7 ? 45 : at === 10 ? 84 : at === 13 || at === 16 ? 58 : -1;
    if (expected < 0 ? !isDigit(code) : code !== expected) return false;
  }
  return true;
}

/** 'YYYY-MM-DD' in UTC of a report's usage start: AWS writes UTC (`…Z`); a stamp with an offset is converted. */
function dayOf(value: unknown): string | undefined {
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 10);
  if (typeof value !== 'string') return undefined;
  if (isPlainUtcStamp(value) || UTC_STAMP.test(value)) return value.slice(0, 10);
  // A stamp without a zone is UTC too (CUR 2.0 CSV writes `2024-01-01 00:00:00`).
  const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value.replace(' ', 'T')}Z`;
  const time = Date.parse(zoned.replace(' ', 'T'));
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10);
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

/** One row (CSV strings, or Parquet values) as a LineItem; throws ReportError naming the file and line. */
// A plain function, not a closure per line: the build keeps function names, which costs a call per closure made.
function valueAt(row: readonly unknown[], position: number): unknown {
  return position < 0 ? undefined : row[position];
}

function lineItemOf(row: readonly unknown[], index: ColumnIndex, file: ReportFile, line: number): LineItem {
  const start = valueAt(row, index.day);
  const day = dayOf(start);
  if (day === undefined)
    throw new ReportError(`the usage start date '${textOf(start)}' is not a date`, file.key, line);
  const cost = valueAt(row, index.costNano);
  const costNano =
    typeof cost === 'number'
      ? nanoDollarsOfNumber(cost)
      : typeof cost === 'bigint'
        ? cost * 1_000_000_000n
        : parseNanoDollars(textOf(cost));
  if (costNano === undefined)
    throw new ReportError(`the cost '${textOf(cost)}' is not a number`, file.key, line);
  const usage = valueAt(row, index.usageAmount);
  const usageText = textOf(usage);
  const usageAmount = typeof usage === 'number' ? usage : usageText.trim() === '' ? 0 : Number(usageText);
  if (!Number.isFinite(usageAmount)) {
    throw new ReportError(`the usage amount '${usageText}' is not a number`, file.key, line);
  }
  return {
    usageAccountId: textOf(valueAt(row, index.usageAccountId)),
    day,
    lineItemType: textOf(valueAt(row, index.lineItemType)),
    productCode: textOf(valueAt(row, index.productCode)),
    usageType: textOf(valueAt(row, index.usageType)),
    operation: textOf(valueAt(row, index.operation)),
    region: textOf(valueAt(row, index.region)),
    resourceId: textOf(valueAt(row, index.resourceId)),
    usageAmount,
    costNano,
  };
}

/** What a decompressor's failure means to the user: the file is cut short or is not what its name says. */
export function readFailure(error: unknown, file: ReportFile): ReportError {
  if (error instanceof ReportError) return error;
  const code = (error as { code?: string }).code;
  const reason =
    code === 'Z_BUF_ERROR' || code === 'ERR_STREAM_PREMATURE_CLOSE'
      ? 'the file is truncated'
      : code === 'Z_DATA_ERROR'
        ? 'the file is not valid compressed data'
        : `the file cannot be read (${error instanceof Error ? error.message : String(error)})`;
  return new ReportError(reason, file.key);
}

const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_STORED = 0;
const ZIP_DEFLATED = 8;

/**
 * The uncompressed bytes of a zip's first entry, streamed: the local header is read from the front of the stream
 * and the data after it goes through zlib's raw inflate, so no central directory (at the end) is needed. AWS's
 * zipped reports hold one CSV per zip; further entries are not read.
 */
async function* unzipFirstEntry(source: AsyncIterable<Buffer>, file: ReportFile): AsyncGenerator<Buffer> {
  const iterator = source[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  const need = async (bytes: number) => {
    while (head.length < bytes) {
      const next = await iterator.next();
      if (next.done) throw new ReportError('the file is truncated (no complete zip entry)', file.key);
      head = Buffer.concat([head, next.value]);
    }
  };
  await need(30);
  if (head.readUInt32LE(0) !== ZIP_LOCAL_HEADER)
    throw new ReportError('the file is not a zip archive', file.key);
  const method = head.readUInt16LE(8);
  const sizeFollowsData = (head.readUInt16LE(6) & 0x08) !== 0;
  const storedSize = head.readUInt32LE(18);
  const dataStart = 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
  await need(dataStart);
  const rest = head.subarray(dataStart);
  async function* compressed() {
    if (rest.length > 0) yield rest;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  if (method === ZIP_DEFLATED) {
    // Inflate stops at the deflate stream's end; the central directory after it is ignored.
    const inflate = zlib.createInflateRaw();
    const input = Readable.from(compressed());
    // pipe() does not pass a failed read on: without this the inflate would wait for bytes forever.
    input.once('error', (error) => inflate.destroy(error));
    yield* input.pipe(inflate);
  } else if (method === ZIP_STORED && !sizeFollowsData) {
    let left = storedSize;
    for await (const chunk of compressed()) {
      const part = chunk.subarray(0, left);
      left -= part.length;
      if (part.length > 0) yield part;
      if (left === 0) return;
    }
    throw new ReportError('the file is truncated', file.key);
  } else {
    throw new ReportError(
      `the zip entry uses compression method ${method}, which is not supported`,
      file.key,
    );
  }
}

/** Larger than zlib's 16 KB default: fewer chunks, fewer batches, same memory order. */
const GUNZIP_CHUNK = 256 * 1024;

/** The CSV text of a report file: plain, gunzipped (every gzip member), or the zip's first entry. */
function csvBytesOf(stream: Readable, file: ReportFile): Readable {
  if (file.format === 'csv.gz') return stream.pipe(zlib.createGunzip({ chunkSize: GUNZIP_CHUNK }));
  if (file.format === 'csv.zip') return Readable.from(unzipFirstEntry(stream, file));
  return stream;
}

/**
 * A chunk's text. Reports are nearly all ASCII, which is its own Latin-1 text: a copy, against UTF-8 decoding at a
 * sixth of a reading thread's time (bench/cur-read: ~7 % of its CPU). A chunk with any other byte is decoded as
 * UTF-8, a character cut at a chunk's end completed by the next; `end()` first flushes such a cut character (as
 * U+FFFD, as write() would) before an ASCII chunk.
 */
function textOfChunk(decoder: StringDecoder, chunk: Buffer): string {
  if (!isAscii(chunk)) return decoder.write(chunk);
  const cut = decoder.end();
  return cut === '' ? chunk.toString('latin1') : cut + chunk.toString('latin1');
}

async function* readCsvLineItemBatches(
  stream: Readable,
  file: ReportFile,
  layout: ReportLayout,
): AsyncGenerator<LineItem[]> {
  const bytes = csvBytesOf(stream, file);
  // A failure upstream of the decompressor (the object's GET) must end the read, not leave it waiting.
  if (bytes !== stream) stream.once('error', (error) => bytes.destroy(error));
  const decoder = new StringDecoder('utf8');
  const splitter = new CsvRecordSplitter();
  let header: { index: ColumnIndex; columns: number } | undefined;
  let items: LineItem[] = [];
  const take = (fields: readonly string[], count: number, line: number): void => {
    if (header === undefined) {
      header = { index: columnIndexOf(fields.slice(0, count), file, layout), columns: count };
      splitter.keepOnly(new Set(Object.values(header.index)));
      return;
    }
    if (count !== header.columns) {
      throw new ReportError(
        `the line has ${count} columns where the header has ${header.columns}`,
        file.key,
        line,
      );
    }
    items.push(lineItemOf(fields, header.index, file, line));
  };
  try {
    for await (const chunk of bytes as AsyncIterable<Buffer>) {
      splitter.push(textOfChunk(decoder, chunk), take);
      if (items.length > 0) {
        yield items;
        items = [];
      }
    }
    splitter.push(decoder.end(), take);
    splitter.end(take);
    if (items.length > 0) yield items;
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new ReportError(error.message, file.key, error.line);
    throw readFailure(error, file);
  } finally {
    bytes.destroy();
    stream.destroy();
  }
  if (header === undefined) throw new ReportError('the file has no header line', file.key);
}

/**
 * Reads the pieces of one CSV file that read-pool.ts cut from its decompressed text at line ends outside quoted
 * fields, in any order and in any thread: each piece is parsed on its own, from the physical line it starts on,
 * with the columns of the file's header line (given once, as its bytes). The same items and the same errors (file
 * and line) as readLineItemBatches on the whole file.
 */
export class CsvPieceReader {
  readonly #file: ReportFile;
  readonly #index: ColumnIndex;
  readonly #columns: number;
  readonly #keep: Set<number>;

  constructor(headerBytes: Buffer, file: ReportFile, layout: ReportLayout) {
    this.#file = file;
    let header: { index: ColumnIndex; columns: number } | undefined;
    const splitter = new CsvRecordSplitter();
    const take = (fields: readonly string[], count: number): void => {
      header ??= { index: columnIndexOf(fields.slice(0, count), file, layout), columns: count };
    };
    try {
      splitter.push(headerBytes.toString('utf8'), take);
      splitter.end(take);
    } catch (error) {
      if (error instanceof CsvSyntaxError) throw new ReportError(error.message, file.key, error.line);
      throw error;
    }
    if (header === undefined) throw new ReportError('the file has no header line', file.key);
    this.#index = header.index;
    this.#columns = header.columns;
    this.#keep = new Set(Object.values(header.index));
  }

  /** Hands `add` the line items of one piece, whose first byte starts physical line `firstLine`. */
  read(bytes: Buffer, firstLine: number, add: (item: LineItem) => void): void {
    const splitter = new CsvRecordSplitter(firstLine);
    splitter.keepOnly(this.#keep);
    const file = this.#file;
    const index = this.#index;
    const columns = this.#columns;
    const take = (fields: readonly string[], count: number, line: number): void => {
      if (count !== columns)
        throw new ReportError(
          `the line has ${count} columns where the header has ${columns}`,
          file.key,
          line,
        );
      add(lineItemOf(fields, index, file, line));
    };
    try {
      // A piece ends at a line end, so no UTF-8 character is cut: one decoding, as a whole file's chunks are.
      splitter.push(isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8'), take);
      splitter.end(take);
    } catch (error) {
      if (error instanceof CsvSyntaxError) throw new ReportError(error.message, file.key, error.line);
      throw error;
    }
  }
}

/**
 * The line items of a Parquet report read from a range-readable source (a file, or ranged GETs of an object), one
 * row group at a time: only that group's column chunks of the columns used are fetched and decoded.
 */
async function* readParquetLineItemBatches(
  source: AsyncBuffer,
  file: ReportFile,
  layout: ReportLayout,
): AsyncGenerator<LineItem[]> {
  let metadata;
  try {
    metadata = await parquetMetadataAsync(source);
  } catch (error) {
    throw new ReportError(`the file is not a readable Parquet file (${(error as Error).message})`, file.key);
  }
  const header = metadata.schema.slice(1).map((element) => element.name);
  const index = columnIndexOf(header, file, layout);
  const columns = FIELDS.filter((field) => index[field] >= 0).map((field) => header[index[field]] ?? '');
  const positions: ColumnIndex = { ...index };
  for (const field of FIELDS)
    positions[field] = index[field] < 0 ? -1 : columns.indexOf(header[index[field]] ?? '');
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file: source, metadata, columns, rowStart, rowEnd });
    } catch (error) {
      throw new ReportError(
        `the row group at row ${rowStart + 1} cannot be read (${(error as Error).message})`,
        file.key,
      );
    }
    yield rows.map((row, offset) =>
      lineItemOf(
        columns.map((column) => row[column]),
        positions,
        file,
        rowStart + offset + 1,
      ),
    );
    rowStart = rowEnd;
  }
}

/**
 * The line items of one report file, streamed from its bytes in batches (one per decompressed chunk or Parquet
 * row group: a batch per line would cost more than the parse). A Parquet stream is first spooled to a temporary
 * file, since Parquet's index sits at its end; callers that can read ranges use readParquetLineItemBatches.
 */
export async function* readLineItemBatches(
  stream: Readable,
  file: ReportFile,
  layout: ReportLayout,
): AsyncGenerator<LineItem[]> {
  if (file.format !== 'parquet') {
    yield* readCsvLineItemBatches(stream, file, layout);
    return;
  }
  const directory = await mkdtemp(path.join(tmpdir(), 'cumulo-parquet-'));
  try {
    const spooled = path.join(directory, 'report.parquet');
    try {
      await pipeline(stream, createWriteStream(spooled));
    } catch (error) {
      throw readFailure(error, file);
    }
    yield* readParquetLineItemBatches(await asyncBufferFromFile(spooled), file, layout);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The line items of one report file, one by one (see readLineItemBatches). */
export async function* readLineItems(
  stream: Readable,
  file: ReportFile,
  layout: ReportLayout,
): AsyncGenerator<LineItem> {
  for await (const batch of readLineItemBatches(stream, file, layout)) yield* batch;
}

/**
 * A reading thread of the worker pool (read-pool.ts): reads the report files the pool hands it, one at a time,
 * with the module's reader, and folds them into its own RollupAggregator; at the end it posts its rows back. The
 * file's bytes come from the pool (the main thread reads the object through the account's ObjectStore), pulled
 * one chunk at a time, so a thread holds no more of a file than its stream's buffer.
 */
import { Readable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import { RollupAggregator } from './aggregate.ts';
import { CsvPieceReader, readLineItemBatches } from './read-report.ts';
import { ReportError } from './report-types.ts';
import type { FromReadWorker, ToReadWorker } from './read-pool.ts';

/** Bytes a thread asks for ahead of its reader: enough to hide a message's round trip, little memory. */
const PREFETCH_BYTES = 1024 * 1024;

const port = parentPort;
if (!port) throw new Error('read-worker.ts runs only as a worker thread of read-pool.ts');

const aggregator = new RollupAggregator();
/** Split reading: the reader of the file whose pieces come now (its header's columns); none after a failure. */
let pieces: CsvPieceReader | undefined;
let failed = false;
const add = aggregator.add.bind(aggregator);
/** The file being read: its bytes' stream, and what hands it the next chunk the pool sent. */
let source: { bytes: Readable; receive: (chunk: Buffer | null) => void } | undefined;
const post = (message: FromReadWorker) => port.postMessage(message);

port.on('message', (message: ToReadWorker) => {
  switch (message.type) {
    case 'file': {
      let pulling = false;
      const bytes = new Readable({
        highWaterMark: PREFETCH_BYTES,
        read() {
          if (pulling) return;
          pulling = true;
          post({ type: 'pull' });
        },
      });
      source = {
        bytes,
        receive: (chunk) => {
          pulling = false;
          bytes.push(chunk);
        },
      };
      void readFile(bytes, message);
      return;
    }
    case 'bytes':
      source?.receive(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
      return;
    case 'end':
      source?.receive(null);
      return;
    case 'fail':
      // The object's download failed in the main thread: the reader reports it as it would in one thread.
      source?.bytes.destroy(Object.assign(new Error(message.message), { code: message.code }));
      return;
    case 'header':
      if (failed) return;
      try {
        pieces = new CsvPieceReader(Buffer.from(message.bytes), message.file, message.layout);
      } catch (error) {
        fail(error);
      }
      return;
    case 'piece':
      if (failed || pieces === undefined) return;
      try {
        const bytes = message.bytes;
        pieces.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), message.firstLine, add);
        post({ type: 'parsed' });
      } catch (error) {
        fail(error);
      }
      return;
    case 'finish':
      post({ type: 'rows', rows: [...aggregator.rows()] });
      return;
  }
});

async function readFile(bytes: Readable, message: Extract<ToReadWorker, { type: 'file' }>): Promise<void> {
  try {
    for await (const batch of readLineItemBatches(bytes, message.file, message.layout))
      for (const item of batch) aggregator.add(item);
    post({ type: 'done' });
  } catch (error) {
    fail(error);
  }
}

function fail(error: unknown): void {
  failed = true;
  pieces = undefined;
  post(
    error instanceof ReportError
      ? { type: 'error', report: { message: error.message, file: error.file, line: error.line } }
      : { type: 'error', message: error instanceof Error ? error.message : String(error) },
  );
}

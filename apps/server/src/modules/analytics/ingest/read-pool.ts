/**
 * Reads a period's report files in worker threads (issue 24's ingestion speed). Gzip and plain CSV are read split
 * (aggregatePiecesInThreads, below): the main thread gunzips and cuts the text into pieces that any thread parses.
 * Zip and Parquet files are read whole, one per thread: AWS splits a month into several numbered files, so up to
 * `threads` files are read at once, each thread (read-worker.ts) with the module's reader
 * and its own RollupAggregator, and their rows are merged here at the end (bigint costs added exactly). The main
 * thread reads each object through the caller's `open` (the account's ObjectStore) and hands its bytes to the
 * thread that asked for them, one chunk at a time, so a file is streamed as it is in one thread. The first error
 * fails the whole read with its file and line, and every thread is ended before the answer, on success or not.
 */
import type { Readable } from 'node:stream';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import { RollupAggregator } from './aggregate.ts';
import { readFailure } from './read-report.ts';
import { ReportError, type ReportFile, type ReportLayout, type RollupRow } from './report-types.ts';

/** What the pool sends a reading thread. */
export type ToReadWorker =
  | { type: 'file'; file: ReportFile; layout: ReportLayout }
  | { type: 'bytes'; bytes: Uint8Array }
  | { type: 'end' }
  /** The object's download failed: the thread's reader fails the file as it would in one thread. */
  | { type: 'fail'; message: string; code?: string }
  | { type: 'finish' }
  /** The header line's bytes of the file whose pieces follow (split reading: a thread gets it once per file). */
  | { type: 'header'; file: ReportFile; layout: ReportLayout; bytes: Uint8Array }
  /** A piece of that file's text, cut at a line end outside quotes, starting on physical line `firstLine`. */
  | { type: 'piece'; firstLine: number; bytes: Uint8Array };

/** What a reading thread answers. */
export type FromReadWorker =
  | { type: 'pull' }
  /** Split reading: the thread has parsed a piece and takes another. */
  | { type: 'parsed' }
  | { type: 'done' }
  | { type: 'rows'; rows: RollupRow[] }
  | { type: 'error'; report: { message: string; file: string; line?: number } }
  | { type: 'error'; message: string };

/** Opens one report file's bytes (the object's GET); a failure is the file's error. */
export type OpenReportFile = (file: ReportFile) => Promise<Readable>;

/**
 * A reading thread's semi-space, in MB (its young generation is about three of them). The server's processes start
 * with `--max-semi-space-size=2` (scripts/build-server.mjs), a V8 flag that every isolate of the process takes when
 * it is created and that overrides a worker's `resourceLimits`; at 2 MB a thread, whose garbage is a decompressed
 * chunk's lines, spent ~40 % more CPU in scavenges (bench/cur-read: 35 against 25 CPU-seconds for the month).
 * So the flag is set to this just before a thread starts; the main thread's heap, made at its start, keeps its
 * 2 MB. At 8 MB the month's process peaked at ~225 MB with two threads, at 4 MB ~205 MB for ~8 % more CPU.
 */
const THREAD_SEMI_SPACE_MB = 8;

let live = 0;
/** Reading threads alive in this process (the tests check none outlives a period). */
export const liveReadWorkers = () => live;

/**
 * Where the thread's code is: in the sources (tsx, vitest) the TypeScript file, loaded through tsx's hooks in the
 * new thread; in the server's bundle (scripts/build-server.mjs) its own entry point, `analytics-read-worker.js`,
 * beside main.js and the chunks this code is bundled into.
 */
function workerEntry(): { url: URL; execArgv: string[] } {
  if (import.meta.url.endsWith('.ts'))
    return { url: new URL('./read-worker.ts', import.meta.url), execArgv: ['--import', 'tsx'] };
  return { url: new URL('./analytics-read-worker.js', import.meta.url), execArgv: [] };
}

/** A ReportError as thrown in the thread: the same file, line and words. */
function reportErrorOf(report: { message: string; file: string; line?: number }): ReportError {
  const prefix = report.line === undefined ? `${report.file}: ` : `${report.file}, line ${report.line}: `;
  const reason = report.message.startsWith(prefix) ? report.message.slice(prefix.length) : report.message;
  return new ReportError(reason, report.file, report.line);
}

/** One reading thread and its messages, taken in order; its exit or crash fails whatever waits. */
class ReadThread {
  readonly #worker: Worker;
  readonly #inbox: FromReadWorker[] = [];
  #waiting: { resolve: (m: FromReadWorker) => void; reject: (e: Error) => void } | undefined;
  #ended: Error | undefined;
  readonly exited: Promise<void>;

  constructor() {
    const { url, execArgv } = workerEntry();
    v8.setFlagsFromString(`--max-semi-space-size=${THREAD_SEMI_SPACE_MB}`);
    this.#worker = new Worker(url, { execArgv });
    live += 1;
    this.#worker.on('message', (message: FromReadWorker) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting) waiting.resolve(message);
      else this.#inbox.push(message);
    });
    this.#worker.on('error', (error) => this.#end(error));
    this.exited = new Promise((resolve) =>
      this.#worker.once('exit', (code) => {
        live -= 1;
        this.#end(new Error(`a report reading thread ended (exit code ${code})`));
        resolve();
      }),
    );
  }

  #end(error: Error): void {
    this.#ended ??= error;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(this.#ended);
  }

  post(message: ToReadWorker, transfer: ArrayBuffer[] = []): void {
    this.#worker.postMessage(message, transfer);
  }

  next(): Promise<FromReadWorker> {
    const queued = this.#inbox.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => (this.#waiting = { resolve, reject }));
  }

  async terminate(): Promise<void> {
    await this.#worker.terminate();
    await this.exited;
  }
}

function failureOf(message: FromReadWorker): Error | undefined {
  if (message.type !== 'error') return undefined;
  return 'report' in message ? reportErrorOf(message.report) : new Error(message.message);
}

/** Feeds one file's bytes to the thread as it pulls them, until the thread has read the file. */
async function readFileIn(
  thread: ReadThread,
  file: ReportFile,
  layout: ReportLayout,
  open: OpenReportFile,
): Promise<void> {
  const stream = await open(file);
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  thread.post({ type: 'file', file, layout });
  try {
    for (;;) {
      const message = await thread.next();
      const failure = failureOf(message);
      if (failure) throw failure;
      if (message.type === 'done') return;
      if (message.type !== 'pull') continue;
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch (error) {
        const { message: text, code } = error as { message?: string; code?: string };
        thread.post({ type: 'fail', message: text ?? String(error), code });
        continue;
      }
      if (next.done) {
        thread.post({ type: 'end' });
        continue;
      }
      // A copy of its own, handed over without another copy: a stream's chunk may share a pooled buffer.
      const bytes = new Uint8Array(next.value);
      thread.post({ type: 'bytes', bytes }, [bytes.buffer]);
    }
  } finally {
    // A thread that stopped early (a bad line) leaves the rest of the download unread: release its socket.
    stream.destroy();
  }
}

/**
 * The rollup rows of a period's files, read `threads` files at a time in worker threads; the same rows as one
 * aggregator fed every file in one thread. Rejects with the first file's error (a ReportError naming the file and
 * line); every thread has ended when it settles.
 */
export async function aggregateFilesInThreads(
  files: readonly ReportFile[],
  layout: ReportLayout,
  open: OpenReportFile,
  threads: number,
  /** Split reading's piece size (PIECE_BYTES); the tests make it small to cut a small file in many places. */
  { pieceBytes = PIECE_BYTES }: { pieceBytes?: number } = {},
): Promise<RollupRow[]> {
  // A single file smaller than a piece would be one piece anyway: one thread reads it whole.
  const small = files.length === 1 && (files[0]?.size ?? Number.POSITIVE_INFINITY) < pieceBytes;
  if (threads > 1 && !small && files.every((file) => file.format === 'csv.gz' || file.format === 'csv'))
    return aggregatePiecesInThreads(files, layout, open, threads, pieceBytes);
  const queue = [...files];
  const merged = new RollupAggregator();
  const pool = Array.from({ length: Math.max(1, Math.min(threads, files.length)) }, () => new ReadThread());
  const work = async (thread: ReadThread) => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift())
      await readFileIn(thread, file, layout, open);
    thread.post({ type: 'finish' });
    const answer = await thread.next();
    const failure = failureOf(answer);
    if (failure) throw failure;
    if (answer.type === 'rows') for (const row of answer.rows) merged.addRow(row);
  };
  try {
    await Promise.all(pool.map(work));
  } finally {
    // Stops the other threads at once when one failed: the period fails as a whole, nothing is staged.
    queue.length = 0;
    await Promise.all(pool.map((thread) => thread.terminate()));
  }
  return [...merged.rows()];
}

/**
 * Bytes of decompressed text in a piece (split reading): large enough that a piece's message and its splitter cost
 * nothing beside its parse, small enough that a few pieces in flight per thread hold little memory. bench/cur-read:
 * 1 MB peaked at 231-244 MB, 2 MB at 252-272 MB, for the same time.
 */
const PIECE_BYTES = 1024 * 1024;
/** Pieces handed to a thread ahead of the one it parses, so it never waits for the main thread. */
const PIECES_AHEAD = 2;
/**
 * How far past a piece's size the text may run without a line end outside quotes before the file is failed: a
 * quoted field never closed would otherwise be held whole (and copied again at each chunk) until the file ends.
 * No AWS report has a field near this size.
 */
const UNCUT_PIECES = 64;
/** The same zlib chunk as the one-thread reader (read-report.ts GUNZIP_CHUNK). */
const GUNZIP_CHUNK = 256 * 1024;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/** A piece of a file's text on its way to a thread, or the header every thread needs before that file's pieces. */
interface Piece {
  file: ReportFile;
  header: Buffer;
  firstLine: number;
  bytes: Buffer;
}

/**
 * The offset just past the last line end in `bytes[0 … length)` that is outside a quoted field, or -1. `bytes`
 * starts outside quotes (at a file's or a piece's start); a quote toggles being inside, so a doubled quote inside
 * a field keeps it. Quotes are rare in reports, so their positions are few.
 */
function lastCut(bytes: Buffer, length: number): number {
  const quotes: number[] = [];
  for (let at = bytes.indexOf(QUOTE); at >= 0 && at < length; at = bytes.indexOf(QUOTE, at + 1))
    quotes.push(at);
  // Outside-quote stretches: [after quote 2k-1, before quote 2k), the last one open-ended when the count is even.
  let end = quotes.length % 2 === 0 ? length : (quotes[quotes.length - 1] ?? 0);
  for (let k = quotes.length - (quotes.length % 2 === 0 ? 0 : 1); ; k -= 2) {
    const start = k === 0 ? 0 : (quotes[k - 1] ?? 0) + 1;
    const lineEnd = end > start ? bytes.lastIndexOf(LF, end - 1) : -1;
    if (lineEnd >= start) return lineEnd + 1;
    if (k === 0) return -1;
    end = quotes[k - 2] ?? 0;
  }
}

/** The offset just past the header line (the first line end outside quotes after a non-blank byte), or -1. */
function headerEnd(bytes: Buffer): number {
  let inside = false;
  let text = false;
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) inside = !inside;
    if (byte === LF && !inside && text) return at + 1;
    if (byte !== LF && byte !== CR) text = true;
  }
  return -1;
}

/**
 * The chunks' bytes in one buffer of its own, never a slice of Node's shared pool (as Buffer.concat's result is
 * when small): it is handed to a thread by transfer, which detaches the whole ArrayBuffer.
 */
function ownCopy(chunks: readonly Buffer[]): Buffer {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const bytes = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(bytes, at);
  return bytes;
}

/** Physical lines in `bytes` (line feeds). */
function linesIn(bytes: Buffer): number {
  let lines = 0;
  for (let at = bytes.indexOf(LF); at >= 0; at = bytes.indexOf(LF, at + 1)) lines++;
  return lines;
}

/** A bounded queue of pieces between the main thread's cutting and the threads: the cutting waits while it is full. */
class PieceQueue {
  readonly #items: Piece[] = [];
  readonly #capacity: number;
  #done = false;
  #takers: ((piece: Piece | undefined) => void)[] = [];
  #putter: (() => void) | undefined;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Waits for room; false when the read has stopped (another part failed). */
  async put(piece: Piece): Promise<boolean> {
    while (!this.#done && this.#items.length >= this.#capacity)
      await new Promise<void>((resolve) => (this.#putter = resolve));
    if (this.#done) return false;
    const taker = this.#takers.shift();
    if (taker) taker(piece);
    else this.#items.push(piece);
    return true;
  }

  /** The next piece, or undefined when every file is cut (or the read stopped). */
  take(): Promise<Piece | undefined> {
    const piece = this.#items.shift();
    if (piece) {
      const putter = this.#putter;
      this.#putter = undefined;
      putter?.();
      return Promise.resolve(piece);
    }
    if (this.#done) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#takers.push(resolve));
  }

  /** No more pieces: takers get what is queued, then undefined. `stop` also drops what is queued. */
  close(stop = false): void {
    this.#done = true;
    if (stop) this.#items.length = 0;
    for (const taker of this.#takers) taker(undefined);
    this.#takers = [];
    const putter = this.#putter;
    this.#putter = undefined;
    putter?.();
  }
}

/**
 * Cuts the files' decompressed text into pieces, one file after the other: gunzip runs on zlib's (libuv's) threads,
 * this thread only finds the cuts and counts lines. A download or decompression failure is the file's error.
 */
async function cutFiles(
  files: readonly ReportFile[],
  open: OpenReportFile,
  queue: PieceQueue,
  pieceBytes: number,
): Promise<void> {
  for (const file of files) {
    const stream = await open(file);
    const text =
      file.format === 'csv.gz' ? stream.pipe(zlib.createGunzip({ chunkSize: GUNZIP_CHUNK })) : stream;
    // A failure upstream of the decompressor (the object's GET) must end the read, not leave it waiting.
    if (text !== stream) stream.once('error', (error) => text.destroy(error));
    let header: Buffer | undefined;
    let line = 1;
    let held: Buffer[] = [];
    let heldBytes = 0;
    let sent = false;
    const send = async (bytes: Buffer, header: Buffer): Promise<boolean> => {
      const firstLine = line;
      line += linesIn(bytes);
      sent = true;
      return queue.put({ file, header, firstLine, bytes });
    };
    try {
      for await (const chunk of text as AsyncIterable<Buffer>) {
        held.push(chunk);
        heldBytes += chunk.length;
        if (header === undefined) {
          const start = Buffer.concat(held);
          const end = headerEnd(start);
          if (end < 0) {
            held = [start];
            continue;
          }
          header = Buffer.from(start.subarray(0, end));
          line += linesIn(header);
          held = [start.subarray(end)];
          heldBytes = start.length - end;
        }
        if (heldBytes < pieceBytes) continue;
        // A buffer of its own (not a stream's pooled one), so it can be handed to a thread without a copy.
        const bytes = ownCopy(held);
        const cut = lastCut(bytes, bytes.length);
        if (cut < 0) {
          if (bytes.length > pieceBytes * UNCUT_PIECES) {
            // The text's last quote opens the field still open (parity is odd): its line is the one to name.
            const opened = bytes.lastIndexOf(QUOTE);
            throw new ReportError(
              'a quoted field is not closed',
              file.key,
              line + linesIn(bytes.subarray(0, Math.max(opened, 0))),
            );
          }
          held = [bytes];
          continue;
        }
        const rest = Buffer.from(bytes.subarray(cut));
        held = [rest];
        heldBytes = rest.length;
        if (!(await send(bytes.subarray(0, cut), header))) return;
      }
    } catch (error) {
      throw readFailure(error, file);
    } finally {
      text.destroy();
      stream.destroy();
    }
    let last = ownCopy(held);
    if (header === undefined) {
      // No line end: the whole text is the header line, or there is no header.
      if (last.every((byte) => byte === LF || byte === CR))
        throw new ReportError('the file has no header line', file.key);
      header = last;
      last = Buffer.allocUnsafeSlow(0);
    }
    // The rest, an unclosed quote included: its thread's parse fails it with its line. A file of only a header
    // still sends its (empty) piece, so that a thread checks the header's columns.
    if ((last.length > 0 || !sent) && !(await send(last, header))) return;
  }
}

/**
 * Split reading: a period's gzip or plain CSV files cut into pieces of text that the threads take as they finish
 * the one before, so both stay busy to the end instead of one reading a last whole file while the other idles
 * (README "Engine"). Each thread gets a file's header once, before its first piece of that file.
 */
async function aggregatePiecesInThreads(
  files: readonly ReportFile[],
  layout: ReportLayout,
  open: OpenReportFile,
  threads: number,
  pieceBytes: number,
): Promise<RollupRow[]> {
  const queue = new PieceQueue(threads * PIECES_AHEAD);
  const merged = new RollupAggregator();
  const pool = Array.from({ length: threads }, () => new ReadThread());
  const feed = async (thread: ReadThread) => {
    let headerOf: ReportFile | undefined;
    let inFlight = 0;
    const give = async (): Promise<boolean> => {
      const piece = await queue.take();
      if (piece === undefined) return false;
      if (headerOf !== piece.file) {
        headerOf = piece.file;
        thread.post({ type: 'header', file: piece.file, layout, bytes: piece.header });
      }
      const bytes = new Uint8Array(piece.bytes.buffer, piece.bytes.byteOffset, piece.bytes.byteLength);
      thread.post({ type: 'piece', firstLine: piece.firstLine, bytes }, [bytes.buffer as ArrayBuffer]);
      inFlight++;
      return true;
    };
    let more = true;
    while (more && inFlight < PIECES_AHEAD) more = await give();
    while (inFlight > 0) {
      const message = await thread.next();
      const failure = failureOf(message);
      if (failure) throw failure;
      if (message.type !== 'parsed') continue;
      inFlight--;
      if (more) more = await give();
    }
    thread.post({ type: 'finish' });
    for (;;) {
      const answer = await thread.next();
      const failure = failureOf(answer);
      if (failure) throw failure;
      if (answer.type !== 'rows') continue;
      for (const row of answer.rows) merged.addRow(row);
      return;
    }
  };
  const cutting = cutFiles(files, open, queue, pieceBytes).finally(() => queue.close());
  try {
    await Promise.all([cutting, ...pool.map(feed)]);
  } finally {
    // Stops the cutting and the other threads at once when one part failed: nothing is staged.
    queue.close(true);
    await Promise.all(pool.map((thread) => thread.terminate()));
  }
  return [...merged.rows()];
}

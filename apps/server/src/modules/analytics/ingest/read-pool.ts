/**
 * Reads a period's report files in worker threads (issue 24's ingestion speed): AWS splits a month into several
 * numbered files, so up to `threads` files are read at once, each thread (read-worker.ts) with the module's reader
 * and its own RollupAggregator, and their rows are merged here at the end (bigint costs added exactly). The main
 * thread reads each object through the caller's `open` (the account's ObjectStore) and hands its bytes to the
 * thread that asked for them, one chunk at a time, so a file is streamed as it is in one thread. The first error
 * fails the whole read with its file and line, and every thread is ended before the answer, on success or not.
 */
import type { Readable } from 'node:stream';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { RollupAggregator } from './aggregate.ts';
import { ReportError, type ReportFile, type ReportLayout, type RollupRow } from './report-types.ts';

/** What the pool sends a reading thread. */
export type ToReadWorker =
  | { type: 'file'; file: ReportFile; layout: ReportLayout }
  | { type: 'bytes'; bytes: Uint8Array }
  | { type: 'end' }
  /** The object's download failed: the thread's reader fails the file as it would in one thread. */
  | { type: 'fail'; message: string; code?: string }
  | { type: 'finish' };

/** What a reading thread answers. */
export type FromReadWorker =
  | { type: 'pull' }
  | { type: 'done' }
  | { type: 'rows'; rows: RollupRow[] }
  | { type: 'error'; report: { message: string; file: string; line?: number } }
  | { type: 'error'; message: string };

/**
 * Files of one period read at once when the configuration does not say (ANALYTICS_READ_THREADS): two, the cores
 * the goal was measured on, and each thread adds ~70 MB to the process's peak (README "Engine").
 */
export const DEFAULT_READ_THREADS = 2;

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
): Promise<RollupRow[]> {
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

import { appendFile, open } from 'node:fs/promises';
import path from 'node:path';
import type { AgentDirection, AgentTransferStatus } from '@cumulo/contract';
import { writePrivateFile } from '../config.ts';
import type { Verification } from './checksums.ts';

/**
 * What the agent remembers of its transfers in `state.json` and `state.log` (its home), so a transfer goes on after
 * the agent or the machine restarts: every file with its status, an upload's session id (the server resumes the
 * session by the file's fingerprint and lists the parts already stored), a download's blocks already written to
 * `<dest>.cumulo-part`.
 */

type FileStatus = 'pending' | 'running' | 'verified' | 'failed' | 'cancelled';

export interface FileState {
  /** The file as the user sees it: its path under the chosen item's parent ('photos/2024/a.jpg'). */
  name: string;
  /** Upload: the file's virtual path; download: its destination's virtual path. */
  local: string;
  key: string;
  size: number;
  /** Upload: the modification time seen when the transfer started (part of the file's fingerprint). */
  mtimeMs?: number;
  /** Download: the store's ETag of the object. */
  etag?: string | null;
  status: FileStatus;
  error: string | null;
  transferred: number;
  /** Upload in parts: the server's session. */
  sessionId?: string | null;
  /** Download: blocks (0-based) already written to the part file. */
  blocks?: number[];
  verifiedBy?: Verification;
  /**
   * A failed row with no object of its own: the files a download's listing never named, or a local folder or file an
   * upload's walk could not read. Retry Failed Files does not send it as a file: a download's listing goes on
   * instead, an upload walks that folder or file again (`TransferState.walkAgain`).
   */
  unlisted?: true;
}

export interface TransferState {
  id: string;
  direction: AgentDirection;
  cloud_account_id: string;
  bucket_name: string;
  /** Upload: the chosen virtual paths and the bucket folder; download: the chosen keys and the local folder. */
  sources: string[];
  target: string;
  /** The top-level names chosen (the history's `files`). */
  chosen: string[];
  isDirectory: boolean;
  status: AgentTransferStatus;
  startedAt: string;
  endedAt: string | null;
  resumed: boolean;
  /** Download: every page of the listing has been read (the file list is whole). */
  listed: boolean;
  /**
   * Download, while `listed` is false: the server's continuation after the last page whose files are saved, where a
   * resumed listing goes on (absent or null: from the first page).
   */
  continuation?: string | null;
  files: FileState[];
  /**
   * Upload, while `listed` is false: the rows of an earlier walk that it could not read, walked again before the
   * files are sent (Retry Failed Files; their files join `files`). Absent: `sources` are walked into `target`.
   */
  walkAgain?: FileState[];
  /**
   * Its failed files were retried, by this transfer: a transfer is retried once (its retry's failures from its row),
   * unless the user cancelled that retry.
   */
  retriedBy?: string;
  /** The history report is still to be sent (the server was unreachable). */
  historyPending: boolean;
}

/**
 * `state.json`, one JSON line each: first `{"generation"}`, which log lines apply to this snapshot (those written after
 * it, carrying the same number); then each transfer's own fields (`h`) followed by its files (`f`), one line per
 * file. Before lines it was one object `{generation, transfers}`, still read.
 */
type SnapshotLine = { generation: number } | { h: Omit<TransferState, 'files'> } | { f: FileState };

/** One line of `state.log`: a transfer's own fields, or one of its files (matched by key; a new key is added). */
type LogLine =
  { g: number; t: string; h: Omit<TransferState, 'files'> } | { g: number; t: string; f: FileState };

const WRITE_EVERY_MS = 1000;
/** The log is folded into a new snapshot once it is this large, or larger than the snapshot itself. */
const LOG_FOLD_BYTES = 4 * 1024 * 1024;

/**
 * `state.json`, a snapshot of every transfer kept, and `state.log`, the changes since, one JSON line each. Changes
 * are saved at most once a second. A transfer that starts, ends or goes rewrites the snapshot (temp file + rename);
 * a file that changed only appends its line, so a transfer of 100 000 files no longer rewrites ~30 MB of JSON every
 * second (180 ms of CPU each time, measured) while its files go by. The log is folded into a new snapshot once it
 * outgrows LOG_FOLD_BYTES and the snapshot. Each snapshot has a new generation; log lines carry the generation they
 * follow, so lines left by a crash between a snapshot's rename and the log's truncation are ignored on load, as is
 * a last line cut short.
 */
export class StateStore {
  readonly file: string;
  readonly #log: string;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  #dirty = false;
  /** The next write is a whole snapshot. */
  #whole = true;
  #generation = 0;
  #logBytes = 0;
  #snapshotBytes = 0;
  readonly #changedTransfers = new Set<TransferState>();
  readonly #changedFiles = new Map<TransferState, Set<FileState>>();

  constructor(
    home: string,
    private readonly snapshot: () => TransferState[],
  ) {
    this.file = path.join(home, 'state.json');
    this.#log = path.join(home, 'state.log');
  }

  async load(): Promise<TransferState[]> {
    let transfers: TransferState[] = [];
    try {
      const handle = await open(this.file, 'r');
      try {
        let first = true;
        let current: TransferState | null = null;
        for await (const line of handle.readLines({ encoding: 'utf8' })) {
          if (!line) continue;
          const entry = JSON.parse(line) as Partial<Record<'generation' | 'h' | 'f' | 'transfers', unknown>>;
          if (first) {
            first = false;
            this.#generation = typeof entry.generation === 'number' ? entry.generation : 0;
            // The snapshot as one object, written before it was lines.
            if (Array.isArray(entry.transfers)) {
              transfers = entry.transfers as TransferState[];
              break;
            }
          } else if (entry.h && typeof entry.h === 'object') {
            current = { ...(entry.h as Omit<TransferState, 'files'>), files: [] };
            transfers.push(current);
          } else if (entry.f && typeof entry.f === 'object' && current) {
            current.files.push(entry.f as FileState);
          }
        }
      } finally {
        await handle.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      // A damaged state file must not stop the agent; what it held cannot be resumed.
      process.stderr.write(
        `The transfer state file could not be read (${String(error)}); starting afresh.\n`,
      );
      return [];
    }
    await this.#replay(transfers);
    return transfers;
  }

  /** Applies the log's lines of this snapshot's generation to its transfers. */
  async #replay(transfers: TransferState[]): Promise<void> {
    const handle = await open(this.#log, 'r').catch(() => null);
    if (!handle) return;
    const byId = new Map(transfers.map((transfer) => [transfer.id, transfer]));
    const indexes = new Map<TransferState, Map<string, number>>();
    try {
      for await (const line of handle.readLines({ encoding: 'utf8' })) {
        if (!line) continue;
        let entry: Partial<LogLine> & { h?: unknown; f?: FileState };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue; // a line cut short by a crash
        }
        if (entry.g !== this.#generation || typeof entry.t !== 'string') continue;
        const transfer = byId.get(entry.t);
        if (!transfer) continue;
        if (entry.h && typeof entry.h === 'object') {
          Object.assign(transfer, entry.h, { files: transfer.files });
        } else if (entry.f && typeof entry.f.key === 'string') {
          let index = indexes.get(transfer);
          if (!index) {
            index = new Map(transfer.files.map((file, i) => [file.key, i]));
            indexes.set(transfer, index);
          }
          const at = index.get(entry.f.key);
          if (at === undefined) {
            index.set(entry.f.key, transfer.files.length);
            transfer.files.push(entry.f);
          } else transfer.files[at] = entry.f;
        }
      }
    } finally {
      await handle.close();
    }
  }

  /** `transfer`'s own fields changed: logged within a second. */
  transferChanged(transfer: TransferState): void {
    this.#changedTransfers.add(transfer);
    this.#arm();
  }

  /** `file` of `transfer` changed or was added: logged within a second. */
  fileChanged(transfer: TransferState, file: FileState): void {
    let files = this.#changedFiles.get(transfer);
    if (!files) {
      files = new Set();
      this.#changedFiles.set(transfer, files);
    }
    files.add(file);
    this.#arm();
  }

  #arm(): void {
    this.#dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      this.#writing = this.#writing.then(() => this.#write());
    }, WRITE_EVERY_MS);
  }

  /** Writes the whole snapshot now (after any write under way). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#dirty = true;
    this.#whole = true;
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  async #write(): Promise<void> {
    if (!this.#dirty) return;
    this.#dirty = false;
    const transfers = [...this.#changedTransfers];
    const files = [...this.#changedFiles];
    this.#changedTransfers.clear();
    this.#changedFiles.clear();
    try {
      if (this.#whole || this.#logBytes >= Math.max(LOG_FOLD_BYTES, this.#snapshotBytes)) {
        this.#whole = false;
        const generation = this.#generation + 1;
        const written = { bytes: 0 };
        await writePrivateFile(this.file, snapshotChunks(generation, this.snapshot(), written));
        this.#generation = generation;
        this.#snapshotBytes = written.bytes;
        // Lines of the generation before: ignored on load from now on, and emptied here.
        await writePrivateFile(this.#log, '');
        this.#logBytes = 0;
        return;
      }
      const lines: string[] = [];
      const g = this.#generation;
      // Files first: a write cut short by a crash may lose a transfer's new fields (a download's continuation)
      // but never keeps them without the files they follow.
      for (const [transfer, changed] of files)
        for (const file of changed)
          lines.push(JSON.stringify({ g, t: transfer.id, f: file } satisfies LogLine));
      for (const transfer of transfers) {
        const { files: _files, ...header } = transfer;
        lines.push(JSON.stringify({ g, t: transfer.id, h: header } satisfies LogLine));
      }
      const text = `${lines.join('\n')}\n`;
      await appendFile(this.#log, text, { mode: 0o600 });
      this.#logBytes += Buffer.byteLength(text);
    } catch (error) {
      // The next write is a whole snapshot: it holds whatever this one could not save.
      this.#whole = true;
      this.#dirty = true;
      process.stderr.write(`The transfer state could not be saved: ${String(error)}\n`);
    }
  }
}

/** Lines of a snapshot gathered into chunks of about this many characters, each one write. */
const SNAPSHOT_CHUNK = 1024 * 1024;

/**
 * The snapshot's lines (SnapshotLine) in chunks of about a megabyte, adding each chunk's size to `written`. Written a
 * chunk at a time, a transfer of a million files is never one string of hundreds of megabytes (V8 refuses strings
 * past about 512 MB), and other work runs between the chunks instead of waiting seconds for one JSON.stringify.
 */
function* snapshotChunks(
  generation: number,
  transfers: TransferState[],
  written: { bytes: number },
): Generator<string> {
  let chunk = `${JSON.stringify({ generation } satisfies SnapshotLine)}\n`;
  for (const transfer of transfers) {
    const { files, ...header } = transfer;
    chunk += `${JSON.stringify({ h: header } satisfies SnapshotLine)}\n`;
    // A download's listing may add files between two chunks: they are logged after this snapshot as well.
    for (const file of files) {
      chunk += `${JSON.stringify({ f: file } satisfies SnapshotLine)}\n`;
      if (chunk.length >= SNAPSHOT_CHUNK) {
        written.bytes += Buffer.byteLength(chunk);
        yield chunk;
        chunk = '';
      }
    }
  }
  written.bytes += Buffer.byteLength(chunk);
  yield chunk;
}

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentDirection, AgentTransferStatus } from '@cumulo/contract';
import { writePrivateFile } from '../config.ts';
import type { Verification } from './checksums.ts';

/**
 * What the agent remembers of its transfers in `state.json` (its home), so a transfer goes on after the agent or the
 * machine restarts: every file with its status, an upload's session id (the server resumes the session by the
 * file's fingerprint and lists the parts already stored), a download's blocks already written to `<dest>.cumulo-part`.
 */

export type FileStatus = 'pending' | 'running' | 'verified' | 'failed' | 'cancelled';

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
  files: FileState[];
  /** The history report is still to be sent (the server was unreachable). */
  historyPending: boolean;
}

interface StateFile {
  transfers: TransferState[];
}

const WRITE_EVERY_MS = 1000;

/** state.json, written whole (temp file + rename) at most once a second, and at once when asked. */
export class StateStore {
  readonly file: string;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  #dirty = false;

  constructor(
    home: string,
    private readonly snapshot: () => TransferState[],
  ) {
    this.file = path.join(home, 'state.json');
  }

  async load(): Promise<TransferState[]> {
    try {
      const saved = JSON.parse(await readFile(this.file, 'utf8')) as Partial<StateFile>;
      return Array.isArray(saved.transfers) ? saved.transfers : [];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      // A damaged state file must not stop the agent; what it held cannot be resumed.
      process.stderr.write(
        `The transfer state file could not be read (${String(error)}); starting afresh.\n`,
      );
      return [];
    }
  }

  /** Writes within a second. */
  schedule(): void {
    this.#dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, WRITE_EVERY_MS);
  }

  /** Writes now (after any write under way). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#dirty = true;
    this.#writing = this.#writing.then(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      const content = JSON.stringify({ transfers: this.snapshot() } satisfies StateFile);
      await writePrivateFile(this.file, content).catch((error: unknown) => {
        process.stderr.write(`The transfer state could not be saved: ${String(error)}\n`);
      });
    });
    return this.#writing;
  }
}

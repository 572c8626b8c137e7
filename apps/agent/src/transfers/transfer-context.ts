import { agentMessages } from '@cumulo/contract';
import type { LocalFolders } from '../local-folders.ts';
import type { CumuloServer } from '../server-client.ts';
import type { FileState, TransferState } from './transfer-state.ts';

/** What an upload or a download needs from the agent while it runs. */
export interface TransferContext {
  server: CumuloServer;
  folders: LocalFolders;
  transfer: TransferState;
  signal: AbortSignal;
  /**
   * `file` changed, or was added to the transfer; without one, the transfer's own fields changed. Saved within a
   * second (the state store's log takes only what changed).
   */
  changed(file?: FileState): void;
  /** `file` ended: saved with the rest, within a second. */
  fileEnded(file: FileState): Promise<void>;
}

/** One file failed, with the message the page shows; the rest of the transfer goes on. */
export class FileFailure extends Error {
  override readonly name = 'FileFailure';
}

/** Attempts per request to the store before the file fails. */
export const STORE_ATTEMPTS = 4;

export const isAbort = (error: unknown) =>
  error instanceof Error &&
  (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR');

/** The failure of a local operation on `name` (a file's or folder's path as the page shows it), in the page's words. */
export function localFailure(error: unknown, name: string): FileFailure | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new FileFailure(agentMessages.diskFull(name));
  if (code === 'ENOENT' || code === 'ENOTDIR') return new FileFailure(agentMessages.fileVanished(name));
  if (code === 'EACCES' || code === 'EPERM') return new FileFailure(agentMessages.noPermission(name));
  return null;
}

export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
  });

/** Runs `work` over `items` with at most `limit` at once; stops taking new items once `signal` aborts. */
export async function eachLimited<T>(
  items: T[],
  limit: number,
  signal: AbortSignal,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (!signal.aborted) {
      const item = items[next];
      next += 1;
      if (item === undefined) return;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

import { createHash } from 'node:crypto';
import { lstat, mkdir, open, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import {
  AGENT_BLOCK_SIZE,
  AGENT_CLIENTS,
  AGENT_PARALLEL_FILES,
  agentDownloadAnswer,
  agentDownloadUrlsAnswer,
  agentMessages,
  type AgentDownloadFile,
} from '@cumulo/contract';
import { LocalRefusal, PART_SUFFIX, isHiddenName, segmentsOf } from '../local-folders.ts';
import { DeviceUnknown, ServerError } from '../server-client.ts';
import { MULTIPART_ETAG, PLAIN_MD5, multipartEtag, verifyFile } from './checksums.ts';
import { httpGet } from '../http-client.ts';
import {
  FileFailure,
  STORE_ATTEMPTS,
  eachLimited,
  isAbort,
  localFailure,
  sleep,
  type TransferContext,
} from './transfer-context.ts';
import type { FileState } from './transfer-state.ts';
import { bandwidth } from './bandwidth.ts';

/**
 * Downloads: the server lists the chosen keys a page at a time with short-lived signed GET URLs
 * (POST /agent/downloads), once per transfer; the URLs of files beyond the first LISTED_URLS_HELD, of a resumed
 * transfer and of any whose URL went stale come from POST /agent/downloads/urls, URL_BATCH files at a time, as the
 * downloads reach them. Each file comes in AGENT_BLOCK_SIZE Range requests, AGENT_CLIENTS at once, written into
 * `<dest>.cumulo-part`, checked against the object's ETag, then renamed into place.
 */

export { PART_SUFFIX };
/** A signed URL older than this is asked for again before use (the server signs them for longer). */
const URL_FRESH_MS = 10 * 60_000;
/**
 * URLs a listing's pages leave held, at most: later files get theirs from POST /agent/downloads/urls as the
 * downloads reach them. A URL costs about a kilobyte; a listing runs far ahead of the downloads, and the URLs of a
 * million listed files would be a gigabyte, most of them stale by the time their file comes.
 */
const LISTED_URLS_HELD = 5_000;
/** Files whose URLs one POST /agent/downloads/urls asks for: the file a download reached and those after it. */
const URL_BATCH = 100;
/** Queued files looked through, in URL batches, for URLs to ask for with a missing one (most may hold fresh ones). */
const URL_SCAN_BATCHES = 50;

/** How many URLs a download holds from its listing, and asks for at once (smaller in tests). */
export interface UrlLimits {
  listedUrlsHeld: number;
  urlBatch: number;
}

interface SignedUrl {
  url: string;
  at: number;
}

export class Downloader {
  readonly #urls = new Map<string, SignedUrl>();
  /** Keys whose URLs a request is fetching: a download that reaches one waits for that request. */
  readonly #fetching = new Map<string, Promise<void>>();
  /** The files to download, in order; `#next` is the first not taken yet (an index: a shift is O(n)). */
  readonly #queue: FileState[] = [];
  #next = 0;
  /** Destination folders checked in this run: virtual path → real path. */
  readonly #folders = new Map<string, string>();

  constructor(
    private readonly context: TransferContext,
    private readonly onFileDone: (file: FileState) => void,
    private readonly limits: UrlLimits = { listedUrlsHeld: LISTED_URLS_HELD, urlBatch: URL_BATCH },
  ) {}

  /** Reads the listing (when not read yet), then fetches every file not yet verified. */
  async run(): Promise<void> {
    const { transfer } = this.context;
    // A transfer whose listing was read whole (one resumed after a restart, or a retry) is not listed again: its
    // files are in its state, and their URLs are asked for as the downloads reach them. A new one starts on the
    // files of the first page while the server lists the next.
    for (const file of transfer.files) {
      if (file.status === 'pending' || file.status === 'running') this.#queue.push(file);
    }
    let listing = !transfer.listed;
    let waiting: Array<() => void> = [];
    const wake = () => {
      const waiters = waiting;
      waiting = [];
      for (const waiter of waiters) waiter();
    };
    const list = async () => {
      // Files a first run listed before it stopped keep their state; the listing adds the others, going on from
      // the last page that run saved.
      const known = new Map(transfer.files.map((file) => [file.key, file]));
      try {
        let continuation = transfer.continuation ?? null;
        // A continuation an earlier run saved that the server no longer takes (its own refusal, or the store's of
        // a token grown stale) is dropped: the listing starts over, naming again files already known.
        let saved = continuation;
        do {
          const page = await this.#page(transfer.sources, continuation).catch((error: unknown) => {
            if (saved === null || !refusedBy(error)) throw error;
            return this.#page(transfer.sources, null);
          });
          saved = null;
          const at = Date.now();
          for (const listed of page.files) {
            let file = known.get(listed.key);
            if (!file) {
              const added = this.#fileOf(listed);
              if (!added) continue;
              transfer.files.push(added);
              known.set(added.key, added);
              this.#queue.push(added);
              this.context.changed(added);
              file = added;
            }
            const waits = file.status === 'pending' || file.status === 'running';
            if (waits && this.#urls.size < this.limits.listedUrlsHeld)
              this.#urls.set(file.key, { url: listed.url, at });
          }
          continuation = page.continuation;
          // Saved after the page's files (the state store writes files before the transfer's own fields).
          transfer.continuation = continuation;
          this.context.changed();
          wake();
        } while (continuation && !this.context.signal.aborted);
        // Stopped half-way (cancelled, the device revoked), the listing is not whole: a retry lists the rest.
        if (continuation) return;
        transfer.listed = true;
        transfer.continuation = null;
        this.context.changed();
      } finally {
        listing = false;
        wake();
      }
    };
    // A listing that fails stops new files from being taken and lets those under way end before the transfer
    // fails: a file still running when the transfer ended would end cancelled after it, and a retry would skip it.
    const listingFailed: { error?: unknown } = {};
    const listed = listing
      ? list().catch((error: unknown) => {
          listingFailed.error = error;
        })
      : Promise.resolve();
    const worker = async () => {
      while (!this.context.signal.aborted && !('error' in listingFailed)) {
        const file = this.#queue[this.#next];
        if (!file) {
          if (!listing) return;
          await new Promise<void>((resolve) => waiting.push(resolve));
          continue;
        }
        this.#next += 1;
        await this.#one(file);
      }
    };
    await Promise.all([listed, ...Array.from({ length: AGENT_PARALLEL_FILES }, worker)]);
    if ('error' in listingFailed) throw listingFailed.error;
  }

  /** One file of the transfer, to its end (verified, failed or cancelled). */
  async #one(file: FileState): Promise<void> {
    file.status = 'running';
    this.context.changed(file);
    let failure: unknown = null;
    try {
      await this.#download(file);
    } catch (error) {
      if (error instanceof DeviceUnknown) throw error;
      failure = error;
    }
    if (failure === null) {
      file.status = 'verified';
      file.error = null;
      file.blocks = [];
    } else if (this.context.signal.aborted) {
      file.status = 'cancelled';
    } else {
      file.status = 'failed';
      file.error = failure instanceof FileFailure ? failure.message : errorText(failure);
      file.transferred = 0;
      file.blocks = [];
    }
    // Its signed URL is not needed again (a retry asks for new ones): only the URLs of files to come are held.
    this.#urls.delete(file.key);
    this.onFileDone(file);
    await this.context.fileEnded(file);
  }

  async #page(paths: string[], continuation: string | null) {
    const { transfer, server } = this.context;
    return server.device(
      'POST',
      '/agent/downloads',
      {
        cloud_account_id: transfer.cloud_account_id,
        bucket_name: transfer.bucket_name,
        paths,
        continuation,
      },
      agentDownloadAnswer,
    );
  }

  /**
   * The real path of a destination folder, made when missing. Checked in full (inside its added folder) the first
   * time; afterwards its real path must still be the one checked, so a folder swapped for a link during the
   * transfer is refused, at the cost of one realpath per file rather than a walk from the root.
   */
  async #folder(virtual: string): Promise<string> {
    const known = this.#folders.get(virtual);
    if (known !== undefined) {
      const real = await realpath(known).catch(() => null);
      if (real === known) return known;
      this.#folders.delete(virtual);
    }
    const { folders } = this.context;
    const resolved = await folders.resolve(virtual);
    if (!resolved.exists) await mkdir(resolved.osPath, { recursive: true });
    // The folders just made are checked again: nothing on the way may lead out of the added folder.
    const checked = (await folders.resolveExisting(virtual)).osPath;
    this.#folders.set(virtual, checked);
    return checked;
  }

  /** A listed object as a file of this transfer, or null when its relative path is not one the agent writes. */
  #fileOf(listed: AgentDownloadFile): FileState | null {
    let segments: string[];
    try {
      segments = segmentsOf(listed.relative_path);
    } catch {
      return null;
    }
    if (segments.length === 0 || segments.some(isHiddenName)) return null;
    const relative = segments.join('/');
    return {
      name: relative,
      local: `${this.context.transfer.target.replace(/\/+$/, '')}/${relative}`,
      key: listed.key,
      size: listed.size,
      etag: listed.etag,
      status: 'pending',
      error: null,
      transferred: 0,
      blocks: [],
    };
  }

  /** A fresh signed URL of `file`; `renew` when the store refused the one held (expired, or signed too early). */
  async #url(file: FileState, renew: boolean): Promise<string> {
    if (!renew) {
      // No await unless a request is under way: the blocks of one file ask at once, and the first one's request
      // must be seen by the others before they look for the URL, or each would send its own.
      for (let pending = this.#fetching.get(file.key); pending; pending = this.#fetching.get(file.key))
        await pending;
      const held = this.#urls.get(file.key);
      if (held && Date.now() - held.at < URL_FRESH_MS) return held.url;
    }
    await this.#fetchUrls(file);
    const fetched = this.#urls.get(file.key);
    if (!fetched) throw new Error('The server signed no URL for this file.');
    return fetched.url;
  }

  /**
   * Asks the server for the URL of `file` and of the next queued files without a fresh one, URL_BATCH in all, in
   * one call. A download that reaches one of them meanwhile waits for this call instead of asking again.
   */
  async #fetchUrls(file: FileState): Promise<void> {
    const keys = [file.key];
    const now = Date.now();
    const { urlBatch } = this.limits;
    const scanEnd = Math.min(this.#queue.length, this.#next + URL_SCAN_BATCHES * urlBatch);
    for (let i = this.#next; i < scanEnd && keys.length < urlBatch; i += 1) {
      const next = this.#queue[i];
      if (!next || next === file || this.#fetching.has(next.key)) continue;
      const held = this.#urls.get(next.key);
      if (!held || now - held.at >= URL_FRESH_MS) keys.push(next.key);
    }
    const { transfer, server } = this.context;
    const request = server
      .device(
        'POST',
        '/agent/downloads/urls',
        { cloud_account_id: transfer.cloud_account_id, bucket_name: transfer.bucket_name, keys },
        agentDownloadUrlsAnswer,
      )
      .then((answer) => {
        const at = Date.now();
        for (const { key, url } of answer.urls) this.#urls.set(key, { url, at });
      });
    // Waiters only wait: the one that asked sees the failure, and the others ask again for their own file.
    const done = request.catch(() => undefined);
    for (const key of keys) this.#fetching.set(key, done);
    try {
      await request;
    } finally {
      for (const key of keys) if (this.#fetching.get(key) === done) this.#fetching.delete(key);
    }
  }

  async #download(file: FileState): Promise<void> {
    const { signal } = this.context;
    let destination: string;
    try {
      const segments = segmentsOf(file.local);
      const name = segments.pop();
      if (!name || segments.length === 0) throw new LocalRefusal(403, agentMessages.readOnlyRoot);
      destination = path.join(await this.#folder(`/${segments.join('/')}`), name);
    } catch (error) {
      if (error instanceof LocalRefusal) throw new FileFailure(error.message);
      throw localFailure(error, file.name) ?? error;
    }
    const partPath = `${destination}${PART_SUFFIX}`;
    const blocksTotal = Math.max(1, Math.ceil(file.size / AGENT_BLOCK_SIZE));
    let partInfo = await lstat(partPath).catch(() => null);
    // The part file is the agent's own: a link put in its place is removed, never written through.
    if (partInfo && !partInfo.isFile()) {
      await rm(partPath, { force: true });
      partInfo = null;
    }
    // Blocks written before a restart count only while their part file is still there.
    const done = new Set(partInfo ? (file.blocks ?? []) : []);
    const resumed = done.size > 0;
    file.blocks = [...done];
    file.transferred = [...done].reduce((sum, block) => sum + this.#blockLength(file, block), 0);
    const md5s = new Map<number, string>();
    let handle: FileHandle;
    try {
      handle = await open(partPath, partInfo ? 'r+' : 'w');
    } catch (error) {
      throw localFailure(error, file.name) ?? error;
    }
    try {
      const pending = Array.from({ length: blocksTotal }, (_, i) => i).filter((block) => !done.has(block));
      await eachLimited(pending, AGENT_CLIENTS, signal, async (block) => {
        md5s.set(block, await this.#fetchBlock(file, handle, block));
        file.blocks?.push(block);
        this.context.changed(file);
      });
      signal.throwIfAborted();
      if (file.size === 0) await handle.truncate(0);
    } catch (error) {
      await handle.close().catch(() => undefined);
      if (!isAbort(error) && !(error instanceof DeviceUnknown)) await rm(partPath, { force: true });
      throw error;
    }
    await handle.close();
    const written = await stat(partPath);
    if (written.size !== file.size) {
      await rm(partPath, { force: true });
      throw new FileFailure(agentMessages.verifyFailed(file.name));
    }
    const verifiedBy = resumed
      ? await verifyFile(partPath, file.size, file.etag ?? null)
      : this.#check(file, md5s);
    const result = verifiedBy ?? (await verifyFile(partPath, file.size, file.etag ?? null));
    if (result === null) {
      await rm(partPath, { force: true });
      throw new FileFailure(agentMessages.verifyFailed(file.name));
    }
    file.verifiedBy = result;
    await rename(partPath, destination);
  }

  /**
   * The check from the blocks' own MD5s, without reading the file again: a one-block file against a plain MD5 ETag,
   * a file in blocks against a multipart ETag of as many parts (an upload by the agent or the page, 5 MiB parts).
   * Null when the ETag needs a re-read (another part size) or differs.
   */
  #check(file: FileState, md5s: Map<number, string>): 'md5' | 'multipart-md5' | 'size' | null {
    const etag = file.etag?.toLowerCase() ?? null;
    const ordered = Array.from({ length: md5s.size }, (_, i) => md5s.get(i) ?? '');
    if (etag && PLAIN_MD5.test(etag)) {
      if (ordered.length === 1) return ordered[0] === etag ? 'md5' : null;
      return null;
    }
    const multipart = etag ? MULTIPART_ETAG.exec(etag) : null;
    if (etag && multipart && Number(multipart[2]) === ordered.length)
      return multipartEtag(ordered) === etag ? 'multipart-md5' : null;
    return multipart ? null : 'size';
  }

  #blockLength(file: FileState, block: number): number {
    return Math.max(0, Math.min(AGENT_BLOCK_SIZE, file.size - block * AGENT_BLOCK_SIZE));
  }

  /** One block by a Range GET, written at its place; answers its MD5. */
  async #fetchBlock(file: FileState, handle: FileHandle, block: number): Promise<string> {
    const start = block * AGENT_BLOCK_SIZE;
    const length = this.#blockLength(file, block);
    const { signal } = this.context;
    let last: unknown = null;
    for (let attempt = 0; attempt < STORE_ATTEMPTS; attempt += 1) {
      if (attempt > 0) await sleep(500 * 2 ** attempt, signal);
      let counted = 0;
      try {
        const url = await this.#url(file, attempt > 0 && last instanceof ExpiredUrl);
        const headers: Record<string, string> =
          // A file of one block is asked for whole, as any client does: no range for the store to work out.
          length > 0 && length < file.size ? { range: `bytes=${start}-${start + length - 1}` } : {};
        const response = await httpGet(url, headers, signal);
        const status = response.statusCode ?? 0;
        if (status === 403 || status === 400) {
          response.resume();
          throw new ExpiredUrl(`The object store answered HTTP ${status}.`);
        }
        if (status === 404) {
          response.resume();
          throw new FileFailure(`${file.name} is no longer in the bucket.`);
        }
        // A 200 is the whole object: fine only when this block is the whole object.
        if (!(status === 206 || (status === 200 && start === 0 && length === file.size))) {
          response.resume();
          throw new Error(`The object store answered HTTP ${status}.`);
        }
        const hash = createHash('md5');
        let received = start;
        let written = start;
        let pending: Buffer[] = [];
        const flush = async () => {
          written = await writeAll(handle, pending, written);
          pending = [];
        };
        for await (const chunk of response as AsyncIterable<Buffer>) {
          // No promise per chunk when no --bwlimit is set (the common case): each await is garbage per 64 KiB.
          if (bandwidth.rate > 0) await bandwidth.take(chunk.length);
          if (received + chunk.length > start + length)
            throw new Error('The object store sent too many bytes.');
          hash.update(chunk);
          pending.push(chunk);
          received += chunk.length;
          counted += chunk.length;
          file.transferred += chunk.length;
          if (received - written >= WRITE_BATCH) await flush();
        }
        await flush();
        if (written !== start + length) throw new Error('The object store sent too few bytes.');
        return hash.digest('hex');
      } catch (error) {
        file.transferred -= counted;
        if (signal.aborted || isAbort(error)) throw error;
        const local = localFailure(error, file.name);
        if (local && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw local;
        if (error instanceof DeviceUnknown) throw error;
        if (error instanceof FileFailure && !(error instanceof ExpiredUrl)) throw error;
        last = error;
      }
    }
    throw last instanceof FileFailure ? last : new FileFailure(errorText(last));
  }
}

class ExpiredUrl extends FileFailure {}

/**
 * Bytes received are written in one writev per this many: a write per network chunk (64 KiB) cost the agent a
 * fifth of its CPU on a 2 GiB download (2.6 s of promise and thread-pool round trips, and their garbage). 1 MiB
 * saved a little more CPU but held 38 MB more at the peak (the chunks waiting outlive young collections).
 */
const WRITE_BATCH = 256 * 1024;

/** Writes `buffers` at `position` whole (a short write is continued); answers the position after them. */
async function writeAll(handle: FileHandle, buffers: Buffer[], position: number): Promise<number> {
  let rest = buffers.filter((buffer) => buffer.length > 0);
  let at = position;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest, at);
    at += bytesWritten;
    let skip = bytesWritten;
    const next: Buffer[] = [];
    for (const buffer of rest) {
      if (skip >= buffer.length) skip -= buffer.length;
      else {
        next.push(skip > 0 ? buffer.subarray(skip) : buffer);
        skip = 0;
      }
    }
    rest = next;
  }
  return at;
}

const errorText = (error: unknown) =>
  error instanceof Error && error.message ? error.message : 'The object store refused the download.';

/** The server answered, and refused or failed the call (not: the device is unknown, the server unreachable). */
const refusedBy = (error: unknown) =>
  error instanceof ServerError && !(error instanceof DeviceUnknown) && error.status !== 0;

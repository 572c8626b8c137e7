import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import {
  agentMessages,
  type AgentDirection,
  type AgentHistoryReport,
  type AgentTransfer,
} from '@cumulo/contract';
import { z } from 'zod';
import type { LocalFolders } from '../local-folders.ts';
import { DeviceUnknown, type CumuloServer } from '../server-client.ts';
import { Downloader, PART_SUFFIX } from './download.ts';
import type { TransferContext } from './transfer-context.ts';
import { StateStore, type FileState, type TransferState } from './transfer-state.ts';
import { chooseUpload, planUpload, runUpload, walkAgain } from './upload.ts';

/** Ended transfers stay in GET /status (and the state file) this long. */
const KEEP_ENDED_MS = 60 * 60_000;
/** The speed is the average over this window. */
const RATE_WINDOW_MS = 5000;
/** GET /status lists at most this many files of a transfer (the running and failed ones). */
const FILES_SHOWN = 50;
/** An unsent history report is tried again this often. */
const HISTORY_RETRY_MS = 60_000;

const historyAnswer = z.unknown();

interface Running {
  controller: AbortController;
  samples: Array<{ at: number; bytes: number }>;
}

/**
 * Every transfer of the agent: started from the page, run one at a time in the order asked (each with
 * AGENT_PARALLEL_FILES files at once), remembered in the state file so that a restart resumes them, reported to the
 * server's history when they end.
 */
export class TransferManager {
  readonly #transfers: TransferState[] = [];
  readonly #running = new Map<string, Running>();
  /** Transfers whose retry is being started (POST /retry reads each failed file's size again before it starts). */
  readonly #retrying = new Set<string>();
  readonly #store: StateStore;
  #queue: Promise<void> = Promise.resolve();
  #historyTimer: NodeJS.Timeout | null = null;

  constructor(
    home: string,
    private readonly server: CumuloServer,
    private readonly folders: LocalFolders,
  ) {
    this.#store = new StateStore(home, () => this.#kept());
  }

  /** Loads the state file and resumes what was under way when the agent stopped. */
  async resume(): Promise<number> {
    const saved = await this.#store.load();
    let resumed = 0;
    for (const transfer of saved) {
      this.#transfers.push(transfer);
      if (transfer.status === 'running' || transfer.status === 'queued') {
        transfer.resumed = true;
        transfer.status = 'queued';
        this.#enqueue(transfer);
        resumed += 1;
      }
    }
    if (saved.some((transfer) => transfer.historyPending)) this.#scheduleHistory(0);
    return resumed;
  }

  async startUpload(
    sources: string[],
    remote: { cloud_account_id: string; bucket_name: string; path: string },
  ): Promise<string> {
    // The chosen paths are checked now (a path outside the added folders is refused at once); the folders are
    // walked when the transfer runs, so the page has its transfer at once even for a million files.
    const chosen = await chooseUpload(this.folders, sources);
    return this.#start('upload', remote.cloud_account_id, remote.bucket_name, sources, remote.path, {
      files: [],
      chosen: chosen.names,
      isDirectory: chosen.isDirectory,
      listed: false,
    });
  }

  async startDownload(body: {
    remotePaths: string[];
    cloud_account_id: string;
    bucket_name: string;
    localPath: string;
  }): Promise<string> {
    // The destination must be a folder inside an added one (checked again for every file written).
    const destination = await this.folders.resolveExisting(body.localPath);
    const chosen = body.remotePaths.map((key) => key.replace(/\/+$/, '').split('/').at(-1) ?? key);
    return this.#start(
      'download',
      body.cloud_account_id,
      body.bucket_name,
      body.remotePaths,
      `/${[destination.root.name, ...destination.inside].join('/')}`,
      {
        files: [],
        chosen,
        isDirectory: body.remotePaths.some((key) => key.endsWith('/')),
        listed: false,
      },
    );
  }

  #start(
    direction: AgentDirection,
    cloudAccountId: string,
    bucketName: string,
    sources: string[],
    target: string,
    content: Pick<
      TransferState,
      'files' | 'chosen' | 'isDirectory' | 'listed' | 'continuation' | 'walkAgain'
    >,
  ): string {
    const transfer: TransferState = {
      id: randomUUID(),
      direction,
      cloud_account_id: cloudAccountId,
      bucket_name: bucketName,
      sources,
      target,
      ...content,
      chosen: content.chosen.slice(0, 100),
      status: 'queued',
      startedAt: new Date().toISOString(),
      endedAt: null,
      resumed: false,
      historyPending: false,
    };
    this.#transfers.push(transfer);
    this.#enqueue(transfer);
    void this.#store.flush();
    return transfer.id;
  }

  #enqueue(transfer: TransferState) {
    const running: Running = { controller: new AbortController(), samples: [] };
    this.#running.set(transfer.id, running);
    this.#queue = this.#queue.then(() => this.#run(transfer, running));
  }

  async #run(transfer: TransferState, running: Running): Promise<void> {
    if (transfer.status !== 'queued') return;
    transfer.status = 'running';
    const context: TransferContext = {
      server: this.server,
      folders: this.folders,
      transfer,
      signal: running.controller.signal,
      changed: (file) =>
        file ? this.#store.fileChanged(transfer, file) : this.#store.transferChanged(transfer),
      // A folder of thousands of small files ends thousands of files a minute: their ends are saved with the
      // rest, at most once a second (a file whose end was not saved yet is sent again after a crash, no more).
      fileEnded: async (file) => this.#store.fileChanged(transfer, file),
    };
    const fileDone = (file: FileState) => {
      if (file.status === 'failed') process.stderr.write(`${file.name}: ${file.error ?? ''}\n`);
    };
    try {
      if (transfer.direction === 'upload') {
        if (!transfer.listed) await this.#planUpload(transfer, context.signal);
        await runUpload(context, fileDone);
      } else await new Downloader(context, fileDone).run();
    } catch (error) {
      const message =
        error instanceof DeviceUnknown
          ? agentMessages.deviceUnknown
          : error instanceof Error
            ? error.message
            : String(error);
      if (!running.controller.signal.aborted) {
        // The device was revoked, or the server refused the whole transfer: every file not done fails with why.
        for (const file of transfer.files)
          if (file.status === 'pending' || file.status === 'running') {
            file.status = 'failed';
            file.error = message;
          }
        // A transfer whose file list stopped short is not whole, whatever became of the files it had named.
        if (transfer.files.length === 0 || !transfer.listed)
          transfer.files.push(this.#placeholder(transfer, message));
      }
      running.controller.abort();
    }
    await this.#end(transfer);
  }

  /**
   * Walks an upload's chosen folders into its files, or for a retry the rows an earlier walk could not read (their
   * files join the failed files retried). The files are set only once the walk is whole, so a walk the agent
   * stopped half-way (a restart) added none and runs again.
   */
  async #planUpload(transfer: TransferState, signal: AbortSignal): Promise<void> {
    if (transfer.walkAgain) {
      const found: FileState[] = [];
      for (const row of transfer.walkAgain) found.push(...(await walkAgain(this.folders, row, signal)));
      transfer.files = [...transfer.files, ...found];
      delete transfer.walkAgain;
    } else transfer.files = (await planUpload(this.folders, transfer.sources, transfer.target, signal)).files;
    transfer.listed = true;
    await this.#store.flush();
  }

  /** A failed transfer whose file list never came, or stopped short: one row to say why. */
  #placeholder(transfer: TransferState, message: string): FileState {
    return {
      name: transfer.chosen.join(', '),
      local: transfer.target,
      key: transfer.sources[0] ?? '',
      size: 0,
      status: 'failed',
      error: message,
      transferred: 0,
      unlisted: true,
    };
  }

  async #end(transfer: TransferState) {
    const running = this.#running.get(transfer.id);
    const reason: unknown = running?.controller.signal.reason;
    const cancelled = transfer.status === 'cancelled' || reason === 'cancel';
    for (const file of transfer.files) {
      if (file.status === 'pending' || file.status === 'running')
        file.status = cancelled ? 'cancelled' : 'failed';
      // Files stopped because the device was revoked failed for that reason, not because the user cancelled.
      if (reason instanceof DeviceUnknown && (file.status === 'cancelled' || file.status === 'failed')) {
        file.status = 'failed';
        file.error ??= agentMessages.deviceUnknown;
      }
    }
    const failed = transfer.files.some((file) => file.status === 'failed');
    transfer.status = cancelled ? 'cancelled' : failed ? 'failed' : 'completed';
    transfer.endedAt = new Date().toISOString();
    transfer.historyPending = transfer.files.some((file) => file.status === 'verified');
    this.#running.delete(transfer.id);
    await this.#store.flush();
    if (transfer.historyPending) await this.#report(transfer);
  }

  /**
   * POST /retry (spec 001 §8 'Retry Failed Files started successfully!'): a new transfer of the files an ended
   * transfer failed, to the same place. An upload reads each file's size and time again (the user may have put it
   * back), and walks again each folder or file its walk could not read (the user may have given the permission);
   * a download keeps the blocks its part files hold. A download whose listing stopped half-way also lists on from
   * where it stopped (the files it had verified are not fetched again); one whose listing never came, or an upload
   * whose walk failed, starts over. Null when the transfer is unknown, still under way, failed nothing, or was
   * retried already (the retry's own failures are retried from its row).
   */
  async retry(transferId: string): Promise<string | null> {
    const old = this.#transfers.find((candidate) => candidate.id === transferId);
    if (!old?.endedAt) return null;
    const failed = old.files.filter((file) => file.status === 'failed');
    if (failed.length === 0 || this.#retried(old) || this.#retrying.has(old.id)) return null;
    // Retried once (spec 001 §4, as a batch); claimed before the first await, so a second click cannot start a twin.
    this.#retrying.add(old.id);
    try {
      const retryId = await this.#retry(old, failed);
      if (retryId) {
        old.retriedBy = retryId;
        this.#store.transferChanged(old);
      }
      return retryId;
    } finally {
      this.#retrying.delete(old.id);
    }
  }

  /** Its failed files are being sent again, or were: a retry the user cancelled leaves them to retry once more. */
  #retried(transfer: TransferState): boolean {
    if (transfer.retriedBy === undefined) return false;
    const retry = this.#transfers.find((candidate) => candidate.id === transfer.retriedBy);
    return retry?.status !== 'cancelled';
  }

  async #retry(old: TransferState, failed: FileState[]): Promise<string | null> {
    const content = { chosen: old.chosen, isDirectory: old.isDirectory };
    // What an upload walks again: the rows its walk could not read; or, when it was itself a retry whose walk of
    // those failed, the same rows. A download's row for what its listing never named is no file: the listing
    // names those again.
    const walk =
      old.direction !== 'upload'
        ? []
        : old.listed
          ? failed.filter((file) => file.unlisted)
          : (old.walkAgain ?? []);
    // The file list never came whole: an upload's walk failed (nothing was sent), or a download's listing did.
    const listingLeft = !old.listed;
    if (listingLeft && !old.continuation && walk.length === 0)
      return this.#start(old.direction, old.cloud_account_id, old.bucket_name, old.sources, old.target, {
        ...content,
        files: [],
        listed: false,
      });
    const files: FileState[] = [];
    for (const file of failed) {
      if (file.unlisted) continue;
      const again: FileState = { ...file, status: 'pending', error: null, transferred: 0 };
      if (old.direction === 'upload') {
        again.sessionId = null;
        const now = await this.folders
          .resolve(file.local)
          .then((resolved) => stat(resolved.osPath))
          .catch(() => null);
        if (now) Object.assign(again, { size: now.size, mtimeMs: now.mtimeMs });
      }
      files.push(again);
    }
    if (files.length === 0 && walk.length === 0 && !listingLeft) return null;
    return this.#start(old.direction, old.cloud_account_id, old.bucket_name, old.sources, old.target, {
      ...content,
      files,
      ...(walk.length > 0
        ? { listed: false, walkAgain: walk }
        : listingLeft
          ? { listed: false, continuation: old.continuation }
          : { listed: true }),
    });
  }

  /** POST /cancel: stops the transfer, aborts its open upload sessions, removes its part files. */
  async cancel(transferId: string): Promise<boolean> {
    const transfer = this.#transfers.find((candidate) => candidate.id === transferId);
    if (!transfer) return false;
    if (transfer.endedAt) return true;
    const running = this.#running.get(transferId);
    const wasQueued = transfer.status === 'queued';
    transfer.status = 'cancelled';
    running?.controller.abort('cancel');
    await this.#queueSettled(transfer);
    if (wasQueued && !transfer.endedAt) await this.#end(transfer);
    for (const file of transfer.files) {
      if (transfer.direction === 'upload' && file.sessionId) {
        await this.server
          .device('DELETE', `/transfers/uploads/${file.sessionId}`, undefined, historyAnswer)
          .catch(() => undefined);
        file.sessionId = null;
      }
      if (transfer.direction === 'download' && file.status !== 'verified') {
        const resolved = await this.folders.resolve(file.local).catch(() => null);
        if (resolved) await rm(`${resolved.osPath}${PART_SUFFIX}`, { force: true });
        file.blocks = [];
      }
    }
    await this.#store.flush();
    return true;
  }

  /** Waits (a little) for a running transfer to notice its cancel and end. */
  async #queueSettled(transfer: TransferState) {
    for (let i = 0; i < 100 && !transfer.endedAt && this.#running.has(transfer.id); i += 1) {
      if (transfer.status === 'cancelled' && !this.#isRunning(transfer)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  #isRunning(transfer: TransferState) {
    return transfer.files.some((file) => file.status === 'running');
  }

  /** Stops every transfer (the device was revoked): they fail with deviceUnknown. */
  revoked() {
    for (const running of this.#running.values()) running.controller.abort(new DeviceUnknown());
    for (const transfer of this.#transfers)
      if (!transfer.endedAt)
        for (const file of transfer.files)
          if (file.status === 'pending' || file.status === 'running') {
            file.status = 'failed';
            file.error = agentMessages.deviceUnknown;
          }
  }

  /** GET /status: every transfer of this run and the resumed ones, newest first. */
  status(): AgentTransfer[] {
    const now = Date.now();
    return this.#kept()
      .slice()
      .reverse()
      .map((transfer) => this.#view(transfer, now));
  }

  #kept(): TransferState[] {
    const now = Date.now();
    return this.#transfers.filter(
      (transfer) =>
        !transfer.endedAt || transfer.historyPending || now - Date.parse(transfer.endedAt) < KEEP_ENDED_MS,
    );
  }

  #view(transfer: TransferState, now: number): AgentTransfer {
    let totalBytes = 0;
    let transferredBytes = 0;
    let filesTotal = 0;
    let filesDone = 0;
    // A row of files never found (`unlisted`: a listing that broke off, a folder the walk could not read) is shown
    // among the failures, but it is no file: it is not counted, and the files are then not all known.
    let unlisted = false;
    for (const file of transfer.files) {
      if (file.unlisted) {
        unlisted = true;
        continue;
      }
      filesTotal += 1;
      totalBytes += file.size;
      if (file.status === 'verified') {
        transferredBytes += file.size;
        filesDone += 1;
      } else transferredBytes += Math.min(file.transferred, file.size);
    }
    const running = this.#running.get(transfer.id);
    let rate = 0;
    if (running && transfer.status === 'running') {
      running.samples.push({ at: now, bytes: transferredBytes });
      while (running.samples.length > 2 && (running.samples[1]?.at ?? now) < now - RATE_WINDOW_MS)
        running.samples.shift();
      const first = running.samples[0];
      if (first && now > first.at) rate = (transferredBytes - first.bytes) / ((now - first.at) / 1000);
    }
    const remaining = totalBytes - transferredBytes;
    const listedWhole = transfer.listed && !unlisted;
    const current = transfer.files.find((file) => file.status === 'running');
    const shown = transfer.files
      .filter((file) => file.status === 'running' || file.status === 'failed')
      .slice(0, FILES_SHOWN);
    return {
      transferID: transfer.id,
      status: transfer.status,
      currentFilename: current?.name ?? '',
      rateAverageInKBperSecond: Math.max(0, Math.round((rate / 1024) * 10) / 10),
      transferDirection: transfer.direction,
      timeRemaining:
        transfer.endedAt !== null ? 0 : rate > 0 && listedWhole ? Math.round((remaining / rate) * 1000) : -1,
      percent:
        transfer.status === 'completed'
          ? 100
          : totalBytes > 0
            ? Math.min(100, Math.floor((transferredBytes / totalBytes) * 100))
            : 0,
      bucket: transfer.bucket_name,
      items: transfer.chosen,
      totalBytes,
      transferredBytes,
      filesTotal,
      filesDone,
      listedWhole,
      resumed: transfer.resumed,
      retried: this.#retried(transfer),
      startedAt: transfer.startedAt,
      endedAt: transfer.endedAt,
      transferErrors: transfer.files
        .filter((file) => file.status === 'failed')
        .slice(0, FILES_SHOWN)
        .map((file) => ({ file: file.name, error: file.error ?? agentMessages.serverError })),
      fileTransfers: shown.map((file) => ({
        file: file.name,
        size: file.size,
        transferred: file.status === 'failed' ? 0 : Math.min(file.transferred, file.size),
        status: file.status,
        error: file.error,
      })),
    };
  }

  has(transferId: string) {
    return this.#transfers.some((transfer) => transfer.id === transferId);
  }

  async #report(transfer: TransferState): Promise<void> {
    const moved = transfer.files.filter((file) => file.status === 'verified');
    const report: AgentHistoryReport = {
      transfer_id: transfer.id,
      direction: transfer.direction,
      cloud_account_id: transfer.cloud_account_id,
      bucket_name: transfer.bucket_name,
      files: transfer.chosen.slice(0, 100),
      files_count: moved.length,
      size: moved.reduce((sum, file) => sum + file.size, 0),
      is_directory: transfer.isDirectory,
    };
    try {
      await this.server.device('POST', '/agent/history', report, historyAnswer);
      transfer.historyPending = false;
      await this.#store.flush();
    } catch (error) {
      // A revoked device has no history to send; anything else is tried again later.
      if (error instanceof DeviceUnknown) transfer.historyPending = false;
      else this.#scheduleHistory(HISTORY_RETRY_MS);
      await this.#store.flush();
    }
  }

  #scheduleHistory(delay: number) {
    if (this.#historyTimer) return;
    this.#historyTimer = setTimeout(() => {
      this.#historyTimer = null;
      for (const transfer of this.#transfers)
        if (transfer.historyPending && transfer.endedAt) void this.#report(transfer);
    }, delay);
    this.#historyTimer.unref();
  }

  async close(): Promise<void> {
    await this.#store.flush();
  }
}

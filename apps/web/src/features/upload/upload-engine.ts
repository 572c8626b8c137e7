import {
  DIRECTORY_UPLOAD_STATUS,
  UPLOAD_CONCURRENT_PARTS,
  UPLOAD_BATCH_MAX,
  UPLOAD_PARALLEL_FILES,
  UPLOAD_PART_MIN,
  UPLOAD_PROGRESS_INTERVAL_MS,
  UPLOAD_RETRIES,
  UPLOAD_SMALL_FILES_IN_FLIGHT,
  UPLOAD_WARNING_TO_ERROR_MS,
  uploadMessages,
  type AccessControl,
  type SignedPart,
  type StartUploadBatchAnswer,
  type UploadReportBody,
  type UploadSession,
  type UploadStatus,
} from '@cumulo/contract';
import { ApiError } from '../../api/client.ts';
import { fileFingerprint, isHiddenPath, topFolder, type LocalFile } from './local-files.ts';
import { TransferRate } from './transfer-rate.ts';
import { SIGN_BATCH_MAX, type PartResponse, type UploadTransport } from './upload-transport.ts';

/** Where the chosen files go. */
export interface UploadTarget {
  cloudAccountId: string;
  bucketName: string;
  /** The folder shown in the browser: '' or 'a/b/'. */
  path: string;
  acl: AccessControl;
  s3Acceleration: boolean;
}

/** One row of the upload list (spec 001 §3 "Upload state per file"). */
export interface UploadFileView {
  id: string;
  /** The path inside the picked folder, or the file name. */
  name: string;
  key: string;
  cloudAccountId: string;
  bucketName: string;
  size: number;
  status: UploadStatus;
  percent: number;
  /** Bytes per second over the last seconds. */
  speed: number;
  /** Seconds left, null while unknown. */
  eta: number | null;
  error: string | null;
  /** A part failed and is being retried; it becomes an error when it lasts UPLOAD_WARNING_TO_ERROR_MS. */
  warning: string | null;
  /** The session went on from parts the store already held (the same file picked after a reload). */
  resumed: boolean;
  /** The first part never reached the store: likely the bucket's CORS rules (the page offers Apply). */
  corsSuspected: boolean;
  directoryId: string | null;
  /** Sent in one PUT through the batch calls: done in moments, so the page counts it rather than showing it. */
  batched: boolean;
}

type DirectoryUploadStatus = (typeof DIRECTORY_UPLOAD_STATUS)[keyof typeof DIRECTORY_UPLOAD_STATUS];

export interface UploadDirectoryView {
  id: string;
  name: string;
  bucketName: string;
  /** Spec 001 §4: 2 running, 3 done, 4 stop. */
  status: DirectoryUploadStatus;
  fileCount: number;
  completedCount: number;
  size: number;
}

/** A file that reached the bucket in this run (the collapsed "done" list). */
export interface UploadDoneView {
  id: string;
  name: string;
  size: number;
}

/** One calm line for the whole run (issue 21): counts, bytes, speed and time left over every file. */
interface UploadSummary {
  /** Files of this run: done, failed, running and queued. */
  total: number;
  done: number;
  failed: number;
  bytesTotal: number;
  bytesDone: number;
  /** Bytes per second over the last seconds, all files together. */
  speed: number;
  /** Seconds left, null while unknown. */
  eta: number | null;
  /** Names starting with a dot left out of this run (spec 001 §5). */
  hiddenSkipped: number;
}

export interface UploadSnapshot {
  /** Files queued, running or failed (done ones move to `done`). */
  files: UploadFileView[];
  directories: UploadDirectoryView[];
  done: UploadDoneView[];
  summary: UploadSummary;
}

const EMPTY_SUMMARY: UploadSummary = {
  total: 0,
  done: 0,
  failed: 0,
  bytesTotal: 0,
  bytesDone: 0,
  speed: 0,
  eta: null,
  hiddenSkipped: 0,
};

export type UploadEvent =
  | { type: 'file-complete'; file: UploadFileView }
  | { type: 'file-failed'; file: UploadFileView }
  | { type: 'directory-complete'; directory: UploadDirectoryView }
  /** A folder's run ended with `failed` of its files not uploaded. */
  | { type: 'directory-failed'; directory: UploadDirectoryView; failed: number }
  /** Nothing queued or running any more. */
  | { type: 'idle' };

export interface UploadEngineOptions {
  transport: UploadTransport;
  now?: () => number;
  /** Wait before retry number `attempt` (1-based) of a part. */
  retryDelayMs?: (attempt: number) => number;
  /**
   * Files up to this size go one PUT each through the batch calls, many at a time; larger ones through a
   * resumable session in parts. UPLOAD_PART_MIN: a file of one part has nothing to resume.
   */
  smallFileMax?: number;
}

const SIGN_AHEAD = 10;

/** 1 s, 2 s, 4 s: a short network hiccup passes, a lasting one reaches the 10 s warning limit. */
const defaultRetryDelayMs = (attempt: number) => 1000 * 2 ** (attempt - 1);

class UploadFailure extends Error {
  constructor(
    message: string,
    readonly corsSuspected = false,
  ) {
    super(message);
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function failureText(error: unknown): string {
  if (error instanceof UploadFailure || error instanceof ApiError) return error.message;
  return uploadMessages.failed;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new DOMException('Upload cancelled', 'AbortError'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface FileJob {
  view: UploadFileView;
  local: LocalFile;
  target: UploadTarget;
  controller: AbortController | null;
  sessionId: string | null;
  /** Bytes of parts the store holds (finished before or during this run). */
  doneBytes: number;
  /** Bytes sent so far of each part in flight. */
  inFlight: Map<number, number>;
  rate: TransferRate;
  startedAt: number;
  cancelled: boolean;
  /** Set when the warning lasted too long: the reason the run was aborted. */
  failure: UploadFailure | null;
  warningTimer: ReturnType<typeof setTimeout> | null;
  /** Sent through the batch calls (see `smallFileMax`). */
  small: boolean;
  /** Counted in its directory's `active` (queued or running). */
  active: boolean;
}

/** A small file with its session and signed PUT, waiting for a free slot. */
interface SignedSmall {
  job: FileJob;
  target: StartUploadBatchAnswer['files'][number];
  /** The batch's signed form fields when the file goes as a form POST. */
  formFields: Record<string, string> | null;
}

interface DirectoryJob {
  view: UploadDirectoryView;
  target: UploadTarget;
  startedAt: number;
  stopped: boolean;
  completedBytes: number;
  /** Already reported (a retried file of a stopped directory is reported on its own later). */
  reportedCount: number;
  reportedBytes: number;
  /** Members queued or running: the directory settles when none is left. */
  active: number;
}

/**
 * Uploads local files straight to a bucket (spec 001 §4 "Direct upload"), independent of React. Large files: 2 at
 * a time, each in parts (5 in flight, 3 retries each) through presigned URLs of a resumable session. Small files
 * (a folder of thousands): up to UPLOAD_SMALL_FILES_IN_FLIGHT at a time, one PUT each, their sessions opened,
 * signed and completed UPLOAD_BATCH_MAX at a time. Progress is refreshed at most once a second, as one summary
 * plus the files still running. The page subscribes to snapshots and events.
 */
export class UploadEngine {
  private readonly transport: UploadTransport;
  private readonly now: () => number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly jobs = new Map<string, FileJob>();
  private readonly directories = new Map<string, DirectoryJob>();
  private readonly queue: FileJob[] = [];
  private running = 0;
  private readonly smallFileMax: number;
  private readonly smallQueue: FileJob[] = [];
  private readonly signedSmall: SignedSmall[] = [];
  /** Small files signed but waiting, plus those being signed: kept about one batch ahead of the PUTs. */
  private signingFiles = 0;
  private smallRunning = 0;
  private readonly toComplete: FileJob[] = [];
  private readonly looseReports: Array<{
    target: UploadTarget;
    entry: UploadReportBody['s3_direct']['files'][number];
  }> = [];
  private completing = 0;
  /** Buckets ("account/bucket") a PUT of this page reached: a later network error there is not CORS. */
  private readonly reachedBuckets = new Set<string>();
  private run_: {
    total: number;
    bytesTotal: number;
    done: number;
    bytesDone: number;
    hiddenSkipped: number;
    rate: TransferRate;
    doneList: UploadDoneView[];
  } = this.freshRun();
  private nextId = 1;
  private readonly listeners = new Set<(snapshot: UploadSnapshot) => void>();
  private readonly eventListeners = new Set<(event: UploadEvent) => void>();
  private lastEmit = Number.NEGATIVE_INFINITY;
  private emitTimer: ReturnType<typeof setTimeout> | null = null;
  private current: UploadSnapshot = { files: [], directories: [], done: [], summary: EMPTY_SUMMARY };

  constructor(options: UploadEngineOptions) {
    this.transport = options.transport;
    this.now = options.now ?? Date.now;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
    this.smallFileMax = options.smallFileMax ?? UPLOAD_PART_MIN;
  }

  private freshRun() {
    return {
      total: 0,
      bytesTotal: 0,
      done: 0,
      bytesDone: 0,
      hiddenSkipped: 0,
      rate: new TransferRate(),
      doneList: [] as UploadDoneView[],
    };
  }

  private busy(): boolean {
    return (
      this.running > 0 ||
      this.queue.length > 0 ||
      this.smallQueue.length > 0 ||
      this.signedSmall.length > 0 ||
      this.signingFiles > 0 ||
      this.smallRunning > 0 ||
      this.toComplete.length > 0 ||
      this.completing > 0
    );
  }

  subscribe(listener: (snapshot: UploadSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onEvent(listener: (event: UploadEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  snapshot(): UploadSnapshot {
    return this.current;
  }

  /**
   * Queues files for `target`; hidden names are skipped (and counted, with `hiddenSkipped` left out before).
   * Files inside a folder form one directory upload.
   */
  enqueue(files: readonly LocalFile[], target: UploadTarget, hiddenSkipped = 0): string[] {
    const ids: string[] = [];
    const folders = new Map<string, DirectoryJob>();
    if (!this.busy()) {
      // A new run: the summary starts over; files that failed before stay listed and counted.
      const failed = [...this.jobs.values()];
      this.run_ = this.freshRun();
      this.run_.total = failed.length;
      this.run_.bytesTotal = failed.reduce((sum, job) => sum + job.view.size, 0);
    }
    this.run_.hiddenSkipped += hiddenSkipped;
    for (const local of files) {
      if (isHiddenPath(local.relativePath)) {
        this.run_.hiddenSkipped += 1;
        continue;
      }
      const folder = topFolder(local.relativePath);
      let directory: DirectoryJob | undefined;
      if (folder !== null) {
        directory = folders.get(folder);
        if (!directory) {
          directory = {
            view: {
              id: `d${this.nextId++}`,
              name: `${target.path}${folder}`,
              bucketName: target.bucketName,
              status: DIRECTORY_UPLOAD_STATUS.running,
              fileCount: 0,
              completedCount: 0,
              size: 0,
            },
            target,
            startedAt: this.now(),
            stopped: false,
            completedBytes: 0,
            reportedCount: 0,
            reportedBytes: 0,
            active: 0,
          };
          folders.set(folder, directory);
          this.directories.set(directory.view.id, directory);
        }
        directory.view.fileCount += 1;
        directory.view.size += local.file.size;
        directory.active += 1;
      }
      const job: FileJob = {
        view: {
          id: `f${this.nextId++}`,
          name: local.relativePath,
          key: `${target.path}${local.relativePath}`,
          cloudAccountId: target.cloudAccountId,
          bucketName: target.bucketName,
          size: local.file.size,
          status: 'queued',
          percent: 0,
          speed: 0,
          eta: null,
          error: null,
          warning: null,
          resumed: false,
          corsSuspected: false,
          directoryId: directory?.view.id ?? null,
          batched: local.file.size <= this.smallFileMax,
        },
        local,
        target,
        controller: null,
        sessionId: null,
        doneBytes: 0,
        inFlight: new Map(),
        rate: new TransferRate(),
        startedAt: 0,
        cancelled: false,
        failure: null,
        warningTimer: null,
        small: local.file.size <= this.smallFileMax,
        active: true,
      };
      this.jobs.set(job.view.id, job);
      (job.small ? this.smallQueue : this.queue).push(job);
      this.run_.total += 1;
      this.run_.bytesTotal += job.view.size;
      ids.push(job.view.id);
    }
    this.emitNow();
    this.pump();
    return ids;
  }

  /** Stops a file: its requests are aborted and its session deleted, so nothing partial stays in the store. */
  cancel(id: string): void {
    const job = this.jobs.get(id);
    if (!job || job.view.status === 'complete') return;
    job.cancelled = true;
    if (job.small && job.view.status === 'started') {
      // Signed or being signed, no PUT yet: it is dropped when its turn comes.
      job.controller?.abort();
    } else if (job.view.status === 'queued') {
      this.dequeue(job);
      this.settleFailed(job, uploadMessages.cancelled);
      this.settleDirectory(job);
      this.emitNow();
      this.pump();
    } else if (job.controller) {
      job.controller.abort();
    } else if (job.sessionId) {
      // Already failed (e.g. waiting for Apply): its session may still hold parts.
      const sessionId = job.sessionId;
      job.sessionId = null;
      job.view.error = uploadMessages.cancelled;
      job.view.corsSuspected = false;
      this.emitNow();
      void this.transport.abort(sessionId).catch(() => undefined);
    }
  }

  /** Stops every file of a directory upload (status 4). */
  cancelDirectory(id: string): void {
    const directory = this.directories.get(id);
    if (!directory) return;
    directory.stopped = true;
    for (const job of this.jobs.values()) if (job.view.directoryId === id) this.cancel(job.view.id);
  }

  /** Puts a failed file back in the queue (after Apply fixed the bucket's CORS); its session resumes. */
  retry(id: string): void {
    const job = this.jobs.get(id);
    if (!job || job.view.status !== 'exception') return;
    Object.assign(job.view, {
      status: 'queued',
      percent: 0,
      speed: 0,
      eta: null,
      error: null,
      warning: null,
      corsSuspected: false,
    } satisfies Partial<UploadFileView>);
    job.cancelled = false;
    job.failure = null;
    // A small file gets a new session in the next batch; its old one (nothing to resume) is left to the sweep.
    if (job.small) job.sessionId = null;
    const directory = job.view.directoryId ? this.directories.get(job.view.directoryId) : undefined;
    if (directory) {
      directory.view.status = DIRECTORY_UPLOAD_STATUS.running;
      directory.stopped = false;
    }
    if (!job.active) {
      job.active = true;
      if (directory) directory.active += 1;
    }
    (job.small ? this.smallQueue : this.queue).push(job);
    this.emitNow();
    this.pump();
  }

  /** Puts every failed file back in the queue ("Retry failed"). */
  retryFailed(): void {
    for (const job of [...this.jobs.values()])
      if (job.view.status === 'exception' && job.view.error !== uploadMessages.cancelled)
        this.retry(job.view.id);
  }

  /** Takes a failed or cancelled row off the list. */
  dismiss(id: string): void {
    const job = this.jobs.get(id);
    if (!job || job.view.status !== 'exception') return;
    this.jobs.delete(id);
    this.emitNow();
  }

  /** Aborts everything in flight (the page is leaving); sessions stay so the same files can resume. */
  dispose(): void {
    this.queue.length = 0;
    this.smallQueue.length = 0;
    this.signedSmall.length = 0;
    for (const job of this.jobs.values()) job.controller?.abort();
  }

  private dequeue(job: FileJob) {
    const queue = job.small ? this.smallQueue : this.queue;
    const index = queue.indexOf(job);
    if (index >= 0) queue.splice(index, 1);
  }

  private pump(): void {
    while (this.running < UPLOAD_PARALLEL_FILES) {
      const job = this.queue.shift();
      if (!job) break;
      this.running += 1;
      void this.run(job).finally(() => {
        this.running -= 1;
        this.pump();
      });
    }
    this.pumpSmall();
    if (!this.busy()) {
      // The last files' ends may still wait for the throttled refresh: the final state is shown at once.
      this.emitNow();
      this.fire({ type: 'idle' });
    }
  }

  /** Small files: sign a batch ahead, keep the PUT slots full, complete what arrived in batches. */
  private pumpSmall(): void {
    while (
      this.smallQueue.length > 0 &&
      this.signingFiles + this.signedSmall.length < UPLOAD_SMALL_FILES_IN_FLIGHT + UPLOAD_BATCH_MAX
    ) {
      void this.signBatch();
    }
    while (this.smallRunning < UPLOAD_SMALL_FILES_IN_FLIGHT) {
      const next = this.signedSmall.shift();
      if (!next) break;
      this.smallRunning += 1;
      void this.putSmall(next).finally(() => {
        this.smallRunning -= 1;
        this.pump();
      });
    }
    // One completion call at a time: while it runs the next batch gathers, so calls grow with the rate.
    if (this.completing === 0 && this.toComplete.length > 0) {
      const batch = this.toComplete.splice(0, UPLOAD_BATCH_MAX);
      this.completing += 1;
      void this.completeBatch(batch).finally(() => {
        this.completing -= 1;
        this.pump();
      });
    }
  }

  private async signBatch(): Promise<void> {
    const first = this.smallQueue[0];
    if (!first) return;
    // One call per bucket and settings: the files of one enqueue share their target.
    const batch: FileJob[] = [];
    for (let i = 0; i < this.smallQueue.length && batch.length < UPLOAD_BATCH_MAX;) {
      const job = this.smallQueue[i];
      if (job && job.target === first.target) {
        batch.push(job);
        this.smallQueue.splice(i, 1);
      } else i += 1;
    }
    this.signingFiles += batch.length;
    for (const job of batch) {
      job.controller = new AbortController();
      job.view.status = 'started';
    }
    const target = first.target;
    try {
      const { files: signed, form_fields: formFields } = await this.transport.startBatch({
        cloud_account_id: target.cloudAccountId,
        bucket_name: target.bucketName,
        acl: target.acl,
        s3Acceleration: target.s3Acceleration || undefined,
        files: batch.map((job) => ({
          key: job.view.key,
          size: job.view.size,
          content_type: job.local.file.type || undefined,
          fingerprint: fileFingerprint(job.local),
        })),
      });
      batch.forEach((job, i) => {
        const answer = signed[i];
        if (!answer) throw new UploadFailure(uploadMessages.failed);
        job.sessionId = answer.session_id;
        this.signedSmall.push({ job, target: answer, formFields });
      });
    } catch (error) {
      for (const job of batch) {
        if (this.signedSmall.some((entry) => entry.job === job)) continue;
        this.endSmall(job, job.cancelled ? uploadMessages.cancelled : failureText(error));
      }
    } finally {
      this.signingFiles -= batch.length;
      this.scheduleEmit();
      this.pump();
    }
  }

  private async putSmall({ job, target, formFields }: SignedSmall): Promise<void> {
    const signal = job.controller?.signal;
    if (!signal || job.cancelled || signal.aborted) {
      this.endSmall(job, uploadMessages.cancelled);
      if (job.sessionId) void this.transport.abort(job.sessionId).catch(() => undefined);
      return;
    }
    job.startedAt = this.now();
    job.view.status = 'uploading';
    const bucket = `${job.target.cloudAccountId}/${job.target.bucketName}`;
    for (let attempt = 0; ; attempt += 1) {
      let response: PartResponse | null = null;
      try {
        response =
          target.method === 'POST'
            ? await this.transport.postForm({
                url: target.url,
                fields: { ...formFields, ...target.fields },
                key: target.key,
                contentType: job.local.file.type,
                body: job.local.file,
                signal,
              })
            : await this.transport.put({
                url: target.url,
                headers: target.headers,
                body: job.local.file,
                signal,
                onProgress: (loaded) => {
                  job.inFlight.set(1, loaded);
                  this.scheduleEmit();
                },
              });
      } catch (error) {
        job.inFlight.clear();
        if (!isAbort(error) && !signal.aborted) throw error;
        this.endSmall(job, uploadMessages.cancelled);
        if (job.sessionId) void this.transport.abort(job.sessionId).catch(() => undefined);
        return;
      }
      job.inFlight.clear();
      if (response.status >= 200 && response.status < 300) {
        this.reachedBuckets.add(bucket);
        job.doneBytes = job.view.size;
        job.view.percent = 99;
        this.toComplete.push(job);
        this.scheduleEmit();
        return;
      }
      if (response.status === 0 && !this.reachedBuckets.has(bucket)) {
        // Nothing of this page reached the bucket yet: CORS, which retrying will not fix. The files waiting for
        // the same bucket would meet the same refusal; they fail with it at once, ready for "Retry failed".
        this.endSmall(job, uploadMessages.network, true);
        this.failWaiting(bucket);
        return;
      }
      const message = response.status === 0 ? uploadMessages.network : uploadMessages.failed;
      if (attempt >= UPLOAD_RETRIES) {
        this.endSmall(job, message);
        return;
      }
      try {
        await sleep(this.retryDelayMs(attempt + 1), signal);
      } catch {
        this.endSmall(job, uploadMessages.cancelled);
        return;
      }
    }
  }

  /** Fails, as a suspected CORS refusal, the small files of `bucket` not yet sent. */
  private failWaiting(bucket: string) {
    const sameBucket = (job: FileJob) => `${job.target.cloudAccountId}/${job.target.bucketName}` === bucket;
    for (let i = this.smallQueue.length - 1; i >= 0; i -= 1) {
      const job = this.smallQueue[i];
      if (job && sameBucket(job)) {
        this.smallQueue.splice(i, 1);
        this.endSmall(job, uploadMessages.network, true);
      }
    }
    for (let i = this.signedSmall.length - 1; i >= 0; i -= 1) {
      const entry = this.signedSmall[i];
      if (entry && sameBucket(entry.job)) {
        this.signedSmall.splice(i, 1);
        this.endSmall(entry.job, uploadMessages.network, true);
      }
    }
  }

  private async completeBatch(batch: FileJob[]): Promise<void> {
    const live = batch.filter((job) => job.sessionId !== null);
    let results: Awaited<ReturnType<UploadTransport['completeBatch']>> = [];
    let failure: unknown = null;
    try {
      results = await this.transport.completeBatch(live.map((job) => job.sessionId ?? ''));
    } catch (error) {
      failure = error;
    }
    const bySession = new Map(results.map((result) => [result.session_id, result.error]));
    for (const job of live) {
      const error = failure !== null ? failureText(failure) : bySession.get(job.sessionId ?? '');
      if (error === null) this.finishDone(job);
      else this.endSmall(job, error ?? uploadMessages.failed);
    }
    this.flushLooseReports();
    this.scheduleEmit();
  }

  /** A file reached the bucket: it leaves the running list for the done list. */
  private finishDone(job: FileJob) {
    job.sessionId = null;
    job.controller = null;
    Object.assign(job.view, { status: 'complete', percent: 100, eta: 0 } satisfies Partial<UploadFileView>);
    this.jobs.delete(job.view.id);
    this.run_.done += 1;
    this.run_.bytesDone += job.view.size;
    this.run_.doneList.push({ id: job.view.id, name: job.view.name, size: job.view.size });
    this.fire({ type: 'file-complete', file: { ...job.view } });
    const directory = job.view.directoryId ? this.directories.get(job.view.directoryId) : undefined;
    if (directory) {
      directory.view.completedCount += 1;
      directory.completedBytes += job.view.size;
    }
    if (!job.view.directoryId) {
      // Loose small files are reported together after their completion batch: one call, not one per file.
      if (job.small) this.looseReports.push({ target: job.target, entry: this.fileEntry(job) });
      else void this.reportFile(job);
    }
    this.settleDirectory(job);
  }

  /** A small file ends without reaching the bucket. */
  private endSmall(job: FileJob, message: string, corsSuspected = false) {
    job.controller = null;
    job.inFlight.clear();
    this.settleFailed(job, job.cancelled ? uploadMessages.cancelled : message);
    job.view.corsSuspected = corsSuspected && !job.cancelled;
    if (!job.cancelled) this.fire({ type: 'file-failed', file: { ...job.view } });
    this.settleDirectory(job);
    this.scheduleEmit();
  }

  private async run(job: FileJob): Promise<void> {
    const controller = new AbortController();
    job.controller = controller;
    job.doneBytes = 0;
    job.inFlight.clear();
    job.rate = new TransferRate();
    job.startedAt = this.now();
    Object.assign(job.view, { status: 'started', percent: 1 } satisfies Partial<UploadFileView>);
    this.emitNow();
    try {
      const session = await this.transport.start({
        cloud_account_id: job.target.cloudAccountId,
        bucket_name: job.target.bucketName,
        key: job.view.key,
        size: job.view.size,
        content_type: job.local.file.type || undefined,
        fingerprint: fileFingerprint(job.local),
        acl: job.target.acl,
        s3Acceleration: job.target.s3Acceleration || undefined,
      });
      job.sessionId = session.session_id;
      controller.signal.throwIfAborted();
      const etags = new Map<number, string | null>();
      for (const part of session.finished_parts) {
        etags.set(part.part_number, part.etag);
        job.doneBytes += part.size;
      }
      job.view.resumed = session.resumed && session.finished_parts.length > 0;
      job.view.status = 'uploading';
      job.rate.record(this.now(), job.doneBytes);
      this.refresh(job);
      this.emitNow();
      await this.sendParts(job, session, etags, controller.signal);
      controller.signal.throwIfAborted();
      const parts = [...etags.entries()]
        .sort(([a], [b]) => a - b)
        .map(([part_number, etag]) => ({ part_number, etag }));
      await this.transport.complete(session.session_id, parts);
      this.clearWarning(job);
      job.sessionId = null;
      this.finishDone(job);
    } catch (error) {
      this.clearWarning(job);
      if (job.cancelled) {
        const sessionId = job.sessionId;
        job.sessionId = null;
        this.settleFailed(job, uploadMessages.cancelled);
        if (sessionId) await this.transport.abort(sessionId).catch(() => undefined);
      } else {
        const reason = job.failure ?? error;
        this.settleFailed(job, isAbort(reason) ? uploadMessages.failed : failureText(reason));
        job.view.corsSuspected = reason instanceof UploadFailure && reason.corsSuspected;
        this.fire({ type: 'file-failed', file: { ...job.view } });
      }
    } finally {
      job.controller = null;
      job.inFlight.clear();
      this.settleDirectory(job);
      this.emitNow();
    }
  }

  private settleFailed(job: FileJob, message: string) {
    Object.assign(job.view, {
      status: 'exception',
      error: message,
      warning: null,
      speed: 0,
      eta: null,
    } satisfies Partial<UploadFileView>);
  }

  private async sendParts(
    job: FileJob,
    session: UploadSession,
    etags: Map<number, string | null>,
    signal: AbortSignal,
  ): Promise<void> {
    const pending: number[] = [];
    for (let n = 1; n <= session.parts_total; n += 1) if (!etags.has(n)) pending.push(n);
    const signatures = new Map<number, Promise<SignedPart>>();
    const signedPart = (partNumber: number): Promise<SignedPart> => {
      const known = signatures.get(partNumber);
      if (known) return known;
      // Sign this part and the next few still unsigned, in one call.
      const batch = [partNumber];
      for (const n of pending) {
        if (batch.length >= Math.min(SIGN_AHEAD, SIGN_BATCH_MAX)) break;
        if (n > partNumber && !signatures.has(n)) batch.push(n);
      }
      const call = this.transport.sign(session.session_id, batch);
      let wanted: Promise<SignedPart> | null = null;
      for (const n of batch) {
        const promise = call.then((parts) => {
          const part = parts.find((p) => p.part_number === n);
          if (!part) throw new UploadFailure(uploadMessages.failed);
          return part;
        });
        // Parts signed ahead may never be awaited (the upload stopped first).
        promise.catch(() => undefined);
        signatures.set(n, promise);
        wanted ??= promise;
      }
      return wanted ?? Promise.reject(new UploadFailure(uploadMessages.failed));
    };
    const sequential = session.mode === 'gcs-resumable' || session.mode === 'single';
    const queue = [...pending];
    const state = { anyPartDone: session.finished_parts.length > 0 };
    // One failing part stops its siblings; the first real failure is the one reported.
    const siblings = new AbortController();
    const stop = () => siblings.abort();
    signal.addEventListener('abort', stop, { once: true });
    let firstFailure: unknown = null;
    const worker = async () => {
      for (;;) {
        const partNumber = queue.shift();
        if (partNumber === undefined) return;
        try {
          const etag = await this.sendPart(
            job,
            session,
            partNumber,
            signedPart,
            signatures,
            state,
            siblings.signal,
          );
          etags.set(partNumber, etag);
        } catch (error) {
          if (!isAbort(error)) firstFailure ??= error;
          queue.length = 0;
          siblings.abort();
          throw error;
        }
      }
    };
    const workers = Math.min(sequential ? 1 : UPLOAD_CONCURRENT_PARTS, Math.max(queue.length, 1));
    const results = await Promise.allSettled(Array.from({ length: workers }, worker));
    signal.removeEventListener('abort', stop);
    if (firstFailure !== null) throw firstFailure;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async sendPart(
    job: FileJob,
    session: UploadSession,
    partNumber: number,
    signedPart: (n: number) => Promise<SignedPart>,
    signatures: Map<number, Promise<SignedPart>>,
    state: { anyPartDone: boolean },
    signal: AbortSignal,
  ): Promise<string | null> {
    const file = job.local.file;
    const start = (partNumber - 1) * session.part_size;
    // Never the whole file in memory: each part is a slice the browser reads as it sends.
    const body =
      session.mode === 'single' ? file : file.slice(start, Math.min(file.size, start + session.part_size));
    for (let attempt = 0; ; attempt += 1) {
      signal.throwIfAborted();
      let response: PartResponse | null = null;
      let problem: unknown = null;
      try {
        const part = await signedPart(partNumber);
        response = await this.transport.put({
          url: part.url,
          headers: part.headers,
          body,
          signal,
          onProgress: (loaded) => {
            job.inFlight.set(partNumber, loaded);
            this.scheduleEmit();
          },
        });
      } catch (error) {
        if (isAbort(error) || signal.aborted) throw error;
        problem = error;
      }
      job.inFlight.delete(partNumber);
      const accepted =
        response !== null &&
        ((response.status >= 200 && response.status < 300) ||
          (session.mode === 'gcs-resumable' && response.status === 308));
      if (response && accepted) {
        if (session.mode === 's3-multipart' && !response.etag) {
          // The store answered but the page may not read ETag: the bucket's CORS lacks ExposeHeaders.
          throw new UploadFailure(uploadMessages.network, true);
        }
        state.anyPartDone = true;
        job.doneBytes += body.size;
        this.clearWarning(job);
        this.scheduleEmit();
        return response.etag;
      }
      if (response?.status === 0 && !state.anyPartDone) {
        // The very first request to this store got no readable answer: retrying will not fix CORS.
        throw new UploadFailure(uploadMessages.network, true);
      }
      const message = response?.status === 0 ? uploadMessages.network : failureText(problem);
      if (attempt >= UPLOAD_RETRIES) throw new UploadFailure(message);
      this.warn(job, message);
      // A URL may have expired or been refused: sign this part again for the next attempt.
      signatures.delete(partNumber);
      await sleep(this.retryDelayMs(attempt + 1), signal);
    }
  }

  private warn(job: FileJob, message: string) {
    if (job.view.warning !== null) return;
    job.view.warning = message;
    this.emitNow();
    job.warningTimer = setTimeout(() => {
      job.warningTimer = null;
      if (job.view.warning === null || !job.controller) return;
      job.failure = new UploadFailure(job.view.warning);
      job.controller.abort();
    }, UPLOAD_WARNING_TO_ERROR_MS);
  }

  private clearWarning(job: FileJob) {
    if (job.warningTimer) clearTimeout(job.warningTimer);
    job.warningTimer = null;
    job.view.warning = null;
  }

  private settleDirectory(job: FileJob) {
    const id = job.view.directoryId;
    const directory = id ? this.directories.get(id) : undefined;
    if (job.active) {
      job.active = false;
      if (directory) directory.active -= 1;
    }
    // Counted rather than searched: a folder of thousands settles in constant time per file.
    if (!directory || directory.active > 0 || directory.view.status !== DIRECTORY_UPLOAD_STATUS.running)
      return;
    const members = [...this.jobs.values()].filter((j) => j.view.directoryId === id);
    const view = directory.view;
    view.status = directory.stopped ? DIRECTORY_UPLOAD_STATUS.stop : DIRECTORY_UPLOAD_STATUS.done;
    if (members.length === 0) {
      this.fire({ type: 'directory-complete', directory: { ...view } });
      this.directories.delete(view.id);
    } else if (!directory.stopped) {
      const failed = members.filter((j) => j.view.error !== uploadMessages.cancelled).length;
      if (failed > 0) this.fire({ type: 'directory-failed', directory: { ...view }, failed });
    }
    if (view.completedCount > directory.reportedCount) void this.reportDirectory(directory);
  }

  private fileEntry(job: FileJob): UploadReportBody['s3_direct']['files'][number] {
    return {
      name: job.view.key,
      bucket_name: job.target.bucketName,
      cloud_account_id: job.target.cloudAccountId,
      contentType: job.local.file.type || null,
      size: job.view.size,
      duration: this.now() - job.startedAt,
    };
  }

  private async reportFile(job: FileJob) {
    await this.report(job.target, this.fileEntry(job));
  }

  /** The loose small files finished since the last call, one report per accelerator setting. */
  private flushLooseReports() {
    const pending = this.looseReports.splice(0);
    for (const accelerated of [false, true]) {
      const files = pending.filter((r) => r.target.s3Acceleration === accelerated).map((r) => r.entry);
      if (files.length === 0) continue;
      const body: UploadReportBody = {
        s3_direct: { direction: 'upload', s3Acceleration: accelerated, files },
      };
      void this.transport.report(body).catch(() => undefined);
    }
  }

  private async reportDirectory(directory: DirectoryJob) {
    const fileCount = directory.view.completedCount - directory.reportedCount;
    const size = directory.completedBytes - directory.reportedBytes;
    directory.reportedCount = directory.view.completedCount;
    directory.reportedBytes = directory.completedBytes;
    await this.report(directory.target, {
      is_directory: true,
      name: directory.view.name,
      bucket_name: directory.target.bucketName,
      cloud_account_id: directory.target.cloudAccountId,
      size,
      file_count: fileCount,
      duration: this.now() - directory.startedAt,
    });
  }

  private async report(target: UploadTarget, entry: UploadReportBody['s3_direct']['files'][number]) {
    const body: UploadReportBody = {
      s3_direct: { direction: 'upload', s3Acceleration: target.s3Acceleration, files: [entry] },
    };
    // The upload itself succeeded; a lost report must not turn it into a failure.
    await this.transport.report(body).catch(() => undefined);
  }

  private refresh(job: FileJob) {
    const inFlight = [...job.inFlight.values()].reduce((sum, n) => sum + n, 0);
    const sent = Math.min(job.view.size, job.doneBytes + inFlight);
    job.rate.record(this.now(), sent);
    const percent = job.view.size > 0 ? Math.floor((sent / job.view.size) * 100) : 0;
    job.view.percent = Math.min(99, Math.max(1, percent));
    job.view.speed = job.rate.bytesPerSecond();
    job.view.eta = job.rate.secondsLeft(job.view.size - sent);
  }

  /** Progress is shown at most once per UPLOAD_PROGRESS_INTERVAL_MS (spec 001 §9). */
  private scheduleEmit() {
    if (this.emitTimer) return;
    const wait = this.lastEmit + UPLOAD_PROGRESS_INTERVAL_MS - this.now();
    if (wait <= 0) this.emitNow();
    else this.emitTimer = setTimeout(() => this.emitNow(), wait);
  }

  private emitNow() {
    if (this.emitTimer) clearTimeout(this.emitTimer);
    this.emitTimer = null;
    const now = this.now();
    this.lastEmit = now;
    let failed = 0;
    let sentOfOpen = 0;
    let bytesOfFailed = 0;
    const files: UploadFileView[] = [];
    for (const job of this.jobs.values()) {
      if (job.view.status === 'uploading') {
        if (job.small) this.refreshSmall(job);
        else this.refresh(job);
      }
      if (job.view.status === 'exception') {
        failed += 1;
        bytesOfFailed += job.view.size;
      } else sentOfOpen += this.sentOf(job);
      files.push({ ...job.view });
    }
    const run = this.run_;
    const bytesDone = run.bytesDone + sentOfOpen;
    run.rate.record(now, bytesDone);
    this.current = {
      files,
      directories: [...this.directories.values()].map((d) => ({ ...d.view })),
      done: run.doneList.slice(),
      summary: {
        total: run.total,
        done: run.done,
        failed,
        bytesTotal: run.bytesTotal,
        bytesDone,
        speed: run.rate.bytesPerSecond(),
        eta: this.busy() ? run.rate.secondsLeft(run.bytesTotal - bytesOfFailed - bytesDone) : null,
        hiddenSkipped: run.hiddenSkipped,
      },
    };
    for (const listener of this.listeners) listener(this.current);
  }

  private sentOf(job: FileJob): number {
    const inFlight = [...job.inFlight.values()].reduce((sum, n) => sum + n, 0);
    return Math.min(job.view.size, job.doneBytes + inFlight);
  }

  /** A one-PUT file: its percent only (a rate over a few milliseconds would say nothing). */
  private refreshSmall(job: FileJob) {
    const sent = this.sentOf(job);
    const percent = job.view.size > 0 ? Math.floor((sent / job.view.size) * 100) : 0;
    job.view.percent = Math.min(99, Math.max(1, percent));
  }

  private fire(event: UploadEvent) {
    for (const listener of this.eventListeners) listener(event);
  }
}

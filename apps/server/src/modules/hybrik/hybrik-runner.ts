import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  hybrikMessages,
  parseS3Url,
  planHybrikJob,
  type HybrikElement,
  type HybrikJobPlan,
} from '@cumulo/contract';
import { StorageError, type ObjectStore } from '@cumulo/storage';
import type { Logger } from '../../logger.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { encode, probe, type FfmpegProgress } from '../encoding/ffmpeg.ts';
import { openSourceRelay, type SourceRelay } from '../encoding/source-relay.ts';
import type { HybrikJobRow, HybrikRepo } from './hybrik.repo.ts';
import { contentTypeOf, fileName, targetArgs, targetFileName } from './hybrik-targets.ts';

interface HybrikRunnerOptions {
  /** How often a running job writes its progress at most. */
  pollMs: number;
}

/** A job that must stop, with the reason the user sees. */
class JobFailed extends Error {}

/** A file an element made, in the job's temp folder, and its name relative to the element's output folder. */
interface LocalFile {
  local: string;
  name: string;
}

/** An object the job wrote, to list as an output, or to delete when the job fails. */
interface WrittenObject {
  store: ObjectStore;
  bucket: string;
  key: string;
}

/** Every file under `dir`, relative to it, with '/' separators. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

const folderOf = (key: string) => (key === '' || key.endsWith('/') ? key : `${key}/`);

/**
 * The `hybrik.job` handler (hybrik README "How a job runs"): the element graph in order — the source through a
 * signed URL, each transcode one ffmpeg run with one output per target, each copy writing its input's files again —
 * every output uploaded through the account's ObjectStore. Safe to run twice: an ended job returns at once, a rerun
 * of an active one (its worker died) starts over and writes the same keys.
 */
export class HybrikRunner {
  constructor(
    private readonly repo: HybrikRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly log: Logger,
    private readonly options: HybrikRunnerOptions,
  ) {}

  async run(jobId: string): Promise<void> {
    const job = await this.repo.start(jobId);
    if (!job) return;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-hybrik-'));
    const written: WrittenObject[] = [];
    try {
      await this.#work(job, dir, written);
      // Completed only while active: a job cancelled meanwhile keeps its cancel and loses what it wrote.
      if (!(await this.repo.complete(job.id, written.map(urlOf)))) await this.#discard(job, written);
    } catch (error) {
      const reason = error instanceof JobFailed || error instanceof StorageError ? error.message : null;
      if (reason === null) throw error;
      await this.#discard(job, written);
      await this.repo.fail(job.id, reason, []);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  async #work(job: HybrikJobRow, dir: string, written: WrittenObject[]): Promise<void> {
    const planned = planHybrikJob(job.job);
    if ('error' in planned) throw new JobFailed(planned.error);
    const plan = planned.plan;
    const sourceAccount = await this.accounts.find(job.organizationId, job.sourceCloudAccountId);
    const outputAccount = await this.accounts.find(job.organizationId, job.outputCloudAccountId);
    const gone = hybrikMessages.sourceGone(job.sourcePath, hybrikMessages.objectMissing);
    if (!sourceAccount || !outputAccount) throw new JobFailed(gone);
    const source = await this.stores.storeFor(sourceAccount);
    const output = await this.stores.storeFor(outputAccount);
    const storeOf = (bucket: string) => {
      if (bucket === job.outputBucket) return output;
      if (bucket === job.sourceBucket) return source;
      throw new JobFailed(hybrikMessages.unknownBucket(bucket));
    };
    const sourceInfo = await this.#stat(source, job);
    if (!sourceInfo) throw new JobFailed(gone);
    // ffprobe and ffmpeg read the source through the encoding module's loopback relay, open for this job only.
    const relay = await openSourceRelay(source, job.sourceBucket, job.sourcePath, sourceInfo.size);
    try {
      await this.#elements(job, plan, relay, storeOf, source, sourceInfo.size, dir, written);
    } finally {
      await relay.close();
    }
  }

  async #elements(
    job: HybrikJobRow,
    plan: HybrikJobPlan,
    relay: SourceRelay,
    storeOf: (bucket: string) => ObjectStore,
    source: ObjectStore,
    sourceSize: number,
    dir: string,
    written: WrittenObject[],
  ): Promise<void> {
    const media = await probe(relay.url);
    if (!media && relay.lastError()) {
      throw new JobFailed(hybrikMessages.sourceGone(job.sourcePath, relay.lastError() ?? ''));
    }
    if (!media) throw new JobFailed(hybrikMessages.notMedia(job.sourcePath));

    const made = new Map<string, LocalFile[] | 'source'>();
    const transcodes = plan.elements.filter((item) => item.kind === 'transcode').length;
    let transcoded = 0;
    for (const element of plan.elements) {
      if (element.kind === 'source') {
        made.set(element.uid, 'source');
      } else if (element.kind === 'transcode') {
        const folder = this.#folder(element.location ?? plan.definitions.destination, element.uid);
        const elementDir = path.join(dir, `${made.size}`);
        await fs.mkdir(elementDir, { recursive: true });
        const names = element.targets.map((target) => targetFileName(target, job.sourcePath));
        for (const name of names) {
          await fs.mkdir(path.dirname(path.join(elementDir, name)), { recursive: true });
        }
        const args = element.targets.flatMap((target, index) =>
          targetArgs(target, elementDir, names[index] ?? ''),
        );
        await this.#ffmpeg(
          job,
          relay,
          args,
          media.duration,
          (percent) => Math.round(((transcoded + percent / 100) / transcodes) * 950) / 10,
          written,
        );
        transcoded += 1;
        const files = (await filesUnder(elementDir)).map((name) => ({
          local: path.join(elementDir, name),
          name,
        }));
        made.set(element.uid, files);
        const store = storeOf(folder.bucket);
        for (const file of files) {
          await this.#upload(job, store, folder.bucket, `${folder.key}${file.name}`, file.local, written);
        }
      } else {
        await this.#copy(job, plan, element, made, storeOf, source, sourceSize, written);
      }
    }
  }

  async #copy(
    job: HybrikJobRow,
    plan: HybrikJobPlan,
    element: Extract<HybrikElement, { kind: 'copy' }>,
    made: Map<string, LocalFile[] | 'source'>,
    storeOf: (bucket: string) => ObjectStore,
    source: ObjectStore,
    sourceSize: number,
    written: WrittenObject[],
  ) {
    const folder = this.#folder(element.path, element.uid);
    const store = storeOf(folder.bucket);
    for (const input of plan.inputs[element.uid] ?? []) {
      const files = made.get(input);
      if (files === 'source') {
        const extension = path.extname(job.sourcePath).slice(1);
        const name = element.filePattern
          ? fileName(element.filePattern, job.sourcePath, extension)
          : (job.sourcePath.split('/').at(-1) ?? 'source');
        const key = `${folder.key}${name}`;
        if (store === source) {
          await source.copy(
            { bucket: job.sourceBucket, key: job.sourcePath },
            { bucket: folder.bucket, key },
          );
        } else {
          const body = await source.read(job.sourceBucket, job.sourcePath);
          await store.write(folder.bucket, key, body, { size: sourceSize, contentType: contentTypeOf(key) });
        }
        written.push({ store, bucket: folder.bucket, key });
      } else {
        for (const file of files ?? []) {
          // A pattern names a single file; a transcode's several files (HLS segments) keep their own names.
          const name =
            element.filePattern && files?.length === 1
              ? fileName(element.filePattern, job.sourcePath, path.extname(file.name).slice(1))
              : file.name;
          await this.#upload(job, store, folder.bucket, `${folder.key}${name}`, file.local, written);
        }
      }
    }
  }

  /** An element's output folder from its `s3://bucket/folder` URL. */
  #folder(url: string | undefined, uid: string): { bucket: string; key: string } {
    if (url === undefined) throw new JobFailed(hybrikMessages.noLocation(uid));
    const parsed = parseS3Url(url);
    if (!parsed) throw new JobFailed(hybrikMessages.badUrl(url));
    return { bucket: parsed.bucket, key: folderOf(parsed.key) };
  }

  async #stat(source: ObjectStore, job: HybrikJobRow) {
    try {
      return await source.stat(job.sourceBucket, job.sourcePath);
    } catch (error) {
      if (error instanceof StorageError) {
        throw new JobFailed(hybrikMessages.sourceGone(job.sourcePath, error.message));
      }
      throw error;
    }
  }

  async #upload(
    job: HybrikJobRow,
    store: ObjectStore,
    bucket: string,
    key: string,
    local: string,
    written: WrittenObject[],
  ) {
    if ((await this.repo.statusOf(job.id)) !== 'active') throw new JobFailed(hybrikMessages.cancelledError);
    const { size } = await fs.stat(local);
    // A stream: the store writes large outputs in parts, so no output is held in memory whole.
    await store.write(bucket, key, createReadStream(local), { size, contentType: contentTypeOf(key) });
    written.push({ store, bucket, key });
  }

  /** Runs ffmpeg, writing the job's progress at most every `pollMs`. */
  async #ffmpeg(
    job: HybrikJobRow,
    relay: SourceRelay,
    args: string[],
    duration: number,
    overall: (percent: number) => number,
    written: WrittenObject[],
  ): Promise<void> {
    let latest: FfmpegProgress | null = null;
    let saved = -1;
    const run = encode(relay.url, args, duration, (progress) => (latest = progress));
    let busy = false;
    // Each tick writes new progress, which only an active row takes, or reads the status: a cancel kills ffmpeg.
    const tick = async () => {
      const percent = latest ? overall(latest.percent) : null;
      const active =
        percent !== null && percent !== saved
          ? await this.repo.progress(job.id, percent, written.map(urlOf))
          : (await this.repo.statusOf(job.id)) === 'active';
      if (!active) run.kill();
      else if (percent !== null) saved = percent;
    };
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void tick()
        .catch((error: unknown) =>
          this.log.warn({ err: error, jobId: job.id }, 'hybrik progress not written'),
        )
        .finally(() => (busy = false));
    }, this.options.pollMs);
    try {
      const result = await run.done;
      if (result.outcome === 'killed') throw new JobFailed(hybrikMessages.cancelledError);
      if (result.outcome === 'failed') {
        // The store's words when a read failed (the source went mid-job); else ffmpeg's, which names its input by
        // the relay's address: the user knows the path.
        const reason = relay.lastError() ?? result.reason.replace(/\bhttps?:\/\/\S+/g, job.sourcePath);
        throw new JobFailed(hybrikMessages.sourceGone(job.sourcePath, reason));
      }
    } finally {
      clearInterval(timer);
    }
  }

  /** Deletes what a failed job had written, so a failure leaves no partial outputs. */
  async #discard(job: HybrikJobRow, written: WrittenObject[]) {
    for (const object of written) {
      try {
        await object.store.deleteMany(object.bucket, [object.key]);
      } catch (error) {
        this.log.warn({ err: error, jobId: job.id }, 'partial hybrik output not deleted');
      }
    }
  }
}

const urlOf = (object: WrittenObject) => `s3://${object.bucket}/${object.key}`;

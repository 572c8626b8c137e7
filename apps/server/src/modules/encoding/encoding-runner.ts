import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mediaMessages } from '@cumulo/contract';
import { StorageError, type ObjectStore } from '@cumulo/storage';
import type { Logger } from '../../logger.ts';
import type { Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import type { IndexableObject, SearchIndex } from '../search/search-index.ts';
import type { EncodingJobRow, EncodingRepo } from './encoding.repo.ts';
import { encodingQuotaRef, usedBytesOf } from './encoding.service.ts';
import { encode, probe, type FfmpegProgress } from './ffmpeg.ts';
import { findPreset } from './presets.ts';
import { openSourceRelay, type SourceRelay } from './source-relay.ts';

interface RunnerOptions {
  /** How often a running job looks at its row for a cancel, and writes its progress at most. */
  pollMs: number;
}

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.mp3': 'audio/mpeg',
  '.jpg': 'image/jpeg',
  '.vtt': 'text/vtt',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
};

/** The source's file name without its extension: what output names start with. */
function sourceBaseName(key: string): string {
  const name = key.split('/').filter(Boolean).at(-1) ?? 'output';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** Every file under `dir`, relative to it, with '/' separators. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** What a job has written so far, to delete when it does not finish. */
interface Written {
  destination: ObjectStore | null;
  keys: string[];
}

/** A job that must stop where it is: the row is no longer Processing (a cancel), or the job failed in words. */
class JobEnded extends Error {
  constructor(readonly reason: string | null) {
    super(reason ?? 'cancelled');
  }
}

/**
 * The `encoding.job` handler (encoding README "How a job runs"): probe, ffmpeg into a temp folder, upload, Finished.
 * Safe to run twice: a job that ended returns at once, and a rerun of a Processing job (its worker died) starts it
 * over, writing the same keys.
 */
export class EncodingRunner {
  constructor(
    private readonly repo: EncodingRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly entitlements: Entitlements,
    private readonly publishJob: (row: EncodingJobRow) => Promise<void>,
    private readonly log: Logger,
    private readonly options: RunnerOptions,
    /** The media-search index: a finished job's outputs enter it (search README "Fresh"). */
    private readonly searchIndex?: Pick<SearchIndex, 'upsertObjects'>,
  ) {}

  async run(jobId: string): Promise<void> {
    const job = await this.repo.start(jobId);
    if (!job) return;
    await this.publishJob(job);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cumulo-encode-'));
    const written: Written = { destination: null, keys: [] };
    try {
      await this.#work(job, dir, written);
    } catch (error) {
      await this.#discard(job, written);
      if (error instanceof JobEnded) {
        if (error.reason !== null) await this.#publish(await this.repo.fail(job.id, error.reason));
      } else if (error instanceof StorageError) {
        await this.#publish(
          await this.repo.fail(job.id, mediaMessages.sourceGone(job.sourcePath, error.message)),
        );
      } else {
        throw error;
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
    await this.#settle(job.id);
  }

  /**
   * Ends a live job whose queue job will never run again (the sweep: its worker died on every try) with `reason`,
   * and settles its quota. A job that ended meanwhile stays as it is.
   */
  async abandon(jobId: string, reason: string): Promise<void> {
    await this.#publish(await this.repo.fail(jobId, reason));
    await this.#settle(jobId);
  }

  /** Whatever ended the job (it may have been a cancel the API settled already), its quota is settled once. */
  async #settle(jobId: string) {
    const ended = await this.repo.findById(jobId);
    if (ended && ended.status !== 'Processing' && ended.status !== 'New') {
      await this.entitlements.settle(
        ended.organizationId,
        'encoding',
        encodingQuotaRef(ended.id),
        usedBytesOf(ended),
      );
    }
  }

  async #work(job: EncodingJobRow, dir: string, written: Written): Promise<void> {
    const preset = findPreset(job.category, job.preset);
    if (!preset) throw new JobEnded(mediaMessages.unknownPreset(job.category, job.preset));
    const sourceAccount = await this.accounts.find(job.organizationId, job.sourceCloudAccountId);
    const destinationAccount = await this.accounts.find(job.organizationId, job.destinationCloudAccountId);
    if (!sourceAccount || !destinationAccount) {
      throw new JobEnded(mediaMessages.sourceGone(job.sourcePath, mediaMessages.objectMissing));
    }
    const source = await this.stores.storeFor(sourceAccount);
    const info = await source.stat(job.sourceBucket, job.sourcePath);
    if (!info) throw new JobEnded(mediaMessages.sourceGone(job.sourcePath, mediaMessages.objectMissing));
    // ffprobe and ffmpeg read the source through a loopback relay that lives as long as this job (source-relay.ts).
    const relay = await openSourceRelay(source, job.sourceBucket, job.sourcePath, info.size);
    try {
      const media = await probe(relay.url);
      if (!media && relay.lastError()) {
        throw new JobEnded(mediaMessages.sourceGone(job.sourcePath, relay.lastError() ?? ''));
      }
      const readable = media && (preset.needs === 'video' ? media.hasVideo : media.hasAudio);
      if (!media || !readable) throw new JobEnded(mediaMessages.notMedia(job.sourcePath));

      const target = { dir, base: `${sourceBaseName(job.sourcePath)}-${preset.slug}` };
      // HLS writes its playlists and segments in a folder of this name.
      await fs.mkdir(path.join(dir, target.base), { recursive: true });
      await this.#ffmpeg(job, relay, preset.args(media, target), media.duration);
      for (const extra of preset.extras?.(media, target) ?? []) {
        await fs.writeFile(path.join(dir, extra.name), extra.body);
      }
    } finally {
      await relay.close();
    }

    const destination = await this.stores.storeFor(destinationAccount);
    written.destination = destination;
    const outputs: IndexableObject[] = [];
    for (const file of await filesUnder(dir)) {
      if ((await this.repo.statusOf(job.id)) !== 'Processing') throw new JobEnded(null);
      const key = `${job.destinationPath}${file}`;
      const local = path.join(dir, file);
      const { size } = await fs.stat(local);
      // A stream: the store writes it in parts when it is large, so no output is ever held in memory whole. A
      // refusal here is the destination's, not the source's: the job fails naming where it could not write.
      try {
        await destination.write(job.destinationBucket, key, createReadStream(local), {
          size,
          contentType: CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
        });
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        throw new JobEnded(mediaMessages.outputNotWritten(`${job.destinationBucket}/${key}`, error.message));
      }
      written.keys.push(key);
      outputs.push({
        key,
        size,
        lastModified: new Date(),
        contentType: CONTENT_TYPES[path.extname(file)] ?? null,
      });
    }
    const finished = await this.repo.finish(job.id, written.keys);
    if (!finished) throw new JobEnded(null);
    await this.searchIndex?.upsertObjects(
      job.organizationId,
      job.destinationCloudAccountId,
      job.destinationBucket,
      outputs,
    );
    await this.publishJob(finished);
  }

  /** Runs ffmpeg, writing progress at most every `pollMs` and killing it once the row says it was cancelled. */
  async #ffmpeg(job: EncodingJobRow, relay: SourceRelay, args: string[], duration: number): Promise<void> {
    let latest: FfmpegProgress | null = null;
    let written = -1;
    const run = encode(relay.url, args, duration, (progress) => (latest = progress));
    let cancelled = false;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void this.#tick(job, latest, written)
        .then((state) => {
          if (state.cancelled) {
            cancelled = true;
            run.kill();
          }
          written = state.written;
        })
        .catch((error: unknown) =>
          this.log.warn({ err: error, jobId: job.id }, 'encoding progress not written'),
        )
        .finally(() => (busy = false));
    }, this.options.pollMs);
    try {
      const result = await run.done;
      if (cancelled || result.outcome === 'killed') throw new JobEnded(null);
      if (result.outcome === 'failed') {
        // The store's words when a read failed (the source was deleted mid-job); otherwise ffmpeg's, where it
        // names its input by the relay's address, which means nothing to the user: the path does.
        const reason = relay.lastError() ?? result.reason.replace(/\b(?:https?):\/\/\S+/g, job.sourcePath);
        throw new JobEnded(mediaMessages.sourceGone(job.sourcePath, reason));
      }
    } finally {
      clearInterval(timer);
    }
  }

  /** One look at the row: writes new progress (which fails once the job is no longer Processing). */
  async #tick(job: EncodingJobRow, latest: FfmpegProgress | null, written: number) {
    if (latest && latest.percent !== written) {
      if (!(await this.repo.progress(job.id, latest.percent, latest.timeLeft))) {
        return { cancelled: true, written };
      }
      const row = await this.repo.findById(job.id);
      if (row) await this.publishJob(row);
      return { cancelled: false, written: latest.percent };
    }
    return { cancelled: (await this.repo.statusOf(job.id)) !== 'Processing', written };
  }

  async #publish(row: EncodingJobRow | undefined) {
    if (row) await this.publishJob(row);
  }

  /** Deletes the outputs a job that did not finish had written, so a cancel or failure leaves nothing behind. */
  async #discard(job: EncodingJobRow, written: Written) {
    if (!written.destination || written.keys.length === 0) return;
    try {
      await written.destination.deleteMany(job.destinationBucket, written.keys);
    } catch (error) {
      this.log.warn(
        { err: error, jobId: job.id, keys: written.keys.length },
        'partial encoding outputs not deleted',
      );
    }
  }
}

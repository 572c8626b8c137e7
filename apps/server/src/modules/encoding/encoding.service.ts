import { randomUUID } from 'node:crypto';
import {
  ENCODING_EVENTS,
  ENCODING_FINISHED_KEPT,
  mediaMessages,
  type EncodeBody,
  type EncodingJob,
  type EncodingPresets,
} from '@cumulo/contract';
import { StorageError } from '@cumulo/storage';
import { authorize, requireService, type Actor } from '../../authz/policy.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { BusMessage } from '../../realtime/events.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import type { Entitlements } from '../billing/entitlements.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import {
  LIVE_STATUSES,
  type EncodingJobRow,
  type EncodingRepo,
  type NewEncodingJob,
} from './encoding.repo.ts';
import { toEncodingJob } from './encoding.views.ts';
import { findPreset, presetList } from './presets.ts';

/** Who encodes: a signed-in member (a Principal fits). */
interface EncodingCaller extends Actor {
  organizationId: string;
}

/** Queues the worker job of one encoding job (ids only; grouped by organisation for fairness). */
export type EnqueueEncoding = (job: { id: string; organizationId: string }) => Promise<void>;

/** The quota reservation of one job: its source's bytes, settled when it ends. */
export const encodingQuotaRef = (jobId: string) => `encoding:${jobId}`;

/** What an ended job used of the encoding quota: its source when it finished, nothing otherwise. */
export const usedBytesOf = (row: EncodingJobRow) => (row.status === 'Finished' ? row.sourceSize : 0);

const jobResource = (row: EncodingJobRow) => `${row.sourceBucket}/${row.sourcePath} (${row.preset})`;

/** A destination folder: no leading '/', one trailing '/' unless it is the bucket's top. */
export function destinationFolder(path: string): string {
  const trimmed = path.replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

/** Encoding with presets (spec 001 §2 Encoding page, §4 "Encoding job"): asking, listing, cancelling, removing. */
export class EncodingService {
  constructor(
    private readonly repo: EncodingRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly entitlements: Entitlements,
    private readonly enqueue: EnqueueEncoding,
    private readonly publish: (message: BusMessage) => Promise<void>,
  ) {}

  presets(caller: EncodingCaller): EncodingPresets {
    requireService(caller, 'encoding');
    return presetList();
  }

  /** Every item is checked before anything is queued: one bad item refuses the whole request. */
  async encode(caller: EncodingCaller, body: EncodeBody): Promise<{ message: string; jobs: EncodingJob[] }> {
    authorize(caller, 'encoding.start');
    const accounts = new Map<string, CloudAccountRow>();
    const account = async (id: string) => {
      const known = accounts.get(id) ?? (await this.accounts.find(caller.organizationId, id));
      if (!known) throw notFound();
      accounts.set(id, known);
      return known;
    };
    const buckets = new Set<string>();
    const planned: NewEncodingJob[] = [];
    for (const item of body) {
      const sourceAccount = await account(item.source.cloud_account_id);
      for (const choice of item.presets) {
        if (!findPreset(choice.category, choice.preset)) {
          throw badRequest(mediaMessages.unknownPreset(choice.category, choice.preset));
        }
        const destination = await account(choice.destination.cloud_account_id);
        const bucketKey = `${destination.id}/${choice.destination.bucket_name}`;
        if (!buckets.has(bucketKey)) {
          const store = await this.stores.storeFor(destination);
          if (!(await store.headBucket(choice.destination.bucket_name))) throw notFound();
          buckets.add(bucketKey);
        }
      }
      const size = await this.#sourceSize(sourceAccount, item.source.bucket_name, item.source.path);
      for (const choice of item.presets) {
        planned.push({
          id: randomUUID(),
          organizationId: caller.organizationId,
          userId: caller.userId,
          sourceCloudAccountId: sourceAccount.id,
          sourceBucket: item.source.bucket_name,
          sourcePath: item.source.path,
          sourceSize: size,
          destinationCloudAccountId: choice.destination.cloud_account_id,
          destinationBucket: choice.destination.bucket_name,
          destinationPath: destinationFolder(choice.destination.path),
          category: choice.category,
          preset: choice.preset,
        });
      }
    }
    await this.#reserve(caller.organizationId, planned);
    const rows = await this.repo.transaction(async (tx) => {
      const created = await tx.insert(planned);
      await recordAudit(
        tx.orm,
        caller,
        created.map((row) => ({
          entity: 'Encoding job' as const,
          type: 'Added' as const,
          resource: jobResource(row),
          resourceId: row.id,
          changes: changesOf(null, {
            source: `${row.sourceBucket}/${row.sourcePath}`,
            preset: `${row.category} / ${row.preset}`,
            destination: `${row.destinationBucket}/${row.destinationPath}`,
          }),
        })),
      );
      return created;
    });
    for (const row of rows) await this.enqueue({ id: row.id, organizationId: row.organizationId });
    return { message: mediaMessages.queued, jobs: rows.map(toEncodingJob) };
  }

  async list(caller: EncodingCaller): Promise<EncodingJob[]> {
    requireService(caller, 'encoding');
    return (await this.repo.list(caller.organizationId, ENCODING_FINISHED_KEPT)).map(toEncodingJob);
  }

  async find(caller: EncodingCaller, id: string): Promise<EncodingJob> {
    requireService(caller, 'encoding');
    return toEncodingJob(await this.#job(caller, id));
  }

  /** New or Processing → Stopped at once; a running job's worker sees it, kills ffmpeg and deletes what it wrote. */
  async cancel(caller: EncodingCaller, id: string): Promise<{ message: string }> {
    const job = await this.#job(caller, id);
    authorize(caller, 'encoding.manage', { createdBy: job.userId });
    if (!LIVE_STATUSES.includes(job.status)) throw badRequest(mediaMessages.notCancellable);
    const stopped = await this.repo.transaction(async (tx) => {
      const row = await tx.stop(caller.organizationId, id);
      if (!row) return undefined;
      await recordAudit(tx.orm, caller, {
        entity: 'Encoding job',
        type: 'Modified',
        resource: jobResource(row),
        resourceId: row.id,
        changes: changesOf({ status: job.status }, { status: row.status }),
      });
      return row;
    });
    if (!stopped) throw badRequest(mediaMessages.notCancellable);
    await this.entitlements.settle(stopped.organizationId, 'encoding', encodingQuotaRef(stopped.id), 0);
    await this.publishJob(stopped);
    return { message: mediaMessages.cancelled };
  }

  async remove(caller: EncodingCaller, id: string): Promise<{ message: string }> {
    const job = await this.#job(caller, id);
    authorize(caller, 'encoding.manage', { createdBy: job.userId });
    const removed = await this.repo.transaction(async (tx) => {
      if (!(await tx.remove(caller.organizationId, id))) return false;
      await recordAudit(tx.orm, caller, {
        entity: 'Encoding job',
        type: 'Deleted',
        resource: jobResource(job),
        resourceId: job.id,
        changes: changesOf({ status: job.status, outputs: job.outputs.length }, null),
      });
      return true;
    });
    if (!removed) throw badRequest(mediaMessages.notRemovable);
    return { message: mediaMessages.done };
  }

  async publishJob(row: EncodingJobRow): Promise<void> {
    await this.publish({
      organizationId: row.organizationId,
      service: 'encoding',
      type: ENCODING_EVENTS.job,
      data: toEncodingJob(row),
    });
  }

  /** The source's size; 404 (in words) when it is not there, 400 with the provider's words when it cannot be read. */
  async #sourceSize(account: CloudAccountRow, bucket: string, path: string): Promise<number> {
    const store = await this.stores.storeFor(account);
    try {
      const info = await store.stat(bucket, path);
      if (!info) throw notFound(mediaMessages.sourceGone(path, mediaMessages.objectMissing));
      return info.size;
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      if (error.code === 'BucketNotFound' || error.code === 'ObjectNotFound') throw notFound();
      throw badRequest(mediaMessages.sourceGone(path, error.message));
    }
  }

  /**
   * Holds each job's source bytes on the encoding quota (source bytes × presets in all). A refusal releases what
   * this request had held, so a refused request leaves the quota as it found it.
   */
  async #reserve(organizationId: string, planned: NewEncodingJob[]) {
    const held: string[] = [];
    try {
      for (const job of planned) {
        const ref = encodingQuotaRef(job.id);
        await this.entitlements.reserve(organizationId, 'encoding', ref, job.sourceSize);
        held.push(ref);
      }
    } catch (error) {
      for (const ref of held) await this.entitlements.settle(organizationId, 'encoding', ref, 0);
      throw error;
    }
  }

  async #job(caller: EncodingCaller, id: string): Promise<EncodingJobRow> {
    const job = await this.repo.find(caller.organizationId, id);
    if (!job) throw notFound();
    return job;
  }
}

import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  BATCH_STATUS,
  BATCH_STATUS_LABEL,
  TRANSFER_EVENTS,
  TRANSFER_TYPE,
  UNLIMITED,
  transferMessages,
  type MigrationFile,
  type MigrationProgress,
  type TransferBatch,
  type TransferList,
  type TransferProviderFilter,
  type TransferStarted,
} from '@cumulo/contract';
import { authorize, requireService, requireWithin, type Actor } from '../../authz/policy.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { BusMessage } from '../../realtime/events.ts';
import type { InventoryJob } from '../cloud-accounts/cloud-accounts.jobs.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { SearchIndex } from '../search/search-index.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { destinationFolder } from './engine/keys.ts';
import {
  refuseOverlap,
  requireBuckets,
  requireChargeConfirmed,
  requireSomethingUnder,
} from './transfer-guards.ts';
import type { TransferQuota } from './transfer-quota.ts';
import type {
  BatchProviderFilter,
  BatchRow,
  BatchView,
  ChangedItem,
  TransfersRepo,
} from './transfers.repo.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import { toMigrationFile, toMigrationProgress, toTransferBatch } from './transfers.views.ts';

/** Who starts or manages a transfer: a signed-in member (a Principal fits). */
interface TransferCaller extends Actor {
  organizationId: string;
}

/** A transfer to start; the c2c calls and sync jobs map their payloads onto it. */
export interface TransferRequest {
  sourceCloudAccountId: string;
  sourceBucket: string;
  /** A prefix ('' = whole bucket); keys keep their path relative to its folder. */
  sourcePath?: string;
  destinationCloudAccountId: string;
  destinationBucket: string;
  /** A folder ('' = bucket root). */
  destinationPath?: string;
  operation?: 'copy' | 'move';
  /** "Skip Existing Files". */
  skipExisting?: boolean;
  /** Only these keys and folders (ending in '/'), relative to the bucket; all under sourcePath when omitted. */
  files?: string[];
  transferType?: number;
  syncJobId?: string | null;
  /** Bytes per second the batch's workers may read at most (null/absent = unlimited; server-side copies are not paced). */
  bandwidthLimit?: number | null;
}

/** A bell notice about a batch. */
interface BatchFailureNotice {
  organizationId: string;
  title: string;
  description: string;
  status: 'error';
  link: string;
}

/** Queues the jobs that work on a batch (engine fan-out). */
type EnqueueBatch = (batchId: string) => Promise<void>;

const LIVE_FILES = 20;
/** Selected keys whose sizes are asked for before a transfer is accepted (the quota check); the rest wait for planning. */
const SIZED_SELECTION = 100;
const SIZE_CONCURRENCY = 8;
/** Items read, and objects written to the media-search index, per statement once a batch ended. */
const INDEX_PAGE = 1000;
const FINISHED = [BATCH_STATUS.completed, BATCH_STATUS.canceled, BATCH_STATUS.failed] as number[];

/** A transfer as its audit entries name it: from where to where. */
const transferResource = (batch: BatchRow) =>
  `${batch.sourceBucket}/${batch.sourcePath} → ${batch.destinationBucket}/${batch.destinationPath}`;

/** The Transfer Status calls' provider parameters as the repos take them. */
export const providerFilterOf = (query: TransferProviderFilter): BatchProviderFilter => ({
  sourceProvider: query.source_provider,
  destinationProvider: query.destination_provider,
});

const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** Cloud-to-cloud transfers: starting, listing, canceling and retrying batches (the engine copies them). */
export class TransfersService {
  constructor(
    private readonly repo: TransfersRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly stores: StoreRegistry,
    private readonly enqueue: EnqueueBatch,
    private readonly publish: (message: BusMessage) => Promise<void>,
    /** What follows a batch's end, once per batch (`onBatchFinished`; README "When a batch ends"). */
    private readonly onBatchFinished: (batchId: string) => Promise<void>,
    private readonly log: Logger,
    /** Counts a bucket's objects and bytes again (the cloud-accounts inventory, one bucket). */
    private readonly recount: (job: InventoryJob) => Promise<void>,
    /** Puts a notice in the organisation's bell (AlertsService.bell). */
    private readonly bell: (notice: BatchFailureNotice) => Promise<void> = async () => undefined,
    /** The c2c quota (README "Quota"). */
    private readonly quota?: TransferQuota,
    /** The media-search index, told what an ended batch copied and deleted. */
    private readonly searchIndex?: Pick<SearchIndex, 'recordCopies' | 'removeObjects'>,
  ) {}

  async start(caller: TransferCaller, request: TransferRequest): Promise<TransferStarted> {
    authorize(caller, request.operation === 'move' ? 'transfer.move' : 'transfer.copy');
    const [source, destination] = await Promise.all([
      this.#account(caller.organizationId, request.sourceCloudAccountId),
      this.#account(caller.organizationId, request.destinationCloudAccountId),
    ]);
    await requireChargeConfirmed(this.repo, caller.organizationId);
    const sourcePath = request.sourcePath ?? '';
    const destinationPath = destinationFolder(request.destinationPath ?? '');
    const files = request.files?.length ? request.files.map((file) => file.replace(/^\/+/, '')) : null;
    refuseOverlap(this.stores, source, destination, { ...request, sourcePath, destinationPath, files });
    await requireBuckets(
      this.stores,
      { account: source, bucket: request.sourceBucket },
      { account: destination, bucket: request.destinationBucket },
    );
    if (files === null && sourcePath !== '') {
      await requireSomethingUnder(this.stores, source, request.sourceBucket, sourcePath);
    }
    const sizeLimit = caller.access?.permissions.max_transfer_size ?? UNLIMITED;
    const knownSize =
      this.quota || sizeLimit !== UNLIMITED
        ? await this.#knownSize(
            source,
            request.sourceBucket,
            sourcePath,
            files,
            request.skipExisting === true,
          )
        : 0;
    // What is known now is refused now; the rest is planning's to count against the batch's `sizeLimit`.
    requireWithin(caller, 'max_transfer_size', knownSize);
    await this.quota?.refuseBeyond(caller.organizationId, knownSize);

    const batch = await this.repo.transaction(async (tx) => {
      const created = await tx.createBatch({
        organizationId: caller.organizationId,
        userId: caller.userId,
        transferType: request.transferType ?? TRANSFER_TYPE.migration,
        operation: request.operation ?? 'copy',
        sourceCloudAccountId: source.id,
        sourceBucket: request.sourceBucket,
        sourcePath,
        sourceSelection: files,
        destinationCloudAccountId: destination.id,
        destinationBucket: request.destinationBucket,
        destinationPath,
        skipExisting: request.skipExisting ?? false,
        syncJobId: request.syncJobId ?? null,
        bandwidthLimit: request.bandwidthLimit ?? null,
        sizeLimit: sizeLimit === UNLIMITED ? null : sizeLimit,
      });
      await recordAudit(tx.orm, caller, {
        entity: 'Transfer',
        type: 'Added',
        resource: transferResource(created),
        resourceId: created.id,
        changes: changesOf(null, {
          source: `${source.name}: ${created.sourceBucket}/${created.sourcePath}`,
          destination: `${destination.name}: ${created.destinationBucket}/${created.destinationPath}`,
          operation: created.operation,
          files: files?.length,
          skipExisting: created.skipExisting,
        }),
      });
      return created;
    });
    return this.#launch(batch.id, caller.organizationId, transferMessages.enqueued);
  }

  async list(
    caller: TransferCaller,
    query: { type: number; page: number; pagesize: number } & TransferProviderFilter,
  ): Promise<TransferList> {
    requireService(caller, 'transfers');
    const { rows, total } = await this.repo.list(
      caller.organizationId,
      query.type,
      query.page,
      query.pagesize,
      providerFilterOf(query),
    );
    return { items: rows.map(toTransferBatch), total, page: query.page, pagesize: query.pagesize };
  }

  /**
   * The organisation's live batches as the progress events describe them, for a page opened mid-transfer; with a
   * provider filter, only those out of or into that provider's accounts (the filtered Transfer Status pages).
   */
  async ongoing(
    caller: TransferCaller,
    filter: TransferProviderFilter = {},
  ): Promise<{ items: MigrationProgress[] }> {
    requireService(caller, 'transfers');
    const batches = await this.repo.live(caller.organizationId, providerFilterOf(filter));
    const now = new Date();
    const items = await Promise.all(
      batches.map(async (batch) => {
        const seconds = batch.startedAt ? Math.max(1, (now.getTime() - batch.startedAt.getTime()) / 1000) : 0;
        const rate = seconds ? batch.bytesDone / seconds : 0;
        const files: Record<string, MigrationFile> = {};
        for (const item of await this.repo.inFlight(batch.id, LIVE_FILES)) {
          files[String(item.id)] = toMigrationFile(batch, { ...item, status: 'Processing' }, 0, now);
        }
        return toMigrationProgress(batch, rate, files, now);
      }),
    );
    return { items };
  }

  async find(caller: TransferCaller, batchId: string): Promise<TransferBatch> {
    requireService(caller, 'transfers');
    return toTransferBatch(await this.#batch(caller, batchId));
  }

  /** Status 32 Canceling now; the workers abort what is in flight and the batch becomes 8 Canceled. */
  async cancel(caller: TransferCaller, batchId: string): Promise<{ message: string }> {
    const batch = await this.#batch(caller, batchId);
    authorize(caller, 'transfer.manage', { createdBy: batch.userId });
    if (batch.status !== BATCH_STATUS.canceling) {
      const requested = await this.repo.transaction(async (tx) => {
        if (!(await tx.requestCancel(caller.organizationId, batch.id))) return false;
        await recordAudit(tx.orm, caller, {
          entity: 'Transfer',
          type: 'Modified',
          resource: transferResource(batch),
          resourceId: batch.id,
          changes: changesOf(
            { status: BATCH_STATUS_LABEL[BATCH_STATUS.ongoing] },
            { status: BATCH_STATUS_LABEL[BATCH_STATUS.canceling] },
          ),
        });
        return true;
      });
      if (!requested) throw badRequest(transferMessages.notCancelable);
    }
    await this.repo.cancelIdleItems(batch.id);
    // Nothing in flight: the batch ends Canceled here. Otherwise it shows Canceling, and the job whose copies were
    // in flight ends it once they stop (TransferExecutor.settleCancel, or the sweep's).
    if (await this.repo.finalize(batch.id)) await this.onBatchFinished(batch.id);
    else await this.publishBatch(batch.id);
    return { message: transferMessages.canceled };
  }

  /** A new batch holding only the failed items of a finished one; the old one is marked Retried. */
  async retry(caller: TransferCaller, batchId: string): Promise<TransferStarted> {
    const batch = await this.#batch(caller, batchId);
    authorize(caller, 'transfer.manage', { createdBy: batch.userId });
    // A retried move deletes sources too.
    if (batch.operation === 'move') authorize(caller, 'transfer.move');
    if (!FINISHED.includes(batch.status)) throw badRequest(transferMessages.notFinished);
    if (batch.failedNumber === 0 || batch.retried) throw badRequest(transferMessages.nothingToRetry);
    // A removed account (its id set null) cannot be copied from or to: say so now, not with a batch that fails.
    if (batch.sourceCloudAccountId === null) throw badRequest(transferMessages.sourceAccountGone);
    if (batch.destinationCloudAccountId === null) throw badRequest(transferMessages.destinationAccountGone);
    await requireChargeConfirmed(this.repo, caller.organizationId);
    // The retry is planned already: its failed objects' bytes are reserved before it exists, under its own id.
    const retryId = randomUUID();
    const failedSize = await this.repo.failedSize(batch.id);
    requireWithin(caller, 'max_transfer_size', failedSize);
    await this.quota?.reserveNew({ id: retryId, organizationId: caller.organizationId }, failedSize);
    const created = await this.repo.transaction(async (tx) => {
      const retry = await tx.createRetry(batch, caller.userId, retryId);
      if (retry) {
        await recordAudit(tx.orm, caller, {
          entity: 'Transfer',
          type: 'Added',
          resource: transferResource(retry),
          resourceId: retry.id,
          changes: changesOf(null, {
            retryOf: batch.id,
            operation: retry.operation,
            files: retry.totalNumber,
          }),
        });
      }
      return retry;
    });
    if (!created) {
      await this.quota?.settleDropped({
        id: retryId,
        organizationId: caller.organizationId,
        transferredSize: 0,
      });
      throw badRequest(transferMessages.nothingToRetry);
    }
    await this.publishBatch(batch.id);
    return this.#launch(created.id, caller.organizationId, transferMessages.retryStarted);
  }

  /** The failed items as CSV (key,size,error), streamed a page of rows at a time. */
  async failedFilesCsv(
    caller: TransferCaller,
    batchId: string,
  ): Promise<{ fileName: string; body: Readable }> {
    requireService(caller, 'transfers');
    const batch = await this.#batch(caller, batchId);
    const repo = this.repo;
    async function* lines() {
      yield 'key,size,error\n';
      for await (const rows of repo.failedItems(batch.id)) {
        yield rows
          .map((row) => `${csvField(row.sourceKey)},${row.size},${csvField(row.error ?? '')}\n`)
          .join('');
      }
    }
    return { fileName: `failed-files-${batch.id}.csv`, body: Readable.from(lines()) };
  }

  /** Tells the organisation's browsers a batch changed (`transfer.batch`). */
  async publishBatch(batchId: string): Promise<void> {
    const batch = await this.repo.findForEngine(batchId);
    if (!batch) return;
    await this.publish({
      organizationId: batch.organizationId,
      service: 'transfers',
      type: TRANSFER_EVENTS.batch,
      data: toTransferBatch(batch),
    }).catch((error: unknown) =>
      this.log.warn({ err: error, batchId }, 'transfer batch event not published'),
    );
  }

  /**
   * A batch that ended counts the bytes it copied against the c2c quota (once, however often it is called).
   * Called once per batch end (`onBatchFinished`).
   */
  async settleQuota(batchId: string): Promise<void> {
    await this.quota?.settle(batchId);
  }

  /**
   * A batch that failed as a whole (its `error` says why: a store unreachable past the outage budget, a source that
   * could not be listed, an account removed) puts a notice in the organisation's bell, leading to the transfer
   * history; a batch where only some objects failed says so in its counts and its failed-files list instead.
   * Called once per batch end (`onBatchFinished`).
   */
  async noticeFailure(batchId: string): Promise<void> {
    const batch = await this.repo.findForEngine(batchId);
    if (!batch || batch.status !== BATCH_STATUS.failed || !batch.error) return;
    // The Transfer Status page (its replication variant for a sync job's batch) lists the batch with its error.
    await this.bell({
      organizationId: batch.organizationId,
      title: transferMessages.failedNoticeTitle(batch.sourceBucket, batch.destinationBucket),
      description: batch.error,
      status: 'error',
      link: batch.syncJobId ? '/rboard' : '/mboard',
    }).catch((error: unknown) =>
      this.log.warn({ err: error, batchId }, 'transfer failure notice not created'),
    );
  }

  /**
   * After a batch ended, the buckets it changed are counted again, so that the dashboard's sizes (and the size
   * alerts checked after each count) follow the transfer instead of the six-hourly sweep: the destination when it
   * received anything, the source when a move deleted from it.
   */
  async recountChangedBuckets(batchId: string): Promise<void> {
    const batch = await this.repo.findForEngine(batchId);
    // Run at the batch's end (`onBatchFinished`); a batch still running has not changed what it will change.
    if (!batch || !FINISHED.includes(batch.status)) return;
    const changed = [
      batch.transferredNumber > 0 && batch.destinationCloudAccountId
        ? { accountId: batch.destinationCloudAccountId, bucket: batch.destinationBucket }
        : null,
      batch.deletedNumber > 0 && batch.sourceCloudAccountId
        ? { accountId: batch.sourceCloudAccountId, bucket: batch.sourceBucket }
        : null,
    ];
    for (const target of changed) {
      if (!target) continue;
      await this.recount({ organizationId: batch.organizationId, ...target }).catch((error: unknown) =>
        this.log.warn({ err: error, batchId, ...target }, 'bucket recount not queued'),
      );
    }
  }

  /**
   * After a batch ended, the media-search index learns what it changed: the objects it copied enter it at the
   * destination (with what the index knew of their sources), the sources a move deleted leave it. A page of items
   * is one read and one statement each way, so a batch of a million objects costs a thousand of each, once, at its
   * end, never in the copy path. Best-effort: the index logs what it could not write and the next walk repairs it.
   */
  async indexChangedObjects(batchId: string): Promise<void> {
    if (!this.searchIndex) return;
    try {
      const batch = await this.repo.findForEngine(batchId);
      if (!batch || !FINISHED.includes(batch.status)) return;
      const source = batch.sourceCloudAccountId
        ? { accountId: batch.sourceCloudAccountId, bucket: batch.sourceBucket }
        : null;
      const destination = batch.destinationCloudAccountId
        ? { accountId: batch.destinationCloudAccountId, bucket: batch.destinationBucket }
        : null;
      let afterId = 0;
      let page: ChangedItem[];
      do {
        page = await this.repo.changedItemsPage(batchId, afterId, INDEX_PAGE);
        afterId = page.at(-1)?.id ?? afterId;
        const copies = page.filter((item) => item.copied);
        if (destination && copies.length > 0) {
          await this.searchIndex.recordCopies(
            batch.organizationId,
            destination,
            source,
            copies.map((item) => ({
              key: item.destinationKey,
              sourceKey: item.sourceKey,
              size: item.size,
              lastModified: item.finishedAt,
            })),
          );
        }
        const deleted = page.filter((item) => item.sourceDeleted).map((item) => item.sourceKey);
        if (source && deleted.length > 0) {
          await this.searchIndex.removeObjects(
            batch.organizationId,
            source.accountId,
            source.bucket,
            deleted,
          );
        }
      } while (page.length === INDEX_PAGE);
    } catch (error) {
      this.log.warn({ err: error, batchId }, 'media search index not told what the batch changed');
    }
  }

  async #launch(batchId: string, organizationId: string, message: string): Promise<TransferStarted> {
    try {
      await this.enqueue(batchId);
    } catch (error) {
      this.log.error({ err: error, batchId }, 'transfer could not be queued');
      if (await this.repo.failBatch(batchId, transferMessages.enqueueFailed))
        await this.onBatchFinished(batchId);
      throw badRequest(transferMessages.enqueueFailed);
    }
    await this.publishBatch(batchId);
    const batch = await this.repo.find(organizationId, batchId);
    if (!batch) throw notFound();
    return { message, batch: toTransferBatch(batch) };
  }

  /**
   * Bytes a transfer will certainly copy, as far as is known before planning: the inventoried size of a whole
   * bucket, or the sizes of the first selected keys (folders and the rest are left to planning's reservation). A
   * prefix is left to planning: the bucket's size is only an upper bound there, and would refuse a small folder of
   * a large bucket. With "Skip Existing Files" nothing is certain (the destination may hold it all): 0.
   */
  async #knownSize(
    source: CloudAccountRow,
    bucket: string,
    sourcePath: string,
    files: string[] | null,
    skipExisting: boolean,
  ): Promise<number> {
    if (skipExisting) return 0;
    if (files === null) {
      if (sourcePath !== '') return 0;
      const [row] = (await this.accounts.bucketsOf(source.organizationId, [source.id])).filter(
        (candidate) => candidate.name === bucket,
      );
      return row?.totalBytes ?? 0;
    }
    const keys = [...new Set(files.filter((file) => !file.endsWith('/')))].slice(0, SIZED_SELECTION);
    const store = await this.stores.storeFor(source);
    let total = 0;
    const next = async () => {
      for (let key = keys.shift(); key !== undefined; key = keys.shift()) {
        // A key that cannot be asked for now is planning's to find (or to fail on).
        const info = await store.stat(bucket, key).catch(() => null);
        total += info?.size ?? 0;
      }
    };
    await Promise.all(Array.from({ length: Math.min(SIZE_CONCURRENCY, keys.length) }, next));
    return total;
  }

  async #batch(caller: TransferCaller, batchId: string): Promise<BatchView> {
    const batch = await this.repo.find(caller.organizationId, batchId);
    if (!batch) throw notFound();
    return batch;
  }

  async #account(organizationId: string, accountId: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(organizationId, accountId);
    if (!account) throw notFound();
    return account;
  }
}

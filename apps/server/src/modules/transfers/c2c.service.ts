import {
  TRANSFER_CHARGE_PER_GB,
  TRANSFER_GB_BYTES,
  TRANSFER_TYPE,
  c2cMessages,
  roundTransferCost,
  type C2cMoveBody,
  type HistoryEntry,
  type TransferProviderFilter,
  type TransferStarted,
} from '@cumulo/contract';
import { requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest } from '../../errors.ts';
import type { TransferItemStatus } from '../../db/schema/transfers.ts';
import type { C2cRepo, HistoryBatchRow, HistoryItemRow } from './c2c.repo.ts';
import { providerFilterOf, type TransferRequest, type TransfersService } from './transfers.service.ts';

/** The history lists at most this many files of a batch. */
const HISTORY_FILES_PER_BATCH = 20;
const DAY_MS = 86_400_000;

/** What the c2c calls need of the transfer engine. */
type TransferEngine = Pick<TransfersService, 'start' | 'cancel'>;

/** The spec's older c2c payload shape, after the contract has parsed it. */
interface C2cMove {
  files: Array<{ path: string; bucket_name: string }>;
  cloud_id: string;
  type: C2cMoveBody['type'];
  destination: { cloud_id: string; bucket_name: string; path: string };
  skip_active: boolean;
}

/** The c2c calls (spec 001 §7 "moveAWS / moveWasabi", c2c/history, c2c/usage, c2c/cancel) over the engine. */
export class C2cService {
  constructor(
    private readonly engine: TransferEngine,
    private readonly repo: C2cRepo,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** POST /c2c/moveaws and /c2c/moveWasabi: the selection becomes one batch of the engine. */
  async move(principal: Principal, body: C2cMove): Promise<TransferStarted> {
    return this.engine.start(principal, transferOfC2cMove(body));
  }

  async cancel(principal: Principal, batchId: string): Promise<{ message: string }> {
    return this.engine.cancel(principal, batchId);
  }

  /**
   * GET /c2c/history: the migrations of the requester's last seven days (today and the six before), paged in
   * `order`, grouped as Today, Yesterday and This Week (the five days before yesterday). Days are counted in the
   * requester's `tz` offset, UTC when none is given; `source_provider`/`destination_provider` keep only the batches
   * out of or into that provider's accounts.
   */
  async history(
    principal: Principal,
    query: { order: 'asc' | 'desc'; skip: number; take: number; tz: number } & TransferProviderFilter,
  ) {
    requireService(principal, 'transfers');
    const days = historyDays(this.now(), query.tz);
    const { rows, total } = await this.repo.historyPage(
      principal.organizationId,
      { from: days.weekStart, to: days.end },
      query,
      providerFilterOf(query),
    );
    const items = await this.repo.firstItems(
      rows.map((row) => row.id),
      HISTORY_FILES_PER_BATCH,
    );
    const grouped = {
      today: [] as HistoryEntry[],
      yesterday: [] as HistoryEntry[],
      thisWeek: [] as HistoryEntry[],
    };
    for (const row of rows) {
      const entry = historyEntryOf(
        row,
        items.filter((item) => item.batchId === row.id),
      );
      if (row.requestedAt >= days.today) grouped.today.push(entry);
      else if (row.requestedAt >= days.yesterday) grouped.yesterday.push(entry);
      else grouped.thisWeek.push(entry);
    }
    return { ...grouped, total };
  }

  /** GET /c2c/usage: completed batches finished in [from, to), the bytes they copied and the transfer charge. */
  async usage(principal: Principal, query: { from: string; to: string }) {
    requireService(principal, 'transfers');
    const from = new Date(query.from);
    const to = new Date(query.to);
    if (from > to) throw badRequest(c2cMessages.usageRange, { from: [c2cMessages.usageRange] });
    const { count, size } = await this.repo.completedUsage(principal.organizationId, from, to);
    return { count, size, cost: roundTransferCost((size / TRANSFER_GB_BYTES) * TRANSFER_CHARGE_PER_GB) };
  }
}

/**
 * Maps the c2c payload onto the engine's transfer: the files' common folder becomes the source path, so the
 * selected files and folders land directly in the destination path (as dragged), keeping what lies below them.
 */
export function transferOfC2cMove(body: C2cMove): TransferRequest {
  const buckets = new Set(body.files.map((file) => file.bucket_name));
  if (buckets.size > 1) {
    throw badRequest(c2cMessages.oneSourceBucket, { files: [c2cMessages.oneSourceBucket] });
  }
  const paths = body.files.map((file) => normalizeKey(file.path));
  // The bucket root among the selection selects everything.
  const wholeBucket = paths.includes('');
  return {
    sourceCloudAccountId: body.cloud_id,
    sourceBucket: body.files[0]?.bucket_name ?? '',
    sourcePath: wholeBucket ? '' : commonFolder(paths),
    destinationCloudAccountId: body.destination.cloud_id,
    destinationBucket: body.destination.bucket_name,
    destinationPath: body.destination.path,
    transferType: TRANSFER_TYPE.migration,
    skipExisting: body.skip_active,
    operation: body.type === 0 || body.type === 'move' ? 'move' : 'copy',
    files: wholeBucket ? undefined : [...new Set(paths)],
  };
}

function normalizeKey(path: string): string {
  return path.replace(/^\/+/, '').replace(/\/{2,}/g, '/');
}

/** The deepest folder ('' or ending in '/') holding every key and folder of the selection. */
export function commonFolder(paths: string[]): string {
  const parents = paths.map((path) => {
    const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
    return trimmed.slice(0, trimmed.lastIndexOf('/') + 1);
  });
  let common = parents[0] ?? '';
  for (const parent of parents) {
    while (!parent.startsWith(common)) common = common.slice(0, common.slice(0, -1).lastIndexOf('/') + 1);
  }
  return common;
}

/** The instants where the requester's today, yesterday and seven-day window begin, for a UTC offset in minutes. */
export function historyDays(now: Date, tzMinutes: number) {
  const offsetMs = tzMinutes * 60_000;
  const today = new Date(Math.floor((now.getTime() + offsetMs) / DAY_MS) * DAY_MS - offsetMs);
  return {
    today,
    yesterday: new Date(today.getTime() - DAY_MS),
    weekStart: new Date(today.getTime() - 6 * DAY_MS),
    end: new Date(today.getTime() + DAY_MS),
  };
}

/** Item states as the history's files show them (spec 001 §4 migration statuses, plus Skipped). */
const FILE_STATUS: Record<TransferItemStatus, string> = {
  pending: 'Enqueued',
  copying: 'Processing',
  done: 'Succeeded',
  skipped: 'Skipped',
  failed: 'Failed',
  canceled: 'Canceled',
};

function historyEntryOf(row: HistoryBatchRow, items: HistoryItemRow[]): HistoryEntry {
  return {
    id: row.id,
    cloud: row.sourceName ?? '',
    bucket: row.sourceBucket,
    destination: { cloud: row.destinationName ?? '', bucket_name: row.destinationBucket },
    size: row.totalSize,
    created: row.requestedAt.toISOString(),
    status: row.status,
    files: items.map((item) => ({
      status: FILE_STATUS[item.status],
      bucket_name: row.sourceBucket,
      path: item.sourceKey,
      size: item.size,
    })),
  };
}

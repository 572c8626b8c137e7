import { z } from 'zod';
import { BYTES_MAX, text } from './text.ts';
import { calculatorSize, EGRESS_PER_GB, TRANSFER_CHARGE_PER_GB } from './pricing.ts';
import { PROVIDER_NAMES, type ProviderName } from './providers.ts';

/**
 * Cloud-to-cloud transfers (spec 001 §2 Migration / two-panel / Transfer Status / calculator screens, §3 batch and
 * ongoing-migration entities, §4 status codes and stats loop, §7 Migration calls, §8 transfer messages; spec 002
 * §7 Transfers). One mechanism serves every screen: a batch copies or moves objects from one account/bucket/path to
 * another; the server plans it into items and workers copy them.
 */

/** Spec 001 §4 "Batch transfer status codes". */
export const BATCH_STATUS = {
  ongoing: 2,
  completed: 4,
  canceled: 8,
  failed: 16,
  canceling: 32,
  pausing: 64,
  paused: 128,
} as const;
export type BatchStatusCode = (typeof BATCH_STATUS)[keyof typeof BATCH_STATUS];
export const BATCH_STATUS_LABEL: Record<BatchStatusCode, string> = {
  2: 'Ongoing',
  4: 'Completed',
  8: 'Canceled',
  16: 'Failed',
  32: 'Canceling',
  64: 'Pausing',
  128: 'Paused',
};
/** Spec 001 §4: transfer type 1 = migration, 2 = replication. */
export const TRANSFER_TYPE = { migration: 1, replication: 2 } as const;
/** Where an Ongoing batch is. */
export const BATCH_PHASES = ['held', 'planning', 'copying', 'finished'] as const;
export type BatchPhase = (typeof BATCH_PHASES)[number];

/** Spec 001 §4 "Migration statuses" of the live (ongoing) view. */
export const MIGRATION_STATUSES = [
  'Enqueued',
  'Started',
  'Processing',
  'Succeeded',
  'Failed',
  'Canceled',
] as const;
export type MigrationStatus = (typeof MIGRATION_STATUSES)[number];

/** Spec 001 §9 / §4: the status history page holds 50 batches; average speed is capped at 671088640 bytes/s. */
export const TRANSFER_HISTORY_PAGE_SIZE = 50;
export const AVERAGE_SPEED_CAP_BYTES = 671_088_640;
/** Progress reaches browsers at most once a second (issue: "flushed at most once a second"). */
export const TRANSFER_PROGRESS_INTERVAL_MS = 1000;
/** Spec 001 §4 "Stats loop". */
export const STATS_LOOP = {
  tickMs: 1000,
  staleMs: 60_000,
  maxPoints: 1000,
  dropOnOverflow: 100,
  startPoints: 30,
};
/** Spec 000 §9: the dashboard's recent transfers table shows at most 20 rows. */
export const RECENT_TRANSFERS_LIMIT = 20;
/** Spec 001 §9 "Transfer type": Move 0, Copy 1 in the c2c payloads. */
export const C2C_TYPE = { move: 0, copy: 1 } as const;

/** The /rm message types the transfer engine publishes. */
export const TRANSFER_EVENTS = {
  /** data: `MigrationProgress` — one batch's live state, at most once a second per worker. */
  progress: 'transfer.progress',
  /** data: `TransferBatch` — a batch changed status (started, finished, canceled, failed). */
  batch: 'transfer.batch',
} as const;

/** The largest size the calculator takes, in GB: one exabyte, beyond every real migration. */
export const CALCULATOR_SIZE_MAX_GB = 1_000_000_000;

/** Spec 001 §8 "Transfers" and §5, plus the engine's own refusals. */
/** "45 seconds", "15 minutes": how long a transfer waited, in the words of its error. */
function waitedFor(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  return `${Math.round(seconds / 60)} minutes`;
}

export const transferMessages = {
  /** A transfer whose source or destination account was removed: the engine's error, and Retry's refusal. */
  sourceAccountGone: 'The source cloud account of this transfer was removed.',
  destinationAccountGone: 'The destination cloud account of this transfer was removed.',
  /** A transfer's or a sync's bucket that is not there: refused before it is queued, and a sync cycle's fault. */
  missingBucket: (side: 'source' | 'destination', bucket: string, account: string) =>
    `The ${side} bucket ${bucket} does not exist in ${account}.`,
  /** A prefix copy ("Copy Using Prefix") whose prefix names no object: refused before it is queued. */
  nothingUnderPrefix: (prefix: string, bucket: string) =>
    `No object in ${bucket} starts with ${prefix}: there is nothing to copy.`,
  /** The account name a transfer shows for a side whose cloud account was removed since. */
  removedAccount: 'Removed account',
  enqueued: 'Transfer enqueue successfully',
  enqueueFailed: 'An error occurred while trying to enqueue the transfer, please try again',
  selectFiles: 'Please select files to transfer',
  started: 'Transfer Started',
  cancelConfirm: 'Are you sure to cancel this transfer?',
  canceled: 'Transfer canceled.',
  retryStarted: 'Retry Failed Files started successfully!',
  downloadFailedStarted: 'Download Failed Files started successfully!',
  didNotSucceed: (message: string) => `Transfer did not succeed - ${message}`,
  /** Why a batch without an error of its own failed: some of its files did (each file's error is in its CSV). */
  filesFailed: (failed: number, total: number) =>
    `${failed.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${total === 1 ? 'file' : 'files'} failed`,
  /** A batch's error when a store stayed unreachable past TRANSFER_OUTAGE_SECONDS; `cause` is the store's words. */
  storeUnreachable: (side: 'source' | 'destination' | null, seconds: number, cause: string) =>
    `${side === null ? 'The stores of this transfer failed every copy' : `The ${side} could not be reached`} for ${waitedFor(seconds)}, so the transfer stopped (${cause.replace(/\.$/, '')}). Retry Failed Files copies the rest once it is back.`,
  /** The bell notice of a batch that failed as a whole (its error says why). */
  failedNoticeTitle: (source: string, destination: string) => `Transfer failed: ${source} to ${destination}`,
  sameBucket: 'Source and destination are the same bucket and path: choose another destination.',
  nestedDestination:
    'The destination lies inside the source: copying would copy its own copies. Choose another destination path.',
  notCancelable: 'This transfer has already finished.',
  nothingToRetry: 'This transfer has no failed files to retry.',
  notFinished: 'This transfer is still running: retry its failed files once it has finished.',
  chargeNotConfirmed: 'The cloud to cloud transfer charge has not been confirmed for your organisation yet.',
  ftxChargeNotConfirmed: 'The ftX transfer charge has not been confirmed for your organisation yet.',
  ownerConfirms: 'Only the Owner of the organisation can confirm transfer charges.',
  calculatorSizeMin: 'Transfer Size(GB) must be at least 1.',
  calculatorSizeMax: `Transfer Size(GB) must be at most ${CALCULATOR_SIZE_MAX_GB}.`,
  bandwidthMin: 'The bandwidth limit must be at least 1 MiB/s.',
} as const;
/** The last page the transfer lists serve: deeper pages are never reached by paging. */
export const TRANSFER_PAGE_MAX = 100_000;
/** The lowest bandwidth limit a transfer takes: 1 MiB/s. */
export const TRANSFER_BANDWIDTH_MIN = 1_048_576;

const accountId = z.uuid({ message: 'Choose a cloud account.' });
const bucketName = text({ max: 255 }).min(1, { message: 'Choose a bucket.' });
/** A key prefix; leading slashes are dropped, '' is the bucket root. */
const objectPath = text({ max: 1024 }).transform((path) => path.replace(/^\/+/, '').replace(/\/{2,}/g, '/'));

/**
 * POST /transfer/transfer (spec 001 §7 "move" payload): copy (default) or move everything under `sourcePath`, or
 * only `files` (keys, and folders ending in '/', relative to the bucket) when given.
 */
export const transferBody = z.object({
  sourceCloudAccountId: accountId,
  sourceBucket: bucketName,
  sourcePath: objectPath.default(''),
  destinationCloudAccountId: accountId,
  destinationBucket: bucketName,
  destinationPath: objectPath.default(''),
  transferType: z.literal(1).default(1),
  /** "Skip Existing Files". */
  allowSkip: z.boolean().default(false),
  operation: z.enum(['copy', 'move']).default('copy'),
  files: z
    .array(text({ max: 1024 }).min(1))
    .min(1)
    .max(10_000)
    .optional(),
  /** Bytes per second the transfer may read at most (rclone's --bwlimit, DataSync's bandwidth limit); none = unlimited. */
  bandwidthLimit: z
    .number()
    .int()
    .min(TRANSFER_BANDWIDTH_MIN, { message: transferMessages.bandwidthMin })
    .max(BYTES_MAX)
    .nullable()
    .optional(),
});
export type TransferBody = z.input<typeof transferBody>;

const c2cFile = z.object({
  path: text({ max: 1024 }).min(1),
  file_id: text({ max: 1024 }).optional(),
  bucket_name: bucketName,
  bucket_id: text({ max: 255 }).optional(),
});
/** POST /c2c/moveaws and /c2c/moveWasabi (spec 001 §7): type 0 move, 1 copy; skip_active skips existing files. */
export const c2cMoveBody = z.object({
  files: z.array(c2cFile).min(1, { message: transferMessages.selectFiles }).max(10_000),
  cloud_id: accountId,
  type: z.union([z.literal(0), z.literal(1), z.literal('move'), z.literal('copy')]),
  destination: z.object({
    cloud_id: accountId,
    bucket_name: bucketName,
    bucket_id: text({ max: 255 }).optional(),
    path: objectPath.default(''),
  }),
  skip_active: z.boolean().default(false),
});
export type C2cMoveBody = z.input<typeof c2cMoveBody>;

/** POST /transfer/cancel_transfer, /transfer/retry_transfer, /transfer/download_failed_files: `{ Id }`. */
export const batchIdBody = z.object({ Id: z.uuid({ message: 'Unknown transfer.' }) });

const unknownProviderMessage = `Unknown provider: use one of ${PROVIDER_NAMES.join(', ')}.`;
const providerParam = z.enum(PROVIDER_NAMES, { message: unknownProviderMessage }).optional();

/**
 * Optional query parameters of the Transfer Status calls (GET /transfer/get_all, /transfer/ongoing, /c2c/history):
 * only batches whose source, respectively destination, account is of that provider. /wbrstatus lists the batches
 * into Wasabi, /awstboard those out of AWS; the server filters, since the history is paged.
 */
export const transferProviderFilter = z.object({
  source_provider: providerParam,
  destination_provider: providerParam,
});
export type TransferProviderFilter = z.infer<typeof transferProviderFilter>;

/** GET /transfer/get_all?type&pagesize&page[&source_provider][&destination_provider] */
export const transferListQuery = transferProviderFilter.extend({
  type: z.coerce.number().int().min(1).max(2).default(1),
  pagesize: z.coerce.number().int().min(1).max(200).default(TRANSFER_HISTORY_PAGE_SIZE),
  page: z.coerce.number().int().min(1).max(TRANSFER_PAGE_MAX).default(1),
});

const accountRef = z.object({ id: z.string().nullable(), name: z.string() });

/** A batch as the status page, the history and the dashboard read it (spec 001 §3, newest spelling). */
export const transferBatch = z.object({
  id: z.string(),
  transferType: z.number(),
  operation: z.enum(['copy', 'move']),
  transferStatus: z.number(),
  phase: z.enum(BATCH_PHASES),
  total: z.number(),
  totalSize: z.number(),
  transferred: z.number(),
  transferredSize: z.number(),
  deleted: z.number(),
  failed: z.number(),
  skipped: z.number(),
  skippedSize: z.number(),
  /** Bytes copied so far, counting parts of objects still in flight. */
  bytesDone: z.number(),
  /** Bytes per second (capped at AVERAGE_SPEED_CAP_BYTES). */
  averageSpeed: z.number(),
  requestDate: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  sourceCloudAccount: accountRef,
  destinationCloudAccount: accountRef,
  sourceBucket: z.string(),
  destinationBucket: z.string(),
  sourcePath: z.string(),
  destinationPath: z.string(),
  skipExisting: z.boolean(),
  /** Bytes per second the batch may read at most; null is unlimited. */
  bandwidthLimit: z.number().nullable(),
  /** The sync job and cycle this batch copies for (replication, transfer type 2); null for a one-off transfer. */
  syncJobId: z.string().nullable(),
  syncCycleId: z.string().nullable(),
  /** The batch whose failed files this one retries, and whether this one was retried. */
  retryOf: z.string().nullable(),
  Retried: z.boolean(),
  /** The member who started the batch (null once they left): a User may cancel or retry only their own. */
  createdBy: z.string().nullable(),
  error: z.string().nullable(),
});
export type TransferBatch = z.infer<typeof transferBatch>;

export const transferList = z.object({
  items: z.array(transferBatch),
  total: z.number(),
  page: z.number(),
  pagesize: z.number(),
});
export type TransferList = z.infer<typeof transferList>;

/** One file of a live migration (spec 001 §3 "Ongoing migration" file entry), in flight or just finished. */
export const migrationFile = z.object({
  cloud: z.string(),
  bucket: z.string(),
  path: z.string(),
  status: z.enum(MIGRATION_STATUSES),
  percent: z.number(),
  rate: z.number(),
  size: z.number(),
  transferred: z.number(),
  started: z.string().nullable(),
  ended: z.string().nullable(),
  time_left: z.number().nullable(),
  message: z.string().nullable(),
  updated: z.string(),
});
export type MigrationFile = z.infer<typeof migrationFile>;

/** The live state of one batch (spec 001 §3 "Ongoing migration"), pushed on /rm as `transfer.progress`. */
export const migrationProgress = z.object({
  id: z.string(),
  status: z.enum(MIGRATION_STATUSES),
  transferStatus: z.number(),
  /** 1 migration, 2 replication: the replication status page lists only its own batches. */
  transferType: z.number(),
  /** The member who started the batch (null once they left): a User may cancel only their own. */
  createdBy: z.string().nullable(),
  percent: z.number(),
  /** Destination cloud (account name) and bucket. */
  cloud: z.string(),
  bucket: z.string(),
  /** Bytes per second, now. */
  rate: z.number(),
  transferred: z.number(),
  size: z.number(),
  skipped_size: z.number(),
  /** Seconds left at the current rate, null while unknown. */
  time_left: z.number().nullable(),
  updated: z.string(),
  files: z.record(z.string(), migrationFile),
});
export type MigrationProgress = z.infer<typeof migrationProgress>;

/** GET /transfer/ongoing: the organisation's live batches, for a page opened mid-transfer. */
export const ongoingTransfers = z.object({ items: z.array(migrationProgress) });

/** Answer of transfer/c2c starts, retry: the spec's toast text plus the batch. */
export const transferStarted = z.object({ message: z.string(), batch: transferBatch });
export type TransferStarted = z.infer<typeof transferStarted>;

const c2cTzMessage = 'tz is your offset from UTC in minutes, between -840 and 840.';
/** GET /c2c/history?order&skip&take — history entries grouped as the status page lists them. */
export const historyEntry = z.object({
  id: z.string(),
  cloud: z.string(),
  bucket: z.string(),
  destination: z.object({ cloud: z.string(), bucket_name: z.string() }),
  size: z.number(),
  created: z.string(),
  status: z.number(),
  files: z.array(
    z.object({ status: z.string(), bucket_name: z.string(), path: z.string(), size: z.number() }),
  ),
});
export type HistoryEntry = z.infer<typeof historyEntry>;
export const c2cHistoryQuery = transferProviderFilter.extend({
  order: z.enum(['asc', 'desc']).default('desc'),
  skip: z.coerce
    .number()
    .int()
    .min(0)
    .max(TRANSFER_PAGE_MAX * TRANSFER_HISTORY_PAGE_SIZE)
    .default(0),
  take: z.coerce.number().int().min(1).max(200).default(TRANSFER_HISTORY_PAGE_SIZE),
  /** The requester's UTC offset in minutes east of UTC (`-new Date().getTimezoneOffset()`); days are UTC without it. */
  tz: z.coerce
    .number()
    .int()
    .min(-840, { message: c2cTzMessage })
    .max(840, { message: c2cTzMessage })
    .default(0),
});
export const c2cHistory = z.object({
  today: z.array(historyEntry),
  yesterday: z.array(historyEntry),
  thisWeek: z.array(historyEntry),
  total: z.number(),
});

/** GET /c2c/usage?from&to — what the organisation moved in a period and its charge. */
export const c2cUsageQuery = z.object({
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
});
export const c2cUsage = z.object({ count: z.number(), size: z.number(), cost: z.number() });

/**
 * POST /transfer/calculate_cost (calculator, spec 001 §2 and §5): the charge of moving `size` GB from the source's
 * provider to the destination's, from spec constants (egress per GB of the source provider + $0.15/GB transfer).
 */
export const calculateCostBody = z.object({
  sourceCloudAccountId: accountId,
  destinationCloudAccountId: accountId,
  // The screen's rule applies here too (spec 000 §5): 0.4 GB is priced as 1 GB, 2.6 GB as 3 GB.
  size: z
    .number({ message: transferMessages.calculatorSizeMin })
    .min(0, { message: transferMessages.calculatorSizeMin })
    .max(CALCULATOR_SIZE_MAX_GB, { message: transferMessages.calculatorSizeMax })
    .transform(calculatorSize),
});
export const costEstimate = z.object({
  sizeGb: z.number(),
  egressPerGb: z.number(),
  transferPerGb: z.number(),
  egressCost: z.number(),
  transferCost: z.number(),
  total: z.number(),
  /** Per-GB rate (the spec's calculatePrice answer). */
  rate: z.number(),
});
export type CostEstimate = z.infer<typeof costEstimate>;

/** POST /transfers/costs {service_code, size, direction} (spec 002 §7). `size` in bytes. */
export const transferCostsBody = z.object({
  service_code: text({ max: 64 }).min(1),
  size: z.number().min(0).max(BYTES_MAX),
  direction: text({ max: 64 }).min(1),
});

/**
 * GET /transfers/s3_costs: the S3 prices Cumulo's estimates use (spec 000 §9), per GB in USD. `upto_gb` null: no
 * upper bound. Request prices are not part of the spec's price table, so none are answered.
 */
export const s3CostsAnswer = z.object({
  currency: z.literal('USD'),
  storage_per_gb_month: z.array(z.object({ upto_gb: z.number().nullable(), per_gb: z.number() })),
  egress_per_gb: z.number(),
  ingress_per_gb: z.number(),
  transfer_charge_per_gb: z.number(),
});
export type S3CostsAnswer = z.infer<typeof s3CostsAnswer>;

/** PUT /organizations/_me: the charge confirmations (Owner only, spec 001 §6). */
export const organizationFlagsBody = z
  .object({
    confirmed_c2c: z.literal(true).optional(),
    confirmed_ftx: z.literal(true).optional(),
    confirmed_wasabi: z.literal(true).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'Nothing to confirm.' });

/** The GB of the transfer charge and of transfer costs (spec 001 §9: GB = 1073741824 bytes). */
export const TRANSFER_GB_BYTES = 1_073_741_824;
/** Transfer costs are answered and shown to 5 decimals (spec 000 §9). */
export const TRANSFER_COST_DECIMALS = 5;

/** The refusals of the c2c, usage and cost calls. */
export const c2cMessages = {
  oneSourceBucket: 'Select files from one bucket at a time: a transfer copies from a single source bucket.',
  usageRange: 'The start of the period (from) must not be after its end (to).',
  unknownService: `Unknown service_code: use one of ${PROVIDER_NAMES.join(', ')}.`,
  unknownDirection: 'Unknown direction: use c2c, download or upload.',
} as const;

/**
 * Egress per GB of a provider (spec 000 §9 "Egress per GB"). The table names aws, azure, google and wasabi; the
 * other S3-compatible stores (backblaze, filebase, genericS3) are priced like aws, as the storage estimate does,
 * so an estimate never undercounts.
 */
export function egressPerGbFor(provider: ProviderName): number {
  if (provider === 'azure' || provider === 'wasabi' || provider === 'google') return EGRESS_PER_GB[provider];
  return EGRESS_PER_GB.aws;
}

/** Rounds USD to the transfer cost decimals by decimal halves (0.000015 → 0.00002), not by binary noise. */
export function roundTransferCost(usd: number): number {
  const scale = 10 ** TRANSFER_COST_DECIMALS;
  return Math.round(Number((usd * scale).toPrecision(15))) / scale;
}

/**
 * The charge of moving `sizeGb` GB out of a `sourceProvider` account: the source's egress plus the cloud to cloud
 * transfer charge (pass 0 for `transferPerGb` where no transfer charge applies).
 */
export function transferCostEstimate(
  sourceProvider: ProviderName,
  sizeGb: number,
  transferPerGb: number = TRANSFER_CHARGE_PER_GB,
): CostEstimate {
  const egressPerGb = egressPerGbFor(sourceProvider);
  const egressCost = roundTransferCost(sizeGb * egressPerGb);
  const transferCost = roundTransferCost(sizeGb * transferPerGb);
  return {
    sizeGb,
    egressPerGb,
    transferPerGb,
    egressCost,
    transferCost,
    total: roundTransferCost(egressCost + transferCost),
    rate: roundTransferCost(egressPerGb + transferPerGb),
  };
}

/** Directions of POST /transfers/costs: cloud to cloud (egress + transfer charge), download (egress), upload (free ingress). */
export const TRANSFER_COST_DIRECTIONS = ['c2c', 'download', 'upload'] as const;
export type TransferCostDirection = (typeof TRANSFER_COST_DIRECTIONS)[number];

/** POST /transfers/costs: `bytes` moved in `direction` through the provider named by `serviceCode`; null when either is unknown. */
export function transferCostsEstimate(
  serviceCode: string,
  bytes: number,
  direction: string,
): CostEstimate | null {
  const provider = PROVIDER_NAMES.find((name) => name.toLowerCase() === serviceCode.trim().toLowerCase());
  const way = TRANSFER_COST_DIRECTIONS.find((name) => name === direction.trim().toLowerCase());
  if (!provider || !way) return null;
  const sizeGb = bytes / TRANSFER_GB_BYTES;
  // Every provider of the table takes data in for free.
  if (way === 'upload') {
    return { sizeGb, egressPerGb: 0, transferPerGb: 0, egressCost: 0, transferCost: 0, total: 0, rate: 0 };
  }
  return transferCostEstimate(provider, sizeGb, way === 'c2c' ? TRANSFER_CHARGE_PER_GB : 0);
}

/** The organisation's flags, as PUT /organizations/_me answers them. */
export const organizationFlags = z.object({
  is_cbs: z.boolean(),
  confirmed_c2c: z.boolean(),
  confirmed_ftx: z.boolean(),
  confirmed_wasabi: z.boolean(),
});
export type OrganizationFlags = z.infer<typeof organizationFlags>;

import { z } from 'zod';
import { text } from './text.ts';

/**
 * Scheduled sync and replication (spec 000 §3 "Sync info", §4 last-cycle status codes, §8 sync toasts and
 * confirmations; spec 001 §2 Sync and Replication screens, §3 "Sync info", §7 saveSync / saveSyncWasabi, §9
 * frequencies and operation code; spec 002 §7 Sync). A job names a source and a destination account/bucket; each
 * cycle diffs the two sorted listings, copies new and changed objects through the transfer engine (transfer type
 * 2), and — for a replication with "Sync Deleted objects!" — deletes what is gone from the source, behind the
 * delete guardrail. The spec limits sync to S3 sources; Cumulo's engine serves every provider.
 */

/** Spec 001 §9 "Sync frequencies". */
export const SYNC_FREQUENCY = { daily: 1, weekly: 2, monthly: 3 } as const;
export type SyncFrequency = (typeof SYNC_FREQUENCY)[keyof typeof SYNC_FREQUENCY];
export const SYNC_FREQUENCY_LABEL: Record<SyncFrequency, string> = {
  1: 'Every Day',
  2: 'Every Week',
  3: 'Every Month',
};
/** Spec 001 §9 "Replication operation code". */
export const REPLICATION_OPERATION = 1;

/** Spec 000 §4 "Sync last-cycle status codes". */
export const SYNC_CYCLE_STATUS = {
  processing: 0,
  transferring: 1,
  completed: 2,
  cancelled: 4,
  faulted: 8,
  noChange: 16,
} as const;
export type SyncCycleStatusCode = (typeof SYNC_CYCLE_STATUS)[keyof typeof SYNC_CYCLE_STATUS];
export const SYNC_CYCLE_STATUS_LABEL: Record<SyncCycleStatusCode, string> = {
  0: 'Processing',
  1: 'Transferring',
  2: 'Completed',
  4: 'Cancelled',
  8: 'Faulted',
  16: 'NoChange',
};
/** Spec 000 §4: the tooltip of a Faulted cycle shows the last error, 'Error' when there is none. */
export const SYNC_DEFAULT_ERROR = 'Error';

/** Delete guardrail defaults: more than 100 objects, or more than 10 % of the destination, waits for approval. */
export const SYNC_DELETE_GUARD = { count: 100, percent: 10 } as const;
/**
 * Where a job with quarantine moves what it deletes, inside the destination bucket:
 * `{SYNC_QUARANTINE_PREFIX}{YYYY-MM-DD}/{cycle id}/{key}`. Diffs never list it; objects under it older than the
 * job's `quarantineDays` are purged.
 */
export const SYNC_QUARANTINE_PREFIX = '.cumulo-quarantine/';
/** A dry run keeps at most this many keys of each list for the screen (the counts are always complete). */
export const SYNC_DRY_RUN_SAMPLE = 200;
/**
 * Between full checks a cycle lists only the source and trusts what Cumulo wrote to the destination; a weekly
 * full listing catches changes made at the destination by anyone else.
 */
export const SYNC_FULL_CHECK_DAYS = 7;

/** The /rm message a cycle publishes on every change of status, phase or counts. data: `SyncCycle`. */
export const SYNC_EVENTS = { cycle: 'sync.cycle' } as const;

/** Spec 000 §8 and 001 §8 texts, plus the engine's own refusals and the guardrail's words. */
export const syncMessages = {
  saved: 'Sync Information successfully sent.',
  deleted: 'Sync Information deleted successfully!',
  activated: 'Sync Information activate successfully!',
  deactivated: 'Sync Information deactivate successfully!',
  failed: 'Something went wrong',
  deleteFailed: 'Something went wrong.',
  confirmToggle: (activate: boolean, source: string, destination: string) =>
    `Are you sure you want to ${activate ? 'activate' : 'deactivate'} the ${source} to ${destination} Sync?`,
  confirmDelete: (sync: string) => `Do you want to remove the ${sync} Sync Information?`,
  deleteNote: 'This only removes it from the product: no object is deleted from either bucket.',
  anyProvider:
    'Cumulo syncs from any connected provider, not only S3: the same engine copies between every pair of clouds.',
  runStarted: 'Sync cycle started.',
  dryRunStarted: 'Dry run started: it lists both sides and changes nothing.',
  alreadyRunning: 'A cycle of this sync is already running: wait for it to finish.',
  inactive: 'This sync is deactivated: activate it to run a cycle.',
  sameBucket: 'Source and destination are the same bucket and path: choose another destination.',
  nestedDestination:
    'The destination lies inside the source: each cycle would copy its own copies. Choose another destination path.',
  unknownJob: 'Unknown sync job.',
  unknownCycle: 'Unknown sync cycle.',
  notWaiting: 'This cycle is not waiting for an approval.',
  approvers: 'Only an Owner or an Admin can approve or reject deletes.',
  approved: 'Deletes approved: the cycle deletes them now.',
  rejected: 'Deletes rejected: nothing was deleted.',
  waitingApproval: (count: number, size: string) =>
    `Waiting for approval: this cycle would delete ${count} objects (${size}).`,
  approvalSubject: (sync: string) => `A sync wants to delete objects: ${sync}`,
} as const;

const accountId = z.uuid({ message: 'Choose a cloud account.' });
const bucketName = text({ max: 255 }).min(1, { message: 'Choose a bucket.' });
/** A key prefix; leading slashes are dropped, doubled slashes collapsed, '' is the bucket root. */
const objectPath = text({ max: 1024 }).transform((path) => path.replace(/^\/+/, '').replace(/\/{2,}/g, '/'));
const frequency = z.union([z.literal(1), z.literal(2), z.literal(3)], {
  message: 'Choose a frequency: 1 Every Day, 2 Every Week or 3 Every Month.',
});
/** Options every job has beyond the spec's payloads. */
const jobOptions = {
  sourcePath: objectPath.default(''),
  destinationPath: objectPath.default(''),
  /** Move deleted objects to the quarantine prefix for this many days instead of deleting them. */
  quarantineDays: z.number().int().min(1).max(3650).nullable().default(null),
  deleteThresholdCount: z.number().int().min(0).max(1_000_000_000).default(SYNC_DELETE_GUARD.count),
  deleteThresholdPercent: z.number().int().min(0).max(100).default(SYNC_DELETE_GUARD.percent),
};

/** saveSync (spec 001 §7): the /Sync screen's payload. Creates a job of kind "sync" (never deletes). */
export const saveSyncBody = z.object({
  frequency,
  source_cloud: accountId,
  source_bucket: bucketName,
  destination_cloud: accountId,
  destination_bucket: bucketName,
  ...jobOptions,
});
/** saveSyncWasabi (spec 001 §7): the /replication screen's payload. Creates a job of kind "replication". */
export const saveReplicationBody = z.object({
  sourceCloudAccountId: accountId,
  sourceBucket: bucketName,
  destinationCloudAccountId: accountId,
  destinationBucket: bucketName,
  operation: z.literal(REPLICATION_OPERATION).default(REPLICATION_OPERATION),
  allowDelete: z.boolean().default(false),
  active: z.boolean().default(true),
  frequency: frequency.default(SYNC_FREQUENCY.daily),
  ...jobOptions,
});
/** POST /sync/insert (and the legacy AddSyncInfo / AddSyncInfoWasabi) take either payload. */
export const syncInsertBody = z.union([saveSyncBody, saveReplicationBody]);
export type SaveSyncBody = z.input<typeof saveSyncBody>;
export type SaveReplicationBody = z.input<typeof saveReplicationBody>;
export type SyncInsertBody = z.input<typeof syncInsertBody>;

/** POST /sync/activate (spec 000 §7). */
export const syncActivateBody = z.object({
  id: z.uuid({ message: syncMessages.unknownJob }),
  active: z.boolean(),
});
/** DELETE /sync/delete?id, GET /sync/cycles?id, POST /sync/dry_run?id. */
export const syncIdQuery = z.object({ id: z.uuid({ message: syncMessages.unknownJob }) });
/** POST sync/TriggerWasabiSync?syncInfoId (run now). */
export const syncTriggerQuery = z.object({ syncInfoId: z.uuid({ message: syncMessages.unknownJob }) });
/** POST /sync/decide: an Owner or Admin approves or rejects a cycle's waiting deletes. */
export const syncDecideBody = z.object({
  cycleId: z.uuid({ message: syncMessages.unknownCycle }),
  approve: z.boolean(),
});
/** PUT /sync/options: the guardrail and quarantine options of a job. */
export const syncOptionsBody = z.object({
  id: z.uuid({ message: syncMessages.unknownJob }),
  quarantineDays: jobOptions.quarantineDays,
  deleteThresholdCount: z.number().int().min(0).max(1_000_000_000),
  deleteThresholdPercent: z.number().int().min(0).max(100),
});

const accountRef = z.object({ id: z.string(), name: z.string(), provider: z.string() });
const keySample = z.array(z.object({ key: z.string(), size: z.number() }));

/** One cycle of a job, as the screens and the `sync.cycle` event read it. */
export const syncCycle = z.object({
  id: z.string(),
  syncJobId: z.string(),
  trigger: z.enum(['schedule', 'manual']),
  dryRun: z.boolean(),
  status: z.number(),
  phase: z.enum(['diffing', 'copying', 'awaiting_approval', 'deleting', 'finished']),
  /** The transfer batch copying for it (its progress is the transfer engine's). */
  batchId: z.string().nullable(),
  sourceCount: z.number(),
  destinationCount: z.number(),
  copyCount: z.number(),
  copyBytes: z.number(),
  unchangedCount: z.number(),
  /** Destination objects gone from the source (a replication with allowDelete only). */
  deleteCount: z.number(),
  deleteBytes: z.number(),
  deletedCount: z.number(),
  approval: z.enum(['waiting', 'approved', 'rejected']).nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  sample: z.object({ copy: keySample, delete: keySample }).nullable(),
  error: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type SyncCycle = z.infer<typeof syncCycle>;

/**
 * One job of GET /sync/get_jobs (spec 000 §3 "Sync info": info{…}, lastCycle{date, status}, lastError; spec 001 §3
 * adds frequency and the replication fields).
 */
export const syncJob = z.object({
  info: z.object({
    id: z.string(),
    kind: z.enum(['sync', 'replication']),
    sourceCloudAccount: accountRef,
    sourceBucket: z.string(),
    sourcePath: z.string(),
    destinationCloudAccount: accountRef,
    destinationBucket: z.string(),
    destinationPath: z.string(),
    frequency: z.number(),
    operation: z.number(),
    createDate: z.string(),
    /** Who created the job (null once they left): other members than Owners and Admins manage only their own. */
    createdBy: z.string().nullable(),
    allowDelete: z.boolean(),
    active: z.boolean(),
    quarantineDays: z.number().nullable(),
    deleteThresholdCount: z.number(),
    deleteThresholdPercent: z.number(),
    /** When the schedule runs it next (null while deactivated). */
    nextRun: z.string().nullable(),
  }),
  lastCycle: z.object({ id: z.string(), date: z.string(), status: z.number() }).nullable(),
  lastError: z.string().nullable(),
  /** The job's unfinished cycle, if any (for live status and a waiting approval). */
  liveCycle: syncCycle.nullable(),
});
export type SyncJob = z.infer<typeof syncJob>;

/** GET /sync/get_jobs: `{ data: SyncJob[] }` (spec 000 §7 "response data array"). */
export const syncJobList = z.object({ data: z.array(syncJob) });
/** GET /sync/cycles?id: the job's cycles, newest first (at most 50). */
export const syncCycleList = z.object({ data: z.array(syncCycle) });
export const SYNC_CYCLE_PAGE = 50;

/** Answers of insert, run now, dry run and decide. */
export const syncJobSaved = z.object({ message: z.string(), job: syncJob });
export const syncCycleStarted = z.object({ message: z.string(), cycle: syncCycle });

import { PgBoss, type Queue } from 'pg-boss';
import type { Logger } from '../logger.ts';
import { carryRequestIds } from '../runtime/request-context.ts';

/** Queue names, one place. Each handler is safe to run twice (STYLE.md "Jobs"). */
export const QUEUES = {
  purgeExpiredIdentity: 'identity.purge-expired',
  inventoryAccount: 'inventory.account',
  inventorySweep: 'inventory.sweep',
  /** Reads one account's billing reports into the analytics rollups; keyed by account. */
  analyticsIngest: 'analytics.ingest',
  /** Every six hours: queues an ingestion of every account with a billing bucket. */
  analyticsSweep: 'analytics.sweep',
  alertsCheck: 'alerts.check',
  alertsSweep: 'alerts.sweep',
  /** Compares one organisation's budget alerts with its budgets; keyed by organisation (after every ingestion). */
  financeEvaluate: 'finance.evaluate',
  /** Hourly: sends every audit digest that is due (and retries the ones that failed). */
  financeDigest: 'finance.digest',
  uploadsSweep: 'uploads.sweep',
  /** One job per batch and worker slot: plans the batch if needed, then claims and copies items until none is left. */
  transfersBatch: 'transfers.batch',
  /** Re-queues batches whose workers died (expired item leases, no job running) and aborts orphaned uploads. */
  transfersSweep: 'transfers.sweep',
  /** Daily: deletes the done, skipped and canceled items of batches finished TRANSFER_ITEMS_RETENTION_DAYS ago. */
  transfersRetention: 'transfers.retention',
  /** A sync job's schedule (one per active job, keyed by its id): starts a cycle unless one is unfinished. */
  syncTrigger: 'sync.trigger',
  /** Advances one sync cycle (diff, hand-over to the transfer engine, guardrail, deletes); keyed by cycle id. */
  syncCycle: 'sync.cycle',
  /** Re-queues cycles left without a job, moves cycles whose batch finished on, purges expired quarantine. */
  syncSweep: 'sync.sweep',
  /** Encodes one source with one preset (an `encoding_jobs` row); grouped by organisation. */
  encodingJob: 'encoding.job',
  /** Every five minutes: ends the encoding jobs whose queue job ran out of retries, re-sends the ones never sent. */
  encodingSweep: 'encoding.sweep',
  /** Runs one Hybrik profile job (a `hybrik_jobs` row: source, transcodes, copies); grouped by organisation. */
  hybrikJob: 'hybrik.job',
  /** Every five minutes: ends the profile jobs whose queue job ran out of retries, re-sends the ones never sent. */
  hybrikSweep: 'hybrik.sweep',
  /** Daily: ends subscriptions whose cancel was scheduled, renews the others with the ended period's invoice. */
  billingRoll: 'billing.roll',
} as const;
type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

const MINUTE = 60;
const HOUR = 60 * MINUTE;

/**
 * The queues only a cron schedule feeds (and a test or an operator, by hand): a run's job wakes a worker at once by
 * NOTIFY, so an idle worker need not look for one on pg-boss's default 2 s poll; with `notify` it looks every 30 s,
 * as a backstop for a lost notification. Polled every 2 s, these 12 queues sent each idle worker's PostgreSQL 6
 * fetch statements a second. A sync job's own schedule (`sync.trigger`) keeps the 2 s poll: it is what the user set.
 */
const SWEEP = { notify: true } as const;

/**
 * How each queue behaves. Keyed queues are `stately`: per singletonKey at most one job waits and one runs, so a
 * request made while a run is under way gets its own later run, and requests piling up behind it collapse into
 * one. Long walks carry a heartbeat instead of a short expiry: a crashed worker's job is retried a minute after
 * its heartbeats stop, while a healthy walk of a huge bucket may take hours.
 */
const QUEUE_DEFINITIONS: Record<QueueName, Omit<Queue, 'name'>> = {
  [QUEUES.purgeExpiredIdentity]: { policy: 'standard', expireInSeconds: 15 * MINUTE, ...SWEEP },
  [QUEUES.inventoryAccount]: {
    policy: 'stately',
    expireInSeconds: 24 * HOUR,
    heartbeatSeconds: MINUTE,
    retryLimit: 3,
    retryBackoff: true,
  },
  [QUEUES.inventorySweep]: { policy: 'standard', expireInSeconds: 15 * MINUTE, ...SWEEP },
  // One run per account at a time (two would swap the same periods); a month of reports may take long to read.
  [QUEUES.analyticsIngest]: {
    policy: 'stately',
    expireInSeconds: 6 * HOUR,
    heartbeatSeconds: MINUTE,
    retryLimit: 2,
    retryBackoff: true,
  },
  [QUEUES.analyticsSweep]: { policy: 'standard', expireInSeconds: 15 * MINUTE, ...SWEEP },
  [QUEUES.alertsCheck]: {
    policy: 'stately',
    expireInSeconds: 15 * MINUTE,
    retryLimit: 3,
    retryBackoff: true,
  },
  [QUEUES.alertsSweep]: { policy: 'standard', expireInSeconds: 15 * MINUTE, ...SWEEP },
  // Evaluations of one organisation pile up behind each other after ingestions: one waits, one runs.
  [QUEUES.financeEvaluate]: {
    policy: 'stately',
    expireInSeconds: 15 * MINUTE,
    retryLimit: 3,
    retryBackoff: true,
  },
  // One hourly check at a time; the digest rows make a second one harmless anyway.
  [QUEUES.financeDigest]: { policy: 'singleton', expireInSeconds: 30 * MINUTE, ...SWEEP },
  [QUEUES.uploadsSweep]: { policy: 'standard', expireInSeconds: 15 * MINUTE, ...SWEEP },
  [QUEUES.transfersBatch]: {
    policy: 'standard',
    // A transfer the user just started should begin now, not at the worker's next poll.
    notify: true,
    expireInSeconds: 24 * HOUR,
    heartbeatSeconds: MINUTE,
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
  },
  [QUEUES.transfersSweep]: { policy: 'standard', expireInSeconds: 15 * MINUTE, ...SWEEP },
  // One prune at a time (two would race for the same rows); a long first run after an upgrade may take a while,
  // and a failed one is simply retried: it carries on where it stopped.
  [QUEUES.transfersRetention]: {
    policy: 'singleton',
    expireInSeconds: 6 * HOUR,
    retryLimit: 2,
    retryBackoff: true,
    ...SWEEP,
  },
  [QUEUES.syncTrigger]: {
    policy: 'standard',
    expireInSeconds: 15 * MINUTE,
    retryLimit: 3,
    retryBackoff: true,
  },
  [QUEUES.syncCycle]: {
    policy: 'stately',
    notify: true,
    expireInSeconds: 24 * HOUR,
    heartbeatSeconds: MINUTE,
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
  },
  [QUEUES.syncSweep]: { policy: 'standard', expireInSeconds: 15 * MINUTE, ...SWEEP },
  // An encode the user just asked for should start now; a long film may take hours, its heartbeat says it lives.
  // A retry (its worker died) starts the job over and writes the same keys.
  [QUEUES.encodingJob]: {
    policy: 'standard',
    notify: true,
    expireInSeconds: 12 * HOUR,
    heartbeatSeconds: MINUTE,
    retryLimit: 2,
    retryDelay: 5,
    retryBackoff: true,
  },
  [QUEUES.encodingSweep]: { policy: 'singleton', expireInSeconds: 15 * MINUTE, ...SWEEP },
  [QUEUES.hybrikSweep]: { policy: 'singleton', expireInSeconds: 15 * MINUTE, ...SWEEP },
  // A profile job is an encode with more outputs: the same policy.
  [QUEUES.hybrikJob]: {
    policy: 'standard',
    notify: true,
    expireInSeconds: 12 * HOUR,
    heartbeatSeconds: MINUTE,
    retryLimit: 2,
    retryDelay: 5,
    retryBackoff: true,
  },
  // One roll at a time is enough (a daily cron); a failed roll is retried, and rolling twice changes nothing.
  [QUEUES.billingRoll]: {
    policy: 'singleton',
    expireInSeconds: 30 * MINUTE,
    retryLimit: 3,
    retryBackoff: true,
    ...SWEEP,
  },
};

/**
 * Handlers of one queue running at once in one worker process (I/O-bound walks run side by side). Transfer jobs
 * get room for several organisations at their cap (`TRANSFER_BATCHES_PER_ORG`) at once: the copy buffers come from
 * one budget per process (`TRANSFER_MEMORY_MB`) whatever the number of jobs.
 */
export const LOCAL_CONCURRENCY: Partial<Record<QueueName, number>> = {
  [QUEUES.inventoryAccount]: 3,
  [QUEUES.alertsCheck]: 2,
  [QUEUES.transfersBatch]: 8,
  [QUEUES.syncCycle]: 4,
  // ffmpeg is CPU-bound: two encodes per worker process.
  [QUEUES.encodingJob]: 2,
  [QUEUES.hybrikJob]: 2,
};

/**
 * How often an idle handler slot of a `notify` queue looks for work. NOTIFY wakes it when a job is sent, but not
 * when a slot frees up or an organisation drops under its cap, and pg-boss then waits for its backstop poll (30 s
 * by default, counted from the last fetch: a slot that finished a 5 s job slept 25 s more). Two seconds bounds that
 * wait; a fetch is one indexed query.
 */
export const NOTIFY_POLLING_SECONDS = 2;

/**
 * Jobs of one organisation running at once across every worker process (pg-boss `groupConcurrency`, counted in
 * the database; jobs carry `group: { id: organizationId }`), so one organisation's burst leaves slots to others.
 */
export const INVENTORY_JOBS_PER_ORG = 2;
export const SYNC_CYCLES_PER_ORG = 2;

interface BossOptions {
  connectionString: string;
  /** Runs cron schedules and maintenance (the worker and all-in-one roles). */
  schedule: boolean;
}

export async function startBoss(options: BossOptions, log: Logger): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: options.connectionString,
    schema: 'pgboss',
    application_name: 'cumulo-jobs',
    schedule: options.schedule,
    supervise: options.schedule,
    max: 5,
    // Queues marked `notify` wake their workers at once instead of at the next poll (2 s by default).
    useListenNotify: true,
  });
  boss.on('error', (error: unknown) => log.error({ err: error }, 'job queue error'));
  // A job sent while a request is handled carries the request's id (its log lines then name it).
  carryRequestIds(boss);
  await boss.start();
  await reconcileQueues(boss, log);
  return boss;
}

/**
 * Creates missing queues and brings existing ones to QUEUE_DEFINITIONS. A queue's policy cannot be changed in
 * place; one created under an older policy is recreated (its waiting jobs are dropped: every queue here is
 * refilled by its sweep, and every handler is safe to run again).
 */
async function reconcileQueues(boss: PgBoss, log: Logger) {
  for (const [name, definition] of Object.entries(QUEUE_DEFINITIONS)) {
    const existing = await boss.getQueue(name);
    if (existing && (existing.policy ?? 'standard') !== definition.policy) {
      log.warn({ queue: name, from: existing.policy, to: definition.policy }, 'recreating job queue');
      await boss.deleteQueue(name);
    } else if (existing) {
      const { policy: _policy, ...settings } = definition;
      await boss.updateQueue(name, settings);
      continue;
    }
    await boss.createQueue(name, definition);
  }
}

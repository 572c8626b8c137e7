// Cumulo's side of bench/sync: a replication job that follows deletes, its guardrail set high enough that the
// run's deletes need no approval, and its cycles started through the product's cycle service (as "run now" does)
// and advanced by the worker role in its own process. Timed from the start to the cycle's end. The bench runs
// two: an untimed first one before the source changes (a full check that builds the job's state), then the timed
// one after.
import { saveReplicationBody, SYNC_CYCLE_STATUS, type SaveReplicationBody } from '@cumulo/contract';
import type { SyncCycleRow, SyncJobRow } from '@cumulo/server';
import type { CumuloBench, WorkerSettings } from '../transfer/cumulo.ts';
import { settleDisk } from '../shared/settle.ts';

/** Far beyond any healthy cycle of the bench: a stuck cycle fails the run instead of hanging it. */
const CYCLE_DEADLINE_MS = 10 * 60_000;

export interface SyncRun {
  seconds: number;
  peakRssMb: number;
  cycle: SyncCycleRow;
}

/**
 * A replication job from `source` to `destination` (account ids and buckets) that deletes what the source lost,
 * created as /replication creates one (POST /sync/insert with the saveSyncWasabi payload).
 */
export async function replicationJob(
  cumulo: CumuloBench,
  source: { accountId: string; bucket: string },
  destination: { accountId: string; bucket: string },
): Promise<SyncJobRow> {
  const { job } = await cumulo.services.sync.insert(
    cumulo.principal,
    saveReplicationBody.parse({
      sourceCloudAccountId: source.accountId,
      sourceBucket: source.bucket,
      destinationCloudAccountId: destination.accountId,
      destinationBucket: destination.bucket,
      allowDelete: true,
      // The bench deletes 0.5 % of the objects: above the default guardrail (100), which would wait for a person.
      deleteThresholdCount: 1000,
      deleteThresholdPercent: 100,
    } satisfies SaveReplicationBody),
  );
  const row = await cumulo.db.orm.query.syncJobs.findFirst({
    where: (jobs, { eq }) => eq(jobs.id, job.info.id),
  });
  if (!row) throw new Error('the replication job was not created');
  // A daily job's cron fires at its creation minute, so the worker started next would run a scheduled cycle right
  // away and the bench's own cycle would answer 409 "already running": the bench starts its cycle itself.
  await cumulo.services.syncCycles.unscheduleJob(row.id);
  return row;
}

/** Jobs of `queue` still to run or running in the worker. */
async function pendingJobs(cumulo: CumuloBench, queue: string): Promise<number> {
  const { rows } = await cumulo.db.pool.query<{ pending: number }>(
    `select count(*)::int as pending from pgboss.job where name = $1 and state in ('created', 'retry', 'active')`,
    [queue],
  );
  return rows[0]?.pending ?? 0;
}

/**
 * Runs one real cycle of `job` with a worker process up. Before the clock starts, the worker finishes what
 * connecting the accounts queued (their inventory walks) and `beforeStart` runs (the bench resets its counts).
 */
export async function runCycle(
  cumulo: CumuloBench,
  job: SyncJobRow,
  settings: WorkerSettings,
  beforeStart: () => void,
): Promise<SyncRun> {
  const { result, peakRssMb } = await cumulo.withWorker(settings, async () => {
    while ((await pendingJobs(cumulo, 'inventory.account')) > 0)
      await new Promise((resolve) => setTimeout(resolve, 200));
    beforeStart();
    settleDisk();
    const started = performance.now();
    const cycle = await cumulo.services.syncCycles.runNow(job, { dryRun: false });
    for (;;) {
      const { rows } = await cumulo.db.pool.query<{ finished: boolean; phase: string }>(
        'select finished_at is not null as finished, phase from sync_cycles where id = $1',
        [cycle.id],
      );
      // The guardrail is set above the bench's deletes: a cycle waiting for a person would wait forever here.
      if (rows[0]?.phase === 'awaiting_approval') throw new Error('the cycle waits for an approval');
      if (performance.now() - started > CYCLE_DEADLINE_MS)
        throw new Error('the cycle did not finish in time');
      if (rows[0]?.finished) {
        const seconds = (performance.now() - started) / 1000;
        const row = await cumulo.db.orm.query.syncCycles.findFirst({
          where: (cycles, { eq }) => eq(cycles.id, cycle.id),
        });
        if (!row) throw new Error('the cycle is gone');
        return { seconds, cycle: row };
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  return { ...result, peakRssMb };
}

export const cycleCompleted = (cycle: SyncCycleRow) => cycle.status === SYNC_CYCLE_STATUS.completed;
export const cycleNoChange = (cycle: SyncCycleRow) => cycle.status === SYNC_CYCLE_STATUS.noChange;

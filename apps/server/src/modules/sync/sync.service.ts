import type { z } from 'zod';
import {
  REPLICATION_OPERATION,
  SYNC_CYCLE_PAGE,
  SYNC_DELETE_GUARD,
  SYNC_FREQUENCY_LABEL,
  type SyncFrequency,
  syncMessages,
  type saveReplicationBody,
  type saveSyncBody,
  type SyncCycle,
  type SyncJob,
} from '@cumulo/contract';
import { authorize, requireService } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { destinationFolder } from '../transfers/engine/keys.ts';
import { refuseOverlap, requireBuckets, requireChargeConfirmed } from '../transfers/transfer-guards.ts';
import type { TransfersRepo } from '../transfers/transfers.repo.ts';
import type { SyncCycleControl } from './sync-cycles.port.ts';
import type { SyncJobKind, SyncJobsRepo } from './sync-jobs.repo.ts';
import { toSyncCycle, toSyncJob, type SyncJobRow } from './sync.views.ts';
import { changesOf, recordAudit, type AuditEvent } from '../audit/audit.writer.ts';
import type { Database } from '../../db/client.ts';

/** A sync job as its audit entries name it: from where to where (jobs have no name of their own). */
const jobResource = (job: SyncJobRow) =>
  `${job.sourceBucket}/${job.sourcePath} → ${job.destinationBucket}/${job.destinationPath}`;

/** What a job's audit entries show: where it copies, when, and how far its deletes may go. */
const auditedJob = (job: SyncJobRow, names: { source: string; destination: string }) => ({
  kind: job.kind,
  source: `${names.source}: ${job.sourceBucket}/${job.sourcePath}`,
  destination: `${names.destination}: ${job.destinationBucket}/${job.destinationPath}`,
  schedule: SYNC_FREQUENCY_LABEL[job.frequency as SyncFrequency] ?? job.frequency,
  operation: job.operation,
  allowDelete: job.allowDelete,
  active: job.active,
  quarantineDays: job.quarantineDays,
  deleteThresholdCount: job.deleteThresholdCount,
  deleteThresholdPercent: job.deleteThresholdPercent,
});

/** The guardrail and state a change of options or of `active` is about. */
const jobSettings = (job: SyncJobRow) => ({
  active: job.active,
  quarantineDays: job.quarantineDays,
  deleteThresholdCount: job.deleteThresholdCount,
  deleteThresholdPercent: job.deleteThresholdPercent,
});

/** A validated saveSync (/Sync) or saveSyncWasabi (/replication) payload. */
export type SyncJobPayload = z.output<typeof saveSyncBody> | z.output<typeof saveReplicationBody>;

interface SyncOptions {
  id: string;
  quarantineDays: number | null;
  deleteThresholdCount: number;
  deleteThresholdPercent: number;
}

/**
 * The sync job calls (spec 000 §7, 001 §7): jobs' rows, their checks and their cycles as the screens read them.
 * Schedules, cycles, the guardrail and deletes are the cycle engine's, reached through `SyncCycleControl`.
 */
export class SyncService {
  constructor(
    private readonly repo: SyncJobsRepo,
    private readonly accounts: CloudAccountsRepo,
    private readonly charges: Pick<TransfersRepo, 'chargeConfirmed'>,
    private readonly stores: StoreRegistry,
    private readonly control: SyncCycleControl,
    private readonly log: Logger,
  ) {}

  async list(principal: Principal, kind?: SyncJobKind): Promise<{ data: SyncJob[] }> {
    requireService(principal, 'sync');
    const now = new Date();
    return { data: (await this.repo.list(principal.organizationId, kind)).map((job) => toSyncJob(job, now)) };
  }

  /**
   * Both accounts the organisation's (404), the charge confirmed (403), no copy onto itself or inside its own
   * source (400), the source bucket there (400 in the provider's words); then the row and its schedule. A guardrail
   * looser than the default is an Owner's or Admin's call (403): anyone else's job, allowDelete or not, deletes
   * no more than the default lets a cycle delete without an approval.
   */
  async insert(principal: Principal, payload: SyncJobPayload): Promise<{ message: string; job: SyncJob }> {
    authorize(principal, 'sync.create');
    const values = jobValues(payload);
    if (
      values.deleteThresholdCount > SYNC_DELETE_GUARD.count ||
      values.deleteThresholdPercent > SYNC_DELETE_GUARD.percent
    ) {
      authorize(principal, 'sync.guard');
    }
    const [source, destination] = await Promise.all([
      this.#account(principal.organizationId, values.sourceCloudAccountId),
      this.#account(principal.organizationId, values.destinationCloudAccountId),
    ]);
    await requireChargeConfirmed(this.charges, principal.organizationId);
    refuseOverlap(this.stores, source, destination, { ...values, files: null }, syncMessages);
    await requireBuckets(
      this.stores,
      { account: source, bucket: values.sourceBucket },
      { account: destination, bucket: values.destinationBucket },
    );

    const names = { source: source.name, destination: destination.name };
    const job = await this.repo.transaction(async (tx) => {
      const created = await tx.insert({
        ...values,
        organizationId: principal.organizationId,
        createdBy: principal.userId,
      });
      await this.#record(tx.orm, principal, created, 'Added', changesOf(null, auditedJob(created, names)));
      return created;
    });
    try {
      await this.control.scheduleJob(job);
    } catch (error) {
      // A job without its schedule would never run: take it back rather than list a dead job. Its Added entry
      // stays (the trail is append-only), so taking it back is an entry too.
      this.log.error({ err: error, syncJobId: job.id }, 'sync job could not be scheduled');
      await this.repo.transaction(async (tx) => {
        const removed = await tx.delete(principal.organizationId, job.id);
        if (removed) await this.#record(tx.orm, principal, removed, 'Deleted', []);
      });
      throw error;
    }
    return { message: syncMessages.saved, job: await this.#view(principal, job.id) };
  }

  async activate(principal: Principal, id: string, active: boolean): Promise<{ message: string }> {
    const before = await this.#job(principal, id);
    authorize(principal, 'sync.manage', before);
    const job = await this.repo.transaction(async (tx) => {
      const after = await tx.setActive(principal.organizationId, id, active);
      if (after) await this.#recordSettings(tx.orm, principal, before, after);
      return after;
    });
    if (!job) throw notFound(syncMessages.unknownJob);
    await this.control.scheduleJob(job);
    return { message: active ? syncMessages.activated : syncMessages.deactivated };
  }

  /** Removes the job from the product only: its rows and schedule go, no object of either bucket is touched. */
  async remove(principal: Principal, id: string): Promise<{ message: string }> {
    const before = await this.#job(principal, id);
    authorize(principal, 'sync.manage', before);
    const job = await this.repo.transaction(async (tx) => {
      const removed = await tx.delete(principal.organizationId, id);
      if (removed) {
        const names = await this.#accountNames(principal, removed);
        await this.#record(
          tx.orm,
          principal,
          removed,
          'Deleted',
          changesOf(auditedJob(removed, names), null),
        );
      }
      return removed;
    });
    if (!job) throw notFound(syncMessages.unknownJob);
    try {
      await this.control.unscheduleJob(job.id);
    } catch (error) {
      // A trigger of a deleted job does nothing, so a schedule left behind is harmless.
      this.log.warn({ err: error, syncJobId: job.id }, 'schedule of a deleted sync job not removed');
    }
    return { message: syncMessages.deleted };
  }

  async runNow(principal: Principal, id: string): Promise<{ message: string; cycle: SyncCycle }> {
    const job = await this.#job(principal, id);
    authorize(principal, 'sync.manage', job);
    const cycle = await this.control.runNow(job, {
      dryRun: false,
      record: (tx, started) =>
        this.#record(tx, principal, job, 'Modified', [
          { property: 'run', value: `Run now (cycle ${started.id})`, initial: null },
        ]),
    });
    return { message: syncMessages.runStarted, cycle: toSyncCycle(cycle) };
  }

  async dryRun(principal: Principal, id: string): Promise<{ message: string; cycle: SyncCycle }> {
    const job = await this.#job(principal, id);
    authorize(principal, 'sync.dryRun', job);
    const cycle = await this.control.runNow(job, { dryRun: true });
    return { message: syncMessages.dryRunStarted, cycle: toSyncCycle(cycle) };
  }

  async cycles(principal: Principal, id: string): Promise<{ data: SyncCycle[] }> {
    requireService(principal, 'sync');
    const job = await this.#job(principal, id);
    const rows = await this.repo.cycles(principal.organizationId, job.id, SYNC_CYCLE_PAGE);
    return { data: rows.map(toSyncCycle) };
  }

  /** An Owner's or Admin's decision on the deletes a cycle waits to make. */
  async decide(
    principal: Principal,
    cycleId: string,
    approve: boolean,
  ): Promise<{ message: string; cycle: SyncCycle }> {
    authorize(principal, 'sync.decide');
    const cycle = await this.repo.findCycle(principal.organizationId, cycleId);
    if (!cycle) throw notFound(syncMessages.unknownCycle);
    const job = await this.repo.find(principal.organizationId, cycle.syncJobId);
    const decided = await this.control.decide(cycle, principal.userId, approve, async (tx, row) => {
      if (!job) return;
      await this.#record(tx, principal, job, 'Modified', [
        {
          property: 'deletes',
          value: `${approve ? 'Approved' : 'Rejected'} (${row.deleteCount} of cycle ${row.id})`,
          initial: 'Awaiting approval',
        },
      ]);
    });
    return {
      message: approve ? syncMessages.approved : syncMessages.rejected,
      cycle: toSyncCycle(decided),
    };
  }

  /** The guardrail and quarantine options (Owner or Admin). */
  async setOptions(principal: Principal, options: SyncOptions): Promise<{ message: string; job: SyncJob }> {
    authorize(principal, 'sync.guard');
    const { id, ...values } = options;
    const job = await this.repo.transaction(async (tx) => {
      const before = await tx.find(principal.organizationId, id);
      const after = before && (await tx.setOptions(principal.organizationId, id, values));
      if (before && after) await this.#recordSettings(tx.orm, principal, before, after);
      return after;
    });
    if (!job) throw notFound(syncMessages.unknownJob);
    await this.control.scheduleJob(job);
    return { message: syncMessages.saved, job: await this.#view(principal, job.id) };
  }

  /** One entry about the job, on the transaction of its change. */
  async #record(
    tx: Database,
    principal: Principal,
    job: SyncJobRow,
    type: AuditEvent['type'],
    changes: AuditEvent['changes'],
  ) {
    await recordAudit(tx, principal, {
      entity: 'Sync job',
      type,
      resource: jobResource(job),
      resourceId: job.id,
      changes,
    });
  }

  /** A Modified entry for what changed of the job's state and guardrail; none when nothing did. */
  async #recordSettings(tx: Database, principal: Principal, before: SyncJobRow, after: SyncJobRow) {
    const changes = changesOf(jobSettings(before), jobSettings(after));
    if (changes.length > 0) await this.#record(tx, principal, after, 'Modified', changes);
  }

  async #accountNames(principal: Principal, job: SyncJobRow) {
    const [source, destination] = await Promise.all([
      this.accounts.find(principal.organizationId, job.sourceCloudAccountId),
      this.accounts.find(principal.organizationId, job.destinationCloudAccountId),
    ]);
    return {
      source: source?.name ?? job.sourceCloudAccountId,
      destination: destination?.name ?? job.destinationCloudAccountId,
    };
  }

  async #view(principal: Principal, id: string): Promise<SyncJob> {
    const view = await this.repo.view(principal.organizationId, id);
    if (!view) throw notFound(syncMessages.unknownJob);
    return toSyncJob(view);
  }

  async #job(principal: Principal, id: string): Promise<SyncJobRow> {
    const job = await this.repo.find(principal.organizationId, id);
    if (!job) throw notFound(syncMessages.unknownJob);
    return job;
  }

  async #account(organizationId: string, id: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(organizationId, id);
    if (!account) throw notFound();
    return account;
  }
}

/** A payload's job columns: saveSync makes a "sync" that never deletes, saveSyncWasabi a "replication". */
function jobValues(payload: SyncJobPayload) {
  const options = {
    sourcePath: payload.sourcePath,
    destinationPath: destinationFolder(payload.destinationPath),
    quarantineDays: payload.quarantineDays,
    deleteThresholdCount: payload.deleteThresholdCount,
    deleteThresholdPercent: payload.deleteThresholdPercent,
    frequency: payload.frequency,
  };
  if ('source_cloud' in payload) {
    return {
      ...options,
      kind: 'sync' as const,
      sourceCloudAccountId: payload.source_cloud,
      sourceBucket: payload.source_bucket,
      destinationCloudAccountId: payload.destination_cloud,
      destinationBucket: payload.destination_bucket,
      operation: REPLICATION_OPERATION,
      allowDelete: false,
      active: true,
    };
  }
  return {
    ...options,
    kind: 'replication' as const,
    sourceCloudAccountId: payload.sourceCloudAccountId,
    sourceBucket: payload.sourceBucket,
    destinationCloudAccountId: payload.destinationCloudAccountId,
    destinationBucket: payload.destinationBucket,
    operation: payload.operation,
    allowDelete: payload.allowDelete,
    active: payload.active,
  };
}

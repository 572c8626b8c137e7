import type { z } from 'zod';
import {
  REPLICATION_OPERATION,
  SYNC_CYCLE_PAGE,
  SYNC_DELETE_GUARD,
  syncMessages,
  type saveReplicationBody,
  type saveSyncBody,
  type SyncCycle,
  type SyncJob,
} from '@cumulo/contract';
import { authorize, requireService } from '../../authz/policy.ts';
import type { Principal } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import type { Logger } from '../../logger.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import { destinationFolder } from '../transfers/engine/keys.ts';
import { refuseOverlap, requireBucket, requireChargeConfirmed } from '../transfers/transfer-guards.ts';
import type { TransfersRepo } from '../transfers/transfers.repo.ts';
import type { SyncCycleControl } from './sync-cycles.port.ts';
import type { SyncJobKind, SyncJobsRepo } from './sync-jobs.repo.ts';
import { toSyncCycle, toSyncJob, type SyncJobRow } from './sync.views.ts';

/** A validated saveSync (/Sync) or saveSyncWasabi (/replication) payload. */
export type SyncJobPayload = z.output<typeof saveSyncBody> | z.output<typeof saveReplicationBody>;

export interface SyncOptions {
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
    await requireBucket(this.stores, source, values.sourceBucket);

    const job = await this.repo.insert({
      ...values,
      organizationId: principal.organizationId,
      createdBy: principal.userId,
    });
    try {
      await this.control.scheduleJob(job);
    } catch (error) {
      // A job without its schedule would never run: take it back rather than list a dead job.
      this.log.error({ err: error, syncJobId: job.id }, 'sync job could not be scheduled');
      await this.repo.delete(principal.organizationId, job.id);
      throw error;
    }
    return { message: syncMessages.saved, job: await this.#view(principal, job.id) };
  }

  async activate(principal: Principal, id: string, active: boolean): Promise<{ message: string }> {
    authorize(principal, 'sync.manage', await this.#job(principal, id));
    const job = await this.repo.setActive(principal.organizationId, id, active);
    if (!job) throw notFound(syncMessages.unknownJob);
    await this.control.scheduleJob(job);
    return { message: active ? syncMessages.activated : syncMessages.deactivated };
  }

  /** Removes the job from the product only: its rows and schedule go, no object of either bucket is touched. */
  async remove(principal: Principal, id: string): Promise<{ message: string }> {
    authorize(principal, 'sync.manage', await this.#job(principal, id));
    const job = await this.repo.delete(principal.organizationId, id);
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
    const cycle = await this.control.runNow(job, { dryRun: false });
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
    const decided = await this.control.decide(cycle, principal.userId, approve);
    return {
      message: approve ? syncMessages.approved : syncMessages.rejected,
      cycle: toSyncCycle(decided),
    };
  }

  /** The guardrail and quarantine options (Owner or Admin). */
  async setOptions(principal: Principal, options: SyncOptions): Promise<{ message: string; job: SyncJob }> {
    authorize(principal, 'sync.guard');
    const { id, ...values } = options;
    const job = await this.repo.setOptions(principal.organizationId, id, values);
    if (!job) throw notFound(syncMessages.unknownJob);
    await this.control.scheduleJob(job);
    return { message: syncMessages.saved, job: await this.#view(principal, job.id) };
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

import type { PgBoss } from 'pg-boss';
import {
  SYNC_CYCLE_STATUS,
  SYNC_EVENTS,
  formatBytes,
  syncMessages,
  type NotificationItem,
} from '@cumulo/contract';
import { AppError } from '../../errors.ts';
import { QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { MailService } from '../../mail/mail.service.ts';
import type { BusMessage } from '../../realtime/events.ts';
import type { AlertsRepo } from '../alerts/alerts.repo.ts';
import type { CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import type { TransferQuota } from '../transfers/transfer-quota.ts';
import { approvalMail } from './approval.mail.ts';
import { CycleRunner, type StepOutcome } from './engine/cycle-runner.ts';
import { purgeQuarantine } from './engine/deletions.ts';
import { cronOf } from './engine/schedule.ts';
import { isOverlap, type SyncCyclesRepo } from './sync-cycles.repo.ts';
import type { RecordCycleChange, SyncCycleControl } from './sync-cycles.port.ts';
import { toSyncCycle, type SyncCycleRow, type SyncJobRow } from './sync.views.ts';

export interface SyncCycleJob {
  cycleId: string;
}
export interface SyncTriggerJob {
  syncJobId: string;
}

interface SyncCycleServiceDeps {
  repo: SyncCyclesRepo;
  accounts: CloudAccountsRepo;
  stores: StoreRegistry;
  alertsRepo: AlertsRepo;
  mail: MailService;
  boss: PgBoss;
  publish: (message: BusMessage) => Promise<void>;
  /** Queues the transfer jobs of a batch (the transfer engine's fan-out). */
  enqueueBatch: (batchId: string) => Promise<void>;
  /** `transfer.batch` event of a batch (an event only: its end is the transfers' `onBatchFinished`). */
  publishBatch: (batchId: string) => Promise<void>;
  publicUrl: string;
  log: Logger;
  /** The c2c quota the cycles' copies count against (transfers README "Quota"); absent: nothing is metered. */
  quota?: TransferQuota;
}

/** Where an approver decides (the bell entry's link and the e-mail's). */
const APPROVAL_PATH = '/replication';
/** The bell entry of a cycle waiting for approval links to it; the sweep knows by this link it was announced. */
const approvalLink = (cycleId: string) => `${APPROVAL_PATH}?cycle=${cycleId}`;

const alreadyRunning = () => new AppError(409, 'SYNC_ALREADY_RUNNING', syncMessages.alreadyRunning);

/**
 * The cycle engine behind the job API (sync-cycles.port.ts): schedules, starting cycles, the approval decision,
 * and what the `sync.*` jobs run (README "How a cycle flows").
 */
export class SyncCycleService implements SyncCycleControl {
  readonly runner: CycleRunner;
  readonly #deps: SyncCycleServiceDeps;

  constructor(deps: SyncCycleServiceDeps) {
    this.#deps = deps;
    this.runner = new CycleRunner(
      deps.repo,
      deps.accounts,
      deps.stores,
      {
        publishCycle: (cycle) => this.publishCycle(cycle),
        startBatch: async (batchId) => {
          await deps.enqueueBatch(batchId);
          await deps.publishBatch(batchId);
        },
        approvalNeeded: (cycle, job) => this.#askApproval(cycle, job),
        reserveCopies: async (batch, bytes) => (deps.quota ? deps.quota.reserve(batch, bytes) : true),
        batchDropped: async (batch) => deps.quota?.settleDropped(batch),
      },
      deps.log,
    );
  }

  async scheduleJob(job: SyncJobRow): Promise<void> {
    if (!job.active) return this.unscheduleJob(job.id);
    await this.#deps.boss.schedule(
      QUEUES.syncTrigger,
      cronOf(job),
      { syncJobId: job.id } satisfies SyncTriggerJob,
      { key: job.id, tz: 'UTC' },
    );
  }

  async unscheduleJob(jobId: string): Promise<void> {
    await this.#deps.boss.unschedule(QUEUES.syncTrigger, jobId);
  }

  async runNow(
    job: SyncJobRow,
    options: { dryRun: boolean; record?: RecordCycleChange },
  ): Promise<SyncCycleRow> {
    if (!options.dryRun && !job.active) throw new AppError(409, 'SYNC_INACTIVE', syncMessages.inactive);
    const cycle = await this.#start(job, 'manual', options.dryRun, options.record);
    if (!cycle) throw alreadyRunning();
    return cycle;
  }

  /** A schedule fired (`sync.trigger`): a cycle unless the job is gone, deactivated, or still running one. */
  async trigger(syncJobId: string): Promise<SyncCycleRow | null> {
    const job = await this.#deps.repo.findJob(syncJobId);
    if (!job || !job.active) return null;
    const cycle = await this.#start(job, 'schedule', false);
    if (!cycle) this.#deps.log.info({ syncJobId }, 'sync schedule skipped: a cycle is still running');
    return cycle;
  }

  async decide(
    cycle: SyncCycleRow,
    userId: string,
    approve: boolean,
    record?: RecordCycleChange,
  ): Promise<SyncCycleRow> {
    const { repo } = this.#deps;
    const decision = { decidedBy: userId, decidedAt: new Date() };
    const row = await repo.transaction(async (tx) => {
      const decided = approve
        ? await tx.advance(cycle.id, ['awaiting_approval'], {
            ...decision,
            approval: 'approved',
            phase: 'deleting',
          })
        : await tx.finish(cycle.id, SYNC_CYCLE_STATUS.completed, { ...decision, approval: 'rejected' }, [
            'awaiting_approval',
          ]);
      if (decided) await record?.(tx.orm, decided);
      return decided;
    });
    if (!row) throw new AppError(409, 'SYNC_NOT_WAITING', syncMessages.notWaiting);
    if (approve) await this.#enqueueCycle(row.id);
    else await repo.keepPending(row.id);
    await this.publishCycle(row);
    return row;
  }

  /** Runs a cycle's next steps in this process (the `sync.cycle` handler; tests call it directly). */
  advance(cycleId: string): Promise<StepOutcome> {
    return this.runner.advance(cycleId);
  }

  /** A cycle whose batch just ended moves on (called by worker-services.ts `onBatchFinished`, once per batch end). */
  async onBatchFinished(batchId: string): Promise<void> {
    const cycleId = await this.#deps.repo.cycleOfFinishedBatch(batchId);
    if (cycleId) await this.#enqueueCycle(cycleId);
  }

  /**
   * What dead workers and missed hooks left (`sync.sweep`): an unfinished cycle with work to do and no live job
   * gets one — a job still marked running whose cycle lock nobody holds belongs to a dead worker and is failed so
   * that the queue lets the new one run; held batches of deleted jobs are dropped; quarantines past their days
   * are purged.
   */
  async sweep(now: Date = new Date()): Promise<{ queued: number; purged: number; dropped: number }> {
    const { repo, boss } = this.#deps;
    const orphans = await repo.dropOrphanBatches();
    for (const batch of orphans) await this.#deps.quota?.settleDropped(batch);
    const dropped = orphans.length;
    let queued = 0;
    for (const cycle of await repo.cyclesToResume()) {
      if (cycle.waiting > 0) continue;
      if (cycle.active.length > 0) {
        if (await repo.cycleLocked(cycle.id)) continue;
        await boss.fail(QUEUES.syncCycle, cycle.active);
      }
      await this.#enqueueCycle(cycle.id);
      queued += 1;
    }
    for (const cycle of await repo.unannouncedApprovals(approvalLink(''))) {
      const job = await repo.findJob(cycle.syncJobId);
      if (job) await this.#askApproval(cycle, job);
    }
    const purged = await this.purgeQuarantine(now);
    return { queued, purged, dropped };
  }

  purgeQuarantine(now: Date = new Date()): Promise<number> {
    const { repo, accounts, stores } = this.#deps;
    return purgeQuarantine(
      repo,
      async (organizationId, accountId) => {
        const account = await accounts.find(organizationId, accountId);
        return account ? stores.storeFor(account) : null;
      },
      now,
    );
  }

  async publishCycle(cycle: SyncCycleRow): Promise<void> {
    await this.#deps
      .publish({
        organizationId: cycle.organizationId,
        service: 'sync',
        type: SYNC_EVENTS.cycle,
        data: toSyncCycle(cycle),
      })
      .catch((error: unknown) =>
        this.#deps.log.warn({ err: error, cycleId: cycle.id }, 'sync cycle event not published'),
      );
  }

  async #start(
    job: SyncJobRow,
    trigger: 'schedule' | 'manual',
    dryRun: boolean,
    record?: RecordCycleChange,
  ): Promise<SyncCycleRow | null> {
    let cycle: SyncCycleRow | null;
    try {
      cycle = await this.#deps.repo.startCycle(job, trigger, dryRun, record);
    } catch (error) {
      if (isOverlap(error)) return null;
      throw error;
    }
    if (!cycle) return null;
    await this.#enqueueCycle(cycle.id);
    await this.publishCycle(cycle);
    return cycle;
  }

  /** Grouped by organisation (jobs/boss.ts `SYNC_CYCLES_PER_ORG`): one organisation's diffs leave slots to others. */
  async #enqueueCycle(cycleId: string) {
    const organizationId = await this.#deps.repo.organizationOfCycle(cycleId);
    if (!organizationId) return;
    await this.#deps.boss.send(QUEUES.syncCycle, { cycleId } satisfies SyncCycleJob, {
      singletonKey: cycleId,
      group: { id: organizationId },
    });
  }

  /** Bell entry for Owners and Admins only, and an e-mail to each, with the count and bytes. */
  async #askApproval(cycle: SyncCycleRow, job: SyncJobRow) {
    const { alertsRepo, repo, mail, publicUrl, log } = this.#deps;
    const sync = `${job.sourceBucket} to ${job.destinationBucket}`;
    const title = syncMessages.approvalSubject(sync);
    const description = syncMessages.waitingApproval(cycle.deleteCount, formatBytes(cycle.deleteBytes));
    const notification = await alertsRepo.insertNotification({
      organizationId: cycle.organizationId,
      title,
      description,
      status: 'warning',
      audience: 'approvers',
      link: approvalLink(cycle.id),
    });
    const item: NotificationItem = {
      id: notification.id,
      read: false,
      title,
      description,
      status: notification.status,
      last_notified: notification.createdAt.toISOString(),
      avatar: notification.avatar,
      link: notification.link,
    };
    const approvers = await repo.approvers(cycle.organizationId);
    for (const approver of approvers) {
      // Only approvers' sockets get it: the bell of a User never shows an approval they cannot give.
      await this.#deps
        .publish({
          organizationId: cycle.organizationId,
          userId: approver.id,
          type: 'notification',
          data: item,
        })
        .catch((error: unknown) =>
          log.warn({ err: error, cycleId: cycle.id }, 'approval bell not published'),
        );
      try {
        await mail.send(
          approvalMail(
            approver.email,
            approver.firstName,
            title,
            description,
            `${publicUrl}${approvalLink(cycle.id)}`,
          ),
        );
      } catch (error) {
        // The bell shows the request; a mail server outage must not hold the cycle.
        log.warn({ err: error, cycleId: cycle.id }, 'approval e-mail could not be sent');
      }
    }
  }
}

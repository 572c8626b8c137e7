import type { Database } from '../../db/client.ts';
import type { SyncCycleRow, SyncJobRow } from './sync.views.ts';

/** Writes the audit entry of a member's request on the transaction of the cycle change it records. */
export type RecordCycleChange = (tx: Database, cycle: SyncCycleRow) => Promise<void>;

/**
 * What the job API (sync.service.ts) asks of the cycle engine (engine/, sync.jobs.ts). The service owns the jobs'
 * rows and the calls; the engine owns schedules, cycles, the guardrail and deletes.
 */
export interface SyncCycleControl {
  /** Puts the job's pg-boss schedule in step with the row: `cronOf(job)` when active, none when not. */
  scheduleJob(job: SyncJobRow): Promise<void>;
  /** Drops the job's schedule (on delete); an unfinished cycle of a deleted job ends with its rows. */
  unscheduleJob(jobId: string): Promise<void>;
  /**
   * Starts a cycle now (`POST sync/TriggerWasabiSync`, or a dry run). AppError 409 `syncMessages.alreadyRunning`
   * when a real cycle of the job is unfinished, 409 `syncMessages.inactive` for a deactivated job (a dry run is
   * allowed for both).
   */
  runNow(job: SyncJobRow, options: { dryRun: boolean; record?: RecordCycleChange }): Promise<SyncCycleRow>;
  /**
   * An Owner's or Admin's decision on a cycle waiting for approval (the caller checked the role and that the cycle
   * is the organisation's). AppError 409 `syncMessages.notWaiting` when it is not waiting.
   */
  decide(
    cycle: SyncCycleRow,
    userId: string,
    approve: boolean,
    record?: RecordCycleChange,
  ): Promise<SyncCycleRow>;
}

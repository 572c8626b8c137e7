import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.ts';
import { cloudAccounts, syncCycles, syncJobs } from '../../db/schema/index.ts';
import type { SyncCycleRow, SyncJobRow, SyncJobView } from './sync.views.ts';

export type SyncJobKind = SyncJobRow['kind'];

const sourceAccount = alias(cloudAccounts, 'source_account');
const destinationAccount = alias(cloudAccounts, 'destination_account');
const lastCycle = alias(syncCycles, 'last_cycle');
const liveCycle = alias(syncCycles, 'live_cycle');

/**
 * SQL of sync jobs and the API's reads of their cycles. Every call takes the organisation and filters by it, so
 * another organisation's id reads as unknown.
 */
export class SyncJobsRepo {
  constructor(readonly orm: Database) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: SyncJobsRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new SyncJobsRepo(tx as unknown as Database)));
  }

  async insert(values: typeof syncJobs.$inferInsert): Promise<SyncJobRow> {
    const [row] = await this.orm.insert(syncJobs).values(values).returning();
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  /**
   * The jobs with their accounts' names, their newest finished real cycle and their unfinished one, in one query
   * (each cycle is picked by a correlated subquery on the job's started/finished index, so no query per job).
   */
  async list(organizationId: string, kind?: SyncJobKind): Promise<SyncJobView[]> {
    return this.#views(
      and(eq(syncJobs.organizationId, organizationId), kind ? eq(syncJobs.kind, kind) : undefined),
    );
  }

  /** One job as the list shows it. */
  async view(organizationId: string, id: string): Promise<SyncJobView | undefined> {
    const [row] = await this.#views(and(eq(syncJobs.organizationId, organizationId), eq(syncJobs.id, id)));
    return row;
  }

  async find(organizationId: string, id: string): Promise<SyncJobRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(syncJobs)
      .where(and(eq(syncJobs.organizationId, organizationId), eq(syncJobs.id, id)));
    return row;
  }

  async setActive(organizationId: string, id: string, active: boolean): Promise<SyncJobRow | undefined> {
    const [row] = await this.orm
      .update(syncJobs)
      .set({ active, updatedAt: sql`now()` })
      .where(and(eq(syncJobs.organizationId, organizationId), eq(syncJobs.id, id)))
      .returning();
    return row;
  }

  async setOptions(
    organizationId: string,
    id: string,
    options: Pick<SyncJobRow, 'quarantineDays' | 'deleteThresholdCount' | 'deleteThresholdPercent'>,
  ): Promise<SyncJobRow | undefined> {
    const [row] = await this.orm
      .update(syncJobs)
      .set({ ...options, updatedAt: sql`now()` })
      .where(and(eq(syncJobs.organizationId, organizationId), eq(syncJobs.id, id)))
      .returning();
    return row;
  }

  /** Removes the job; its cycles and deletion candidates go with it (ON DELETE CASCADE). */
  async delete(organizationId: string, id: string): Promise<SyncJobRow | undefined> {
    const [row] = await this.orm
      .delete(syncJobs)
      .where(and(eq(syncJobs.organizationId, organizationId), eq(syncJobs.id, id)))
      .returning();
    return row;
  }

  /** A job's cycles, newest first (dry runs included). */
  async cycles(organizationId: string, jobId: string, limit: number): Promise<SyncCycleRow[]> {
    return this.orm
      .select()
      .from(syncCycles)
      .where(and(eq(syncCycles.organizationId, organizationId), eq(syncCycles.syncJobId, jobId)))
      .orderBy(desc(syncCycles.startedAt), desc(syncCycles.id))
      .limit(limit);
  }

  async findCycle(organizationId: string, id: string): Promise<SyncCycleRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(syncCycles)
      .where(and(eq(syncCycles.organizationId, organizationId), eq(syncCycles.id, id)));
    return row;
  }

  async #views(where: SQL | undefined): Promise<SyncJobView[]> {
    const rows = await this.orm
      .select({
        job: syncJobs,
        sourceAccountName: sourceAccount.name,
        sourceProvider: sourceAccount.provider,
        destinationAccountName: destinationAccount.name,
        destinationProvider: destinationAccount.provider,
        lastCycle,
        liveCycle,
      })
      .from(syncJobs)
      .innerJoin(sourceAccount, eq(sourceAccount.id, syncJobs.sourceCloudAccountId))
      .innerJoin(destinationAccount, eq(destinationAccount.id, syncJobs.destinationCloudAccountId))
      .leftJoin(
        lastCycle,
        eq(
          lastCycle.id,
          sql`(select c.id from sync_cycles c where c.sync_job_id = ${syncJobs.id} and c.finished_at is not null and not c.dry_run order by c.finished_at desc, c.id desc limit 1)`,
        ),
      )
      // The partial unique index keeps at most one unfinished real cycle per job, so this join adds no row.
      .leftJoin(
        liveCycle,
        and(
          eq(liveCycle.syncJobId, syncJobs.id),
          sql`${liveCycle.finishedAt} is null`,
          eq(liveCycle.dryRun, false),
        ),
      )
      .where(where)
      .orderBy(desc(syncJobs.createdAt), desc(syncJobs.id));
    return rows.map((row) => ({
      ...row.job,
      sourceAccountName: row.sourceAccountName,
      sourceProvider: row.sourceProvider,
      destinationAccountName: row.destinationAccountName,
      destinationProvider: row.destinationProvider,
      lastCycle: row.lastCycle,
      liveCycle: row.liveCycle,
    }));
  }
}

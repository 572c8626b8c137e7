import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { AuditEntity, AuditType, LogsFrequency } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { audits, financeDigests, financeSettings } from '../../db/schema/index.ts';

export type FinanceSettingsRow = typeof financeSettings.$inferSelect;
type FinanceDigestRow = typeof financeDigests.$inferSelect;

/** A claim older than this without a result belongs to a worker that died: the next hourly check takes it over. */
const STALE_CLAIM = sql`interval '30 minutes'`;

/** SQL of the finance settings and of the audit digests they schedule (issue 25). Every query names the organisation. */
export class FinanceSettingsRepo {
  constructor(private readonly orm: Database) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: FinanceSettingsRepo, orm: Database) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => {
      const orm = tx as unknown as Database;
      return work(new FinanceSettingsRepo(orm), orm);
    });
  }

  async get(organizationId: string): Promise<FinanceSettingsRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(financeSettings)
      .where(eq(financeSettings.organizationId, organizationId));
    return row;
  }

  /** The row locked for the rest of the transaction, so the audit entry diffs from what it replaces. */
  async lock(organizationId: string): Promise<FinanceSettingsRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(financeSettings)
      .where(eq(financeSettings.organizationId, organizationId))
      .for('update');
    return row;
  }

  async upsert(values: typeof financeSettings.$inferInsert): Promise<FinanceSettingsRow> {
    const { organizationId: _organizationId, ...set } = values;
    const [row] = await this.orm
      .insert(financeSettings)
      .values(values)
      .onConflictDoUpdate({ target: financeSettings.organizationId, set: { ...set, updatedAt: sql`now()` } })
      .returning();
    if (!row) throw new Error('upsert returned no row');
    return row;
  }

  /** The organisations whose digest goes somewhere, with where and how often. */
  async withLogsEmails(): Promise<FinanceSettingsRow[]> {
    return this.orm
      .select()
      .from(financeSettings)
      .where(sql`cardinality(${financeSettings.logsEmails}) > 0`);
  }

  /** The most recently claimed digest of the organisation. */
  async lastDigest(organizationId: string): Promise<FinanceDigestRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(financeDigests)
      .where(eq(financeDigests.organizationId, organizationId))
      .orderBy(desc(financeDigests.claimedAt), desc(financeDigests.periodStart))
      .limit(1);
    return row;
  }

  async digest(
    organizationId: string,
    frequency: LogsFrequency,
    periodStart: Date,
  ): Promise<FinanceDigestRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(financeDigests)
      .where(
        and(
          eq(financeDigests.organizationId, organizationId),
          eq(financeDigests.frequency, frequency),
          eq(financeDigests.periodStart, periodStart),
        ),
      );
    return row;
  }

  /**
   * Claims the digest of one period: true for the one caller that may send it. A period never claimed is taken
   * by inserting its row; a claimed one is taken again only when its send failed (`error` set, `sent_at` null:
   * the retry of the next hourly check) or when its claimer died without a result. Two checks at once: the row
   * lock lets one through, and the other then sees the row it left.
   */
  async claimDigest(
    organizationId: string,
    frequency: LogsFrequency,
    periodStart: Date,
    periodEnd: Date,
  ): Promise<boolean> {
    const result = await this.orm.execute<{ claimed: boolean }>(sql`
      insert into ${financeDigests} (organization_id, frequency, period_start, period_end)
      values (${organizationId}, ${frequency}, ${periodStart.toISOString()}, ${periodEnd.toISOString()})
      on conflict (organization_id, frequency, period_start) do update
        set claimed_at = now(), error = null
        where ${financeDigests.sentAt} is null
          and (${financeDigests.error} is not null or ${financeDigests.claimedAt} < now() - ${STALE_CLAIM})
      returning true as claimed`);
    return result.rows.length > 0;
  }

  async digestSent(
    organizationId: string,
    frequency: LogsFrequency,
    periodStart: Date,
    result: { entries: number; recipients: number },
  ): Promise<void> {
    await this.orm
      .update(financeDigests)
      .set({ ...result, sentAt: sql`now()`, error: null })
      .where(
        and(
          eq(financeDigests.organizationId, organizationId),
          eq(financeDigests.frequency, frequency),
          eq(financeDigests.periodStart, periodStart),
        ),
      );
  }

  async digestFailed(
    organizationId: string,
    frequency: LogsFrequency,
    periodStart: Date,
    result: { entries: number; recipients: number; error: string },
  ): Promise<void> {
    await this.orm
      .update(financeDigests)
      .set(result)
      .where(
        and(
          eq(financeDigests.organizationId, organizationId),
          eq(financeDigests.frequency, frequency),
          eq(financeDigests.periodStart, periodStart),
        ),
      );
  }

  /** How many audit entries of each entity and type the period holds (the digest's summary covers them all). */
  async auditCounts(
    organizationId: string,
    from: Date,
    to: Date,
  ): Promise<Array<{ entity: AuditEntity; type: AuditType; count: number }>> {
    return this.orm
      .select({ entity: audits.entity, type: audits.type, count: sql<number>`count(*)::int` })
      .from(audits)
      .where(
        and(eq(audits.organizationId, organizationId), gte(audits.createdAt, from), lt(audits.createdAt, to)),
      )
      .groupBy(audits.entity, audits.type)
      .orderBy(audits.entity, audits.type);
  }
}

import { and, eq, gte, lte, max, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import {
  financeAlertFirings,
  financeAlerts,
  financeBudgets,
  financeProducts,
  users,
} from '../../db/schema/index.ts';

export type FinanceAlertRow = typeof financeAlerts.$inferSelect;
export type FiringKind = (typeof financeAlertFirings.$inferInsert)['kind'];

/** One month's budget of one account and label, in cents. */
interface BudgetCents {
  cloudAccountId: string;
  label: string;
  /** 'YYYY-MM' */
  month: string;
  amountCents: number;
}

/**
 * SQL of budget alerts (issue 25): the alerts, their firings, and the budgets they are compared with. Every query
 * names the organisation.
 */
export class FinanceAlertsRepo {
  constructor(private readonly orm: Database) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: FinanceAlertsRepo, orm: Database) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => {
      const orm = tx as unknown as Database;
      return work(new FinanceAlertsRepo(orm), orm);
    });
  }

  async find(
    organizationId: string,
    cloudAccountId: string,
    label: string,
  ): Promise<FinanceAlertRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(financeAlerts)
      .where(
        and(
          eq(financeAlerts.organizationId, organizationId),
          eq(financeAlerts.cloudAccountId, cloudAccountId),
          eq(financeAlerts.label, label),
        ),
      );
    return row;
  }

  /** The pair's alert locked for the rest of the transaction, so its audit entry diffs from what it replaces. */
  async lock(
    organizationId: string,
    cloudAccountId: string,
    label: string,
  ): Promise<FinanceAlertRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(financeAlerts)
      .where(
        and(
          eq(financeAlerts.organizationId, organizationId),
          eq(financeAlerts.cloudAccountId, cloudAccountId),
          eq(financeAlerts.label, label),
        ),
      )
      .for('update');
    return row;
  }

  /** Every alert of the organisation with when it last fired, oldest first. */
  async list(organizationId: string): Promise<Array<FinanceAlertRow & { lastFired: Date | null }>> {
    const rows = await this.orm
      .select({ alert: financeAlerts, lastFired: max(financeAlertFirings.firedAt) })
      .from(financeAlerts)
      .leftJoin(
        financeAlertFirings,
        and(
          eq(financeAlertFirings.alertId, financeAlerts.id),
          eq(financeAlertFirings.organizationId, organizationId),
        ),
      )
      .where(eq(financeAlerts.organizationId, organizationId))
      .groupBy(financeAlerts.id)
      .orderBy(financeAlerts.createdAt, financeAlerts.id);
    return rows.map((row) => ({ ...row.alert, lastFired: row.lastFired }));
  }

  /** One alert per account and label: saving again replaces its percentages and range (and keeps its firings). */
  async upsert(values: typeof financeAlerts.$inferInsert): Promise<FinanceAlertRow> {
    const [row] = await this.orm
      .insert(financeAlerts)
      .values(values)
      .onConflictDoUpdate({
        target: [financeAlerts.organizationId, financeAlerts.cloudAccountId, financeAlerts.label],
        set: {
          actualPercent: values.actualPercent ?? null,
          forecastPercent: values.forecastPercent ?? null,
          start: values.start,
          end: values.end,
          updatedAt: sql`now()`,
        },
      })
      .returning();
    if (!row) throw new Error('upsert returned no row');
    return row;
  }

  async delete(organizationId: string, id: string): Promise<FinanceAlertRow | undefined> {
    const [row] = await this.orm
      .delete(financeAlerts)
      .where(and(eq(financeAlerts.organizationId, organizationId), eq(financeAlerts.id, id)))
      .returning();
    return row;
  }

  /** The organisation's custom product of that name (any case), as it was saved. */
  async customProductName(organizationId: string, name: string): Promise<string | undefined> {
    const [row] = await this.orm
      .select({ name: financeProducts.name })
      .from(financeProducts)
      .where(
        and(
          eq(financeProducts.organizationId, organizationId),
          sql`lower(${financeProducts.name}) = lower(${name})`,
        ),
      );
    return row?.name;
  }

  /** The budgets of the months `from`..`to` ('YYYY-MM', inclusive) of every account of the organisation. */
  async budgets(organizationId: string, from: string, to: string): Promise<BudgetCents[]> {
    const rows = await this.orm
      .select({
        cloudAccountId: financeBudgets.cloudAccountId,
        label: financeBudgets.label,
        month: financeBudgets.month,
        amountCents: financeBudgets.amountCents,
      })
      .from(financeBudgets)
      .where(
        and(
          eq(financeBudgets.organizationId, organizationId),
          gte(financeBudgets.month, `${from}-01`),
          lte(financeBudgets.month, `${to}-01`),
        ),
      );
    return rows.map((row) => ({ ...row, month: row.month.slice(0, 7) }));
  }

  /**
   * Records a crossing unless that alert already fired for that month and kind. True only for the call that
   * inserted the row: that call alone notifies, however many evaluations run at once.
   */
  async claimFiring(values: typeof financeAlertFirings.$inferInsert): Promise<boolean> {
    const rows = await this.orm
      .insert(financeAlertFirings)
      .values(values)
      .onConflictDoNothing()
      .returning({ alertId: financeAlertFirings.alertId });
    return rows.length > 0;
  }

  /** The address of an alert's creator, when they are still a member of the organisation. */
  async memberEmail(organizationId: string, userId: string): Promise<string | undefined> {
    const [row] = await this.orm
      .select({ email: users.email })
      .from(users)
      .where(and(eq(users.organizationId, organizationId), eq(users.id, userId)));
    return row?.email;
  }
}

import { and, asc, between, eq, sql } from 'drizzle-orm';
import type { CostCategory } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { financeBudgets, financeProducts } from '../../db/schema/index.ts';
import type { MonthCents } from './spread.ts';

/** One month's budget of one cloud account and label. */
export interface BudgetMonth {
  cloudAccountId: string;
  label: string;
  /** 'YYYY-MM' */
  month: string;
  cents: number;
}

export type ProductRow = typeof financeProducts.$inferSelect;

const firstDay = (month: string) => `${month}-01`;

/** SQL of budgets and custom products (issue 25); every query names the organisation. Money in integer cents. */
export class BudgetsRepo {
  constructor(readonly orm: Database) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: BudgetsRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new BudgetsRepo(tx as unknown as Database)));
  }

  /**
   * Holds, until the transaction ends, the one budget (cloud, label, year) a save is about to replace: two saves
   * of it at once run one after the other, so each reads the totals it replaces and records them truly.
   */
  async lockYear(organizationId: string, cloudAccountId: string, label: string, year: number): Promise<void> {
    await this.orm.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`finance-budget:${organizationId}:${cloudAccountId}:${label}:${year}`}, 0))`,
    );
  }

  /** The budgets of months `from`..`to` ('YYYY-MM') of one account, or of every account when null. */
  async months(
    organizationId: string,
    cloudAccountId: string | null,
    from: string,
    to: string,
  ): Promise<BudgetMonth[]> {
    const rows = await this.orm
      .select({
        cloudAccountId: financeBudgets.cloudAccountId,
        label: financeBudgets.label,
        month: financeBudgets.month,
        cents: financeBudgets.amountCents,
      })
      .from(financeBudgets)
      .where(
        and(
          eq(financeBudgets.organizationId, organizationId),
          cloudAccountId === null ? undefined : eq(financeBudgets.cloudAccountId, cloudAccountId),
          between(financeBudgets.month, firstDay(from), firstDay(to)),
        ),
      )
      .orderBy(asc(financeBudgets.month));
    return rows.map((row) => ({ ...row, month: row.month.slice(0, 7) }));
  }

  /** Sets the months of one account and label in one statement: each month's row is written or replaced. */
  async setMonths(
    organizationId: string,
    cloudAccountId: string,
    label: string,
    months: readonly MonthCents[],
    userId: string,
  ): Promise<void> {
    if (months.length === 0) return;
    await this.orm
      .insert(financeBudgets)
      .values(
        months.map((month) => ({
          organizationId,
          cloudAccountId,
          label,
          month: firstDay(month.month),
          amountCents: month.cents,
          updatedBy: userId,
        })),
      )
      .onConflictDoUpdate({
        target: [
          financeBudgets.organizationId,
          financeBudgets.cloudAccountId,
          financeBudgets.label,
          financeBudgets.month,
        ],
        set: {
          amountCents: sql`excluded.amount_cents`,
          updatedBy: sql`excluded.updated_by`,
          updatedAt: sql`now()`,
        },
      });
  }

  /** The organisation's custom products, by name. */
  async products(organizationId: string): Promise<ProductRow[]> {
    return this.orm
      .select()
      .from(financeProducts)
      .where(eq(financeProducts.organizationId, organizationId))
      .orderBy(asc(financeProducts.name));
  }

  /** Adds a custom product; undefined when the organisation already has one of that name in any case. */
  async insertProduct(
    organizationId: string,
    name: string,
    category: CostCategory,
    userId: string,
  ): Promise<ProductRow | undefined> {
    const [row] = await this.orm
      .insert(financeProducts)
      .values({ organizationId, name, category, createdBy: userId })
      .onConflictDoNothing()
      .returning();
    return row;
  }
}

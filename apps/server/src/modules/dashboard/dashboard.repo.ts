import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { dashboardLayouts } from '../../db/schema/index.ts';

/** SQL of members' dashboard layouts; every query names the member and their organisation. */
export class DashboardRepo {
  constructor(private readonly orm: Database) {}

  /** The member's saved widget ids in order, or null when they never saved a layout. */
  async layout(organizationId: string, userId: string): Promise<string[] | null> {
    const [row] = await this.orm
      .select({ widgets: dashboardLayouts.widgets })
      .from(dashboardLayouts)
      .where(and(eq(dashboardLayouts.userId, userId), eq(dashboardLayouts.organizationId, organizationId)))
      .limit(1);
    return row?.widgets ?? null;
  }

  /**
   * Reads the member's layout under a row lock, lets `change` compute the new one and saves it, in one
   * transaction: two tabs adding widgets at once both land instead of one overwriting the other. A `change` that
   * throws rolls the transaction back and nothing is saved.
   */
  async change(
    organizationId: string,
    userId: string,
    change: (current: string[] | null) => string[],
  ): Promise<string[]> {
    return this.orm.transaction(async (tx) => {
      const [row] = await tx
        .select({ widgets: dashboardLayouts.widgets })
        .from(dashboardLayouts)
        .where(and(eq(dashboardLayouts.userId, userId), eq(dashboardLayouts.organizationId, organizationId)))
        .for('update');
      const widgets = change(row?.widgets ?? null);
      await tx
        .insert(dashboardLayouts)
        .values({ userId, organizationId, widgets })
        .onConflictDoUpdate({
          target: dashboardLayouts.userId,
          set: { widgets, updatedAt: new Date() },
          // A user id is one organisation's; never rewrite a row of another one.
          setWhere: eq(dashboardLayouts.organizationId, organizationId),
        });
      return widgets;
    });
  }
}

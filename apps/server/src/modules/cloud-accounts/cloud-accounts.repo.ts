import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { cloudAccounts } from '../../db/schema/index.ts';

export type CloudAccountRow = typeof cloudAccounts.$inferSelect;

/** SQL of cloud accounts; every query is scoped to one organisation. */
export class CloudAccountsRepo {
  constructor(private readonly orm: Database) {}

  async list(organizationId: string): Promise<CloudAccountRow[]> {
    return this.orm
      .select()
      .from(cloudAccounts)
      .where(eq(cloudAccounts.organizationId, organizationId))
      .orderBy(desc(cloudAccounts.createdAt));
  }

  async find(organizationId: string, id: string): Promise<CloudAccountRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(cloudAccounts)
      .where(and(eq(cloudAccounts.id, id), eq(cloudAccounts.organizationId, organizationId)))
      .limit(1);
    return row;
  }

  async insert(values: typeof cloudAccounts.$inferInsert): Promise<CloudAccountRow> {
    const [row] = await this.orm.insert(cloudAccounts).values(values).returning();
    if (!row) throw new Error('cloud account insert returned nothing');
    return row;
  }

  async update(
    organizationId: string,
    id: string,
    values: Partial<Pick<CloudAccountRow, 'name' | 'billingBucket'>>,
  ): Promise<CloudAccountRow | undefined> {
    const [row] = await this.orm
      .update(cloudAccounts)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(cloudAccounts.id, id), eq(cloudAccounts.organizationId, organizationId)))
      .returning();
    return row;
  }

  async delete(organizationId: string, id: string): Promise<CloudAccountRow | undefined> {
    const [row] = await this.orm
      .delete(cloudAccounts)
      .where(and(eq(cloudAccounts.id, id), eq(cloudAccounts.organizationId, organizationId)))
      .returning();
    return row;
  }
}

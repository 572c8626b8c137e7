import { and, desc, eq, inArray, notInArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { buckets, cloudAccounts } from '../../db/schema/index.ts';

export type CloudAccountRow = typeof cloudAccounts.$inferSelect;
export type BucketRow = typeof buckets.$inferSelect;

/** SQL of cloud accounts; every query is scoped to one organisation. */
export class CloudAccountsRepo {
  constructor(readonly orm: Database) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: CloudAccountsRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new CloudAccountsRepo(tx as unknown as Database)));
  }

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

  /** Every account of every organisation, for the scheduled inventory sweep (ids only). */
  async allAccountIds(): Promise<Array<{ id: string; organizationId: string }>> {
    return this.orm
      .select({ id: cloudAccounts.id, organizationId: cloudAccounts.organizationId })
      .from(cloudAccounts);
  }

  async bucketsOf(organizationId: string, accountIds: string[]): Promise<BucketRow[]> {
    if (accountIds.length === 0) return [];
    return this.orm
      .select()
      .from(buckets)
      .where(and(eq(buckets.organizationId, organizationId), inArray(buckets.cloudAccountId, accountIds)))
      .orderBy(buckets.name);
  }

  /** Makes the inventory's bucket rows match the provider's list: new ones added, vanished ones removed. */
  async syncBuckets(
    organizationId: string,
    accountId: string,
    list: Array<{ name: string; region: string | null; createdOn: Date | null }>,
  ): Promise<void> {
    await this.orm.transaction(async (tx) => {
      const names = list.map((b) => b.name);
      await tx
        .delete(buckets)
        .where(
          and(
            eq(buckets.organizationId, organizationId),
            eq(buckets.cloudAccountId, accountId),
            names.length ? notInArray(buckets.name, names) : undefined,
          ),
        );
      for (const b of list) {
        await tx
          .insert(buckets)
          .values({
            organizationId,
            cloudAccountId: accountId,
            name: b.name,
            region: b.region,
            createdOn: b.createdOn,
          })
          .onConflictDoUpdate({
            target: [buckets.cloudAccountId, buckets.name],
            set: { region: b.region, createdOn: b.createdOn },
          });
      }
    });
  }

  /** Adds (or refreshes) one bucket row, as after a bucket is created through Cumulo. */
  async syncBucket(
    organizationId: string,
    accountId: string,
    bucket: { name: string; region: string | null; createdOn: Date | null },
  ): Promise<void> {
    await this.orm
      .insert(buckets)
      .values({ organizationId, cloudAccountId: accountId, ...bucket })
      .onConflictDoUpdate({
        target: [buckets.cloudAccountId, buckets.name],
        set: { region: bucket.region, createdOn: bucket.createdOn },
      });
  }

  async updateBucket(
    organizationId: string,
    accountId: string,
    name: string,
    values: Partial<Pick<BucketRow, 'status' | 'objectCount' | 'totalBytes' | 'error' | 'inventoriedAt'>>,
  ): Promise<void> {
    await this.orm
      .update(buckets)
      .set(values)
      .where(
        and(
          eq(buckets.organizationId, organizationId),
          eq(buckets.cloudAccountId, accountId),
          eq(buckets.name, name),
        ),
      );
  }
}

import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { organizations } from '../../db/schema/index.ts';

export type OrganizationRow = typeof organizations.$inferSelect;
export type ChargeConfirmations = Partial<
  Pick<OrganizationRow, 'confirmedC2c' | 'confirmedFtx' | 'confirmedWasabi'>
>;

/** SQL of the caller's own organisation row. */
export class OrganizationsRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: OrganizationsRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new OrganizationsRepo(tx as unknown as Database)));
  }

  /** The organisation's row, locked until the transaction ends. */
  async lock(organizationId: string): Promise<OrganizationRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for('update');
    return row;
  }

  async confirm(organizationId: string, flags: ChargeConfirmations): Promise<OrganizationRow | undefined> {
    const [row] = await this.orm
      .update(organizations)
      .set(flags)
      .where(eq(organizations.id, organizationId))
      .returning();
    return row;
  }
}

import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { organizations } from '../../db/schema/index.ts';

export type OrganizationRow = typeof organizations.$inferSelect;
export type ChargeConfirmations = Partial<
  Pick<OrganizationRow, 'confirmedC2c' | 'confirmedFtx' | 'confirmedWasabi'>
>;

/** SQL of the caller's own organisation row. */
export class OrganizationsRepo {
  constructor(private readonly orm: Database) {}

  async confirm(organizationId: string, flags: ChargeConfirmations): Promise<OrganizationRow | undefined> {
    const [row] = await this.orm
      .update(organizations)
      .set(flags)
      .where(eq(organizations.id, organizationId))
      .returning();
    return row;
  }
}

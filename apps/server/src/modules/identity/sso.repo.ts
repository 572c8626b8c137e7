import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { invitations, ssoFlows, userIdentities } from '../../db/schema/index.ts';

type SsoFlowRow = typeof ssoFlows.$inferSelect;

/** SQL of single sign-on: flows under way and the provider identities linked to users. */
export class SsoRepo {
  constructor(readonly orm: Database) {}

  /** Records a new flow, and drops the abandoned ones (a flow nobody finished has no other cleanup). */
  async createFlow(values: SsoFlowRow) {
    await this.orm.delete(ssoFlows).where(lt(ssoFlows.expiresAt, new Date()));
    await this.orm.insert(ssoFlows).values(values);
  }

  /** Deletes a live flow and returns it, atomically: a second callback with the same state finds nothing. */
  async takeFlow(stateHash: string): Promise<SsoFlowRow | undefined> {
    const [row] = await this.orm
      .delete(ssoFlows)
      .where(and(eq(ssoFlows.stateHash, stateHash), gt(ssoFlows.expiresAt, new Date())))
      .returning();
    return row;
  }

  /** Sign-in path: the identity of (issuer, subject), before any organisation is known. */
  async findIdentity(issuer: string, subject: string) {
    const [row] = await this.orm
      .select()
      .from(userIdentities)
      .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)))
      .limit(1);
    return row;
  }

  async linkIdentity(values: typeof userIdentities.$inferInsert) {
    await this.orm.insert(userIdentities).values(values);
  }

  /** Accepts the newest live invitation of an address, if any, and returns it (the organisation and role to join). */
  async acceptInvitationOf(email: string) {
    const newest = this.orm
      .select({ id: invitations.id })
      .from(invitations)
      .where(
        and(
          eq(sql`lower(${invitations.email})`, email),
          isNull(invitations.acceptedAt),
          gt(invitations.expiresAt, new Date()),
        ),
      )
      .orderBy(desc(invitations.createdAt))
      .limit(1);
    const [row] = await this.orm
      .update(invitations)
      .set({ acceptedAt: new Date() })
      .where(and(eq(invitations.id, sql`(${newest})`), isNull(invitations.acceptedAt)))
      .returning();
    return row;
  }
}

import { and, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { ROLE_ID } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { invitations, roles, sessions, users } from '../../db/schema/index.ts';

const memberColumns = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  createdAt: users.createdAt,
  emailVerifiedAt: users.emailVerifiedAt,
  active: users.active,
  role: { id: roles.id, title: roles.title },
};

export type MemberRow = Awaited<ReturnType<MembersRepo['listMembers']>>[number];
export type InvitationRow = typeof invitations.$inferSelect;

/** SQL of an organisation's members and invitations. Every statement filters by the organisation's id. */
export class MembersRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: MembersRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new MembersRepo(tx as unknown as Database)));
  }

  async listMembers(organizationId: string) {
    return this.orm
      .select(memberColumns)
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(eq(users.organizationId, organizationId))
      .orderBy(users.createdAt, users.email);
  }

  async findMember(organizationId: string, id: string): Promise<MemberRow | undefined> {
    const [row] = await this.orm
      .select(memberColumns)
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(and(eq(users.id, id), eq(users.organizationId, organizationId)))
      .limit(1);
    return row;
  }

  /**
   * Which of `emails` cannot be invited: an account has it (e-mails are unique across organisations) or this
   * organisation has a pending invitation for it.
   */
  async takenEmails(organizationId: string, emails: string[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    const accounts = await this.orm
      .select({ email: users.email })
      .from(users)
      .where(inArray(users.email, emails));
    const pending = await this.orm
      .select({ email: invitations.email })
      .from(invitations)
      .where(
        and(
          eq(invitations.organizationId, organizationId),
          inArray(invitations.email, emails),
          isNull(invitations.acceptedAt),
          gt(invitations.expiresAt, new Date()),
        ),
      );
    return new Set([...accounts, ...pending].map((row) => row.email));
  }

  async createInvitations(values: (typeof invitations.$inferInsert)[]) {
    return this.orm.insert(invitations).values(values).returning();
  }

  /** The organisation's invitations nobody accepted yet, newest first, with the inviter's name. */
  async pendingInvitations(organizationId: string) {
    return this.orm
      .select({
        id: invitations.id,
        email: invitations.email,
        firstName: invitations.firstName,
        lastName: invitations.lastName,
        role: { id: roles.id, title: roles.title },
        invitedBy: sql<string | null>`(select trim(concat_ws(' ', u.first_name, u.last_name))
          from users u where u.id = ${invitations.invitedBy})`,
        createdAt: invitations.createdAt,
        expiresAt: invitations.expiresAt,
      })
      .from(invitations)
      .innerJoin(roles, eq(roles.id, invitations.roleId))
      .where(and(eq(invitations.organizationId, organizationId), isNull(invitations.acceptedAt)))
      .orderBy(desc(invitations.createdAt));
  }

  /** A pending invitation of the organisation, locked until the transaction ends (one resend or cancel at once). */
  async lockPendingInvitation(organizationId: string, id: string) {
    const [row] = await this.orm
      .select()
      .from(invitations)
      .where(
        and(
          eq(invitations.id, id),
          eq(invitations.organizationId, organizationId),
          isNull(invitations.acceptedAt),
        ),
      )
      .for('update');
    return row;
  }

  /** Gives an invitation a new token and expiry: the earlier link stops working. */
  async renewInvitation(organizationId: string, id: string, tokenHash: string, expiresAt: Date) {
    await this.orm
      .update(invitations)
      .set({ tokenHash, expiresAt })
      .where(and(eq(invitations.id, id), eq(invitations.organizationId, organizationId)));
  }

  async deleteInvitation(organizationId: string, id: string) {
    await this.orm
      .delete(invitations)
      .where(and(eq(invitations.id, id), eq(invitations.organizationId, organizationId)));
  }

  async setActive(organizationId: string, id: string, active: boolean) {
    await this.orm
      .update(users)
      .set({ active, updatedAt: new Date() })
      .where(and(eq(users.id, id), eq(users.organizationId, organizationId)));
  }

  async setRole(organizationId: string, id: string, roleId: number) {
    await this.orm
      .update(users)
      .set({ roleId, updatedAt: new Date() })
      .where(and(eq(users.id, id), eq(users.organizationId, organizationId)));
  }

  /** Ends every live session of a member; returns the ended ids. */
  async revokeSessions(organizationId: string, userId: string): Promise<string[]> {
    const rows = await this.orm
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(sessions.userId, userId),
          eq(sessions.organizationId, organizationId),
          isNull(sessions.revokedAt),
        ),
      )
      .returning({ id: sessions.id });
    return rows.map((row) => row.id);
  }

  /** An Owner member, or a live invitation as Owner (the operator's first invitation into a new organisation). */
  async hasOwner(organizationId: string): Promise<boolean> {
    const result = await this.orm.execute<{ has: boolean }>(sql`select
      exists (select 1 from ${users} where ${users.organizationId} = ${organizationId} and ${users.roleId} = ${ROLE_ID.Owner})
      or exists (select 1 from ${invitations} where ${invitations.organizationId} = ${organizationId}
        and ${invitations.roleId} = ${ROLE_ID.Owner} and ${invitations.acceptedAt} is null
        and ${invitations.expiresAt} > now()) as has`);
    return result.rows[0]?.has === true;
  }

  async roleExists(id: number): Promise<boolean> {
    const [row] = await this.orm.select({ id: roles.id }).from(roles).where(eq(roles.id, id)).limit(1);
    return row !== undefined;
  }
}

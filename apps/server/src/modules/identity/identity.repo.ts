import { and, count, eq, gt, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import {
  invitations,
  mfaRecoveryCodes,
  organizations,
  roles,
  sessions,
  userTokens,
  users,
} from '../../db/schema/index.ts';
import { cloudAccounts } from '../../db/schema/cloud-accounts.ts';
import { InstanceOperatorsRepo } from '../admin/instance-operators.repo.ts';

export type UserRow = typeof users.$inferSelect;
type OrganizationRow = typeof organizations.$inferSelect;
export type TokenKind = (typeof userTokens.$inferSelect)['kind'];

/** SQL of users, sessions, e-mailed tokens and invitations. Every read of organisation data filters by its id. */
export class IdentityRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: IdentityRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new IdentityRepo(tx as unknown as Database)));
  }

  async findUserByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await this.orm.select().from(users).where(eq(users.email, email)).limit(1);
    return row;
  }

  /** Sign-in paths only: a user looked up by its own id, before any organisation is known. */
  async findUserById(id: string): Promise<UserRow | undefined> {
    const [row] = await this.orm.select().from(users).where(eq(users.id, id)).limit(1);
    return row;
  }

  async findUserInOrg(organizationId: string, id: string): Promise<UserRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(users)
      .where(and(eq(users.id, id), eq(users.organizationId, organizationId)))
      .limit(1);
    return row;
  }

  /** The organisation's active members with their role, by name (GET /cloud_accounts/{id}/users). */
  async activeMembers(organizationId: string) {
    return this.orm
      .select({
        id: users.id,
        firstName: users.firstName,
        lastName: users.lastName,
        email: users.email,
        role: roles,
      })
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(and(eq(users.organizationId, organizationId), eq(users.active, true)))
      .orderBy(users.firstName, users.lastName, users.email);
  }

  async profileRow(organizationId: string, userId: string) {
    // Backs acl.has_wasabi (see identity.service).
    const hasWasabiAccount = sql<boolean>`exists (
      select 1 from ${cloudAccounts}
      where ${cloudAccounts.organizationId} = ${organizationId} and ${cloudAccounts.provider} = 'wasabi')`;
    const [row] = await this.orm
      .select({ user: users, organization: organizations, role: roles, hasWasabiAccount })
      .from(users)
      .innerJoin(organizations, eq(organizations.id, users.organizationId))
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(and(eq(users.id, userId), eq(users.organizationId, organizationId)))
      .limit(1);
    return row;
  }

  /** Removes an organisation and, by cascade, everything of it (a new customer whose card then failed). */
  async deleteOrganization(id: string) {
    await this.orm.delete(organizations).where(eq(organizations.id, id));
  }

  async createOrganization(name: string): Promise<OrganizationRow> {
    const [row] = await this.orm.insert(organizations).values({ name }).returning();
    if (!row) throw new Error('organisation insert returned nothing');
    return row;
  }

  /**
   * Creates a user; called in the transaction of a sign-up, an accepted invitation or a single sign-on's first
   * visit, so the first account of a fresh install becomes its operator with it (modules/admin/README.md).
   */
  async createUser(values: typeof users.$inferInsert): Promise<UserRow> {
    const [row] = await this.orm.insert(users).values(values).returning();
    if (!row) throw new Error('user insert returned nothing');
    await new InstanceOperatorsRepo(this.orm, []).claimFirstAccount(row.id);
    return row;
  }

  async updateUser(organizationId: string, id: string, values: Partial<typeof users.$inferInsert>) {
    const [row] = await this.orm
      .update(users)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(users.id, id), eq(users.organizationId, organizationId)))
      .returning();
    return row;
  }

  /** Records a TOTP time step as used; false when it (or a later one) was used already, i.e. a replayed code. */
  async claimTotpStep(organizationId: string, userId: string, step: number): Promise<boolean> {
    const rows = await this.orm
      .update(users)
      .set({ mfaLastStep: step })
      .where(
        and(
          eq(users.id, userId),
          eq(users.organizationId, organizationId),
          or(isNull(users.mfaLastStep), lt(users.mfaLastStep, step)),
        ),
      )
      .returning({ id: users.id });
    return rows.length === 1;
  }

  /** Replaces a user's recovery codes (all of them, used or not) with new hashes. */
  async replaceRecoveryCodes(organizationId: string, userId: string, codeHashes: readonly string[]) {
    await this.deleteRecoveryCodes(organizationId, userId);
    if (codeHashes.length === 0) return;
    await this.orm
      .insert(mfaRecoveryCodes)
      .values(codeHashes.map((codeHash) => ({ organizationId, userId, codeHash })));
  }

  async deleteRecoveryCodes(organizationId: string, userId: string) {
    await this.orm
      .delete(mfaRecoveryCodes)
      .where(and(eq(mfaRecoveryCodes.userId, userId), eq(mfaRecoveryCodes.organizationId, organizationId)));
  }

  /** Spends an unused recovery code in one statement, so two sign-ins racing with the same code cannot both pass. */
  async consumeRecoveryCode(organizationId: string, userId: string, codeHash: string): Promise<boolean> {
    const rows = await this.orm
      .update(mfaRecoveryCodes)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(mfaRecoveryCodes.userId, userId),
          eq(mfaRecoveryCodes.organizationId, organizationId),
          eq(mfaRecoveryCodes.codeHash, codeHash),
          isNull(mfaRecoveryCodes.usedAt),
        ),
      )
      .returning({ id: mfaRecoveryCodes.id });
    return rows.length === 1;
  }

  async unusedRecoveryCodes(organizationId: string, userId: string): Promise<number> {
    const [row] = await this.orm
      .select({ n: count() })
      .from(mfaRecoveryCodes)
      .where(
        and(
          eq(mfaRecoveryCodes.userId, userId),
          eq(mfaRecoveryCodes.organizationId, organizationId),
          isNull(mfaRecoveryCodes.usedAt),
        ),
      );
    return row?.n ?? 0;
  }

  async createSession(values: typeof sessions.$inferInsert) {
    const [row] = await this.orm.insert(sessions).values(values).returning({ id: sessions.id });
    if (!row) throw new Error('session insert returned nothing');
    return row.id;
  }

  async revokeSession(organizationId: string, id: string) {
    await this.orm
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(
        and(eq(sessions.id, id), eq(sessions.organizationId, organizationId), isNull(sessions.revokedAt)),
      );
  }

  /** Revokes every live session of a user except `keep`; returns the revoked ids. */
  async revokeUserSessions(organizationId: string, userId: string, keep?: string): Promise<string[]> {
    const rows = await this.orm
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(sessions.userId, userId),
          eq(sessions.organizationId, organizationId),
          isNull(sessions.revokedAt),
          keep ? ne(sessions.id, keep) : undefined,
        ),
      )
      .returning({ id: sessions.id });
    return rows.map((r) => r.id);
  }

  async createToken(values: typeof userTokens.$inferInsert) {
    await this.orm.insert(userTokens).values(values);
  }

  /** Earlier unused links of the same kind stop working when a new one is sent. */
  async expireUnusedTokens(userId: string, kind: TokenKind) {
    await this.orm
      .update(userTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(userTokens.userId, userId), eq(userTokens.kind, kind), isNull(userTokens.usedAt)));
  }

  /** Marks a live token used and returns it, atomically: a second use finds nothing. */
  async consumeToken(tokenHash: string, kind: TokenKind) {
    const [row] = await this.orm
      .update(userTokens)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(userTokens.tokenHash, tokenHash),
          eq(userTokens.kind, kind),
          isNull(userTokens.usedAt),
          gt(userTokens.expiresAt, new Date()),
        ),
      )
      .returning();
    return row;
  }

  async createInvitation(values: typeof invitations.$inferInsert) {
    const [row] = await this.orm.insert(invitations).values(values).returning();
    if (!row) throw new Error('invitation insert returned nothing');
    return row;
  }

  async findLiveInvitation(tokenHash: string) {
    const [row] = await this.orm
      .select()
      .from(invitations)
      .where(
        and(
          eq(invitations.tokenHash, tokenHash),
          isNull(invitations.acceptedAt),
          gt(invitations.expiresAt, new Date()),
        ),
      )
      .limit(1);
    return row;
  }

  async acceptInvitation(tokenHash: string) {
    const [row] = await this.orm
      .update(invitations)
      .set({ acceptedAt: new Date() })
      .where(
        and(
          eq(invitations.tokenHash, tokenHash),
          isNull(invitations.acceptedAt),
          gt(invitations.expiresAt, new Date()),
        ),
      )
      .returning();
    return row;
  }

  /** Housekeeping: drops sessions, links and invitations that can no longer be used. */
  async purgeExpired(now = new Date()) {
    const dayAgo = sql`now() - interval '1 day'`;
    const s = await this.orm
      .delete(sessions)
      .where(or(lt(sessions.expiresAt, now), lt(sessions.revokedAt, dayAgo)))
      .returning({ id: sessions.id });
    const t = await this.orm
      .delete(userTokens)
      .where(or(lt(userTokens.expiresAt, dayAgo), lt(userTokens.usedAt, dayAgo)))
      .returning({ id: userTokens.id });
    const i = await this.orm
      .delete(invitations)
      .where(and(lt(invitations.expiresAt, dayAgo), isNull(invitations.acceptedAt)))
      .returning({ id: invitations.id });
    return { sessions: s.length, tokens: t.length, invitations: i.length };
  }

  async roles() {
    return this.orm.select().from(roles).orderBy(roles.id);
  }
}

import { and, count, desc, eq, gt, gte, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { AgentDirection, AgentPlatform, RoleTitle } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import {
  agentDevices,
  agentPairingCodes,
  agentTickets,
  agentTransfers,
  organizations,
  roles,
  users,
} from '../../db/schema/index.ts';

type AgentDeviceRow = typeof agentDevices.$inferSelect;
export type AgentTransferRow = typeof agentTransfers.$inferSelect;

/** A device whose token may still be used: not revoked, its member active in the device's organisation. */
interface LiveDevice {
  id: string;
  userId: string;
  organizationId: string;
  role: RoleTitle;
  lastSeenAt: Date | null;
}

/** A member as the agent shows who it acts for. */
interface DeviceMember {
  userId: string;
  email: string;
  firstName: string;
  lastName: string;
  organizationName: string;
}

/** A device with its member's e-mail, as GET /agent/devices lists it. */
export type ListedDevice = AgentDeviceRow & { userEmail: string };

/** Whose history a read covers: one member's, or (null) the whole organisation's. */
export type HistoryScope = { organizationId: string; userId: string | null };

/** SQL of the transfer agents, their codes, tickets and history; every query names the organisation. */
export class AgentRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: AgentRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new AgentRepo(tx as unknown as Database)));
  }

  async insertCode(row: { codeHash: string; organizationId: string; userId: string; expiresAt: Date }) {
    await this.orm.insert(agentPairingCodes).values(row);
  }

  /**
   * Marks the code used if it is unused and unexpired, in one statement: of two concurrent redeems exactly one
   * gets the row back. Null when the code is unknown, used or expired.
   */
  async useCode(codeHash: string, now: Date): Promise<{ organizationId: string; userId: string } | null> {
    const [row] = await this.orm
      .update(agentPairingCodes)
      .set({ usedAt: now })
      .where(
        and(
          eq(agentPairingCodes.codeHash, codeHash),
          isNull(agentPairingCodes.usedAt),
          gt(agentPairingCodes.expiresAt, now),
        ),
      )
      .returning({ organizationId: agentPairingCodes.organizationId, userId: agentPairingCodes.userId });
    return row ?? null;
  }

  async linkCode(codeHash: string, deviceId: string) {
    await this.orm
      .update(agentPairingCodes)
      .set({ deviceId })
      .where(eq(agentPairingCodes.codeHash, codeHash));
  }

  /** The member, when still active in the organisation, with the organisation's name. */
  async activeMember(organizationId: string, userId: string): Promise<DeviceMember | null> {
    const [row] = await this.orm
      .select({
        userId: users.id,
        email: users.email,
        firstName: users.firstName,
        lastName: users.lastName,
        organizationName: organizations.name,
      })
      .from(users)
      .innerJoin(organizations, eq(organizations.id, users.organizationId))
      .where(and(eq(users.id, userId), eq(users.organizationId, organizationId), eq(users.active, true)))
      .limit(1);
    return row ?? null;
  }

  async insertDevice(row: {
    organizationId: string;
    userId: string;
    name: string;
    platform: AgentPlatform;
    version: string;
    tokenHash: string;
  }): Promise<AgentDeviceRow> {
    const [created] = await this.orm.insert(agentDevices).values(row).returning();
    if (!created) throw new Error('agent device insert returned no row');
    return created;
  }

  /** The organisation's live devices, of one member or (userId null) of everyone, newest first. */
  async listDevices(organizationId: string, userId: string | null): Promise<ListedDevice[]> {
    const rows = await this.orm
      .select({ device: agentDevices, userEmail: users.email })
      .from(agentDevices)
      .innerJoin(users, eq(users.id, agentDevices.userId))
      .where(
        and(
          eq(agentDevices.organizationId, organizationId),
          isNull(agentDevices.revokedAt),
          userId ? eq(agentDevices.userId, userId) : undefined,
        ),
      )
      .orderBy(desc(agentDevices.createdAt));
    return rows.map((row) => ({ ...row.device, userEmail: row.userEmail }));
  }

  /** One live device of the organisation, locked until the transaction ends. */
  async lockLiveDevice(organizationId: string, id: string): Promise<AgentDeviceRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(agentDevices)
      .where(
        and(
          eq(agentDevices.id, id),
          eq(agentDevices.organizationId, organizationId),
          isNull(agentDevices.revokedAt),
        ),
      )
      .for('update');
    return row;
  }

  /** One live device of the organisation (null when unknown, another organisation's, or revoked). */
  async liveDevice(organizationId: string, id: string): Promise<AgentDeviceRow | null> {
    const [row] = await this.orm
      .select()
      .from(agentDevices)
      .where(
        and(
          eq(agentDevices.id, id),
          eq(agentDevices.organizationId, organizationId),
          isNull(agentDevices.revokedAt),
        ),
      )
      .limit(1);
    return row ?? null;
  }

  async revoke(organizationId: string, id: string, now: Date) {
    await this.orm
      .update(agentDevices)
      .set({ revokedAt: now })
      .where(and(eq(agentDevices.id, id), eq(agentDevices.organizationId, organizationId)));
    // Its unused tickets can no longer connect anything.
    await this.orm
      .delete(agentTickets)
      .where(and(eq(agentTickets.deviceId, id), eq(agentTickets.organizationId, organizationId)));
  }

  /** The device behind a token hash when it may still act. Read on every call (no cache): revoking works at once. */
  async liveByTokenHash(tokenHash: string): Promise<LiveDevice | null> {
    const [row] = await this.orm
      .select({
        id: agentDevices.id,
        userId: agentDevices.userId,
        organizationId: agentDevices.organizationId,
        role: roles.title,
        lastSeenAt: agentDevices.lastSeenAt,
      })
      .from(agentDevices)
      .innerJoin(
        users,
        and(eq(users.id, agentDevices.userId), eq(users.organizationId, agentDevices.organizationId)),
      )
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(
        and(eq(agentDevices.tokenHash, tokenHash), isNull(agentDevices.revokedAt), eq(users.active, true)),
      )
      .limit(1);
    return row ? { ...row, role: row.role as RoleTitle } : null;
  }

  /** Stamps the device's last call unless a stamp newer than `staleBefore` is there. */
  async touch(id: string, now: Date, staleBefore: Date) {
    await this.orm
      .update(agentDevices)
      .set({ lastSeenAt: now })
      .where(
        and(
          eq(agentDevices.id, id),
          or(isNull(agentDevices.lastSeenAt), lt(agentDevices.lastSeenAt, staleBefore)),
        ),
      );
  }

  async insertTicket(row: {
    ticketHash: string;
    organizationId: string;
    deviceId: string;
    userId: string;
    expiresAt: Date;
  }) {
    await this.orm.insert(agentTickets).values(row);
  }

  /** Uses the ticket if it is this device's, unused and unexpired (one statement, so once); null otherwise. */
  async useTicket(ticketHash: string, organizationId: string, deviceId: string, now: Date) {
    const [row] = await this.orm
      .update(agentTickets)
      .set({ usedAt: now })
      .where(
        and(
          eq(agentTickets.ticketHash, ticketHash),
          eq(agentTickets.organizationId, organizationId),
          eq(agentTickets.deviceId, deviceId),
          isNull(agentTickets.usedAt),
          gt(agentTickets.expiresAt, now),
        ),
      )
      .returning({ userId: agentTickets.userId });
    return row ?? null;
  }

  /** Whether the organisation confirmed the ftX charge (a CBS organisation needs not). */
  async ftxConfirmed(organizationId: string): Promise<boolean> {
    const [row] = await this.orm
      .select({ confirmedFtx: organizations.confirmedFtx, isCbs: organizations.isCbs })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .limit(1);
    return row ? row.confirmedFtx || row.isCbs : false;
  }

  /** Records a reported transfer; null when this device already reported this transfer id. */
  async insertTransfer(
    row: Omit<typeof agentTransfers.$inferInsert, 'id' | 'createdAt'> & { direction: AgentDirection },
  ): Promise<AgentTransferRow | null> {
    const [created] = await this.orm
      .insert(agentTransfers)
      .values(row)
      .onConflictDoNothing({ target: [agentTransfers.deviceId, agentTransfers.transferId] })
      .returning();
    return created ?? null;
  }

  async findTransfer(
    organizationId: string,
    deviceId: string,
    transferId: string,
  ): Promise<AgentTransferRow | null> {
    const [row] = await this.orm
      .select()
      .from(agentTransfers)
      .where(
        and(
          eq(agentTransfers.organizationId, organizationId),
          eq(agentTransfers.deviceId, deviceId),
          eq(agentTransfers.transferId, transferId),
        ),
      )
      .limit(1);
    return row ?? null;
  }

  #scope(scope: HistoryScope): SQL | undefined {
    return and(
      eq(agentTransfers.organizationId, scope.organizationId),
      scope.userId ? eq(agentTransfers.userId, scope.userId) : undefined,
    );
  }

  /** A page of the history, newest first, and how many there are in all. */
  async history(scope: HistoryScope, limit: number, offset: number) {
    const where = this.#scope(scope);
    const [rows, [total]] = await Promise.all([
      this.orm
        .select()
        .from(agentTransfers)
        .where(where)
        .orderBy(desc(agentTransfers.createdAt), desc(agentTransfers.id))
        .limit(limit)
        .offset(offset),
      this.orm.select({ count: count() }).from(agentTransfers).where(where),
    ]);
    return { rows, count: total?.count ?? 0 };
  }

  /** Count, bytes and cost of the history between two instants, both included. */
  /** Spec 001 §2: each summary card shows the files moved (not the transfers), their size and cost. */
  async summary(scope: HistoryScope, from: Date, to: Date) {
    const [row] = await this.orm
      .select({
        count: sql<string>`coalesce(sum(${agentTransfers.filesCount}), 0)`,
        size: sql<string>`coalesce(sum(${agentTransfers.size}), 0)`,
        cost: sql<string>`coalesce(sum(${agentTransfers.cost}), 0)`,
      })
      .from(agentTransfers)
      .where(and(this.#scope(scope), gte(agentTransfers.createdAt, from), lte(agentTransfers.createdAt, to)));
    return { count: Number(row?.count ?? 0), size: Number(row?.size ?? 0), cost: Number(row?.cost ?? 0) };
  }
}

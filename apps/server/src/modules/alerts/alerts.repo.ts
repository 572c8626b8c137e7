import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { alerts, notificationReads, notifications, users } from '../../db/schema/index.ts';
import { ROLE_ID } from '@cumulo/contract';

export type AlertRow = typeof alerts.$inferSelect;
type NotificationRow = typeof notifications.$inferSelect;
/** A notification as one member sees it: with that member's read state. */
export type MemberNotificationRow = NotificationRow & { read: boolean };

/** The notifications a member sees: their organisation's, for one of the audiences of their role. */
const seenBy = (organizationId: string, audiences: ReadonlyArray<NotificationRow['audience']>) =>
  and(eq(notifications.organizationId, organizationId), inArray(notifications.audience, [...audiences]));

/** Joins a notification to the member's read mark, if they read it. */
const readBy = (userId: string) =>
  and(eq(notificationReads.notificationId, notifications.id), eq(notificationReads.userId, userId));

/** SQL of alerts and bell notifications; every query is scoped to one organisation. */
export class AlertsRepo {
  constructor(readonly orm: Database) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: AlertsRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new AlertsRepo(tx as unknown as Database)));
  }

  async listForAccount(organizationId: string, accountId: string, bucketName?: string): Promise<AlertRow[]> {
    return this.orm
      .select()
      .from(alerts)
      .where(
        and(
          eq(alerts.organizationId, organizationId),
          eq(alerts.cloudAccountId, accountId),
          bucketName === undefined ? undefined : eq(alerts.bucketName, bucketName),
        ),
      )
      .orderBy(alerts.createdAt);
  }

  async listForOrganization(organizationId: string): Promise<AlertRow[]> {
    return this.orm.select().from(alerts).where(eq(alerts.organizationId, organizationId));
  }

  async organizationsWithAlerts(): Promise<string[]> {
    const rows = await this.orm.selectDistinct({ id: alerts.organizationId }).from(alerts);
    return rows.map((r) => r.id);
  }

  async insert(values: typeof alerts.$inferInsert): Promise<AlertRow> {
    const [row] = await this.orm.insert(alerts).values(values).returning();
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  async delete(organizationId: string, id: string): Promise<AlertRow | undefined> {
    const [row] = await this.orm
      .delete(alerts)
      .where(and(eq(alerts.organizationId, organizationId), eq(alerts.id, id)))
      .returning();
    return row;
  }

  /**
   * Marks the alert as over its limit, only if it was not already: the one row that wins this update is the one
   * crossing that notifies, however many checks run at once.
   */
  async markOver(id: string, at: Date): Promise<AlertRow | undefined> {
    const [row] = await this.orm
      .update(alerts)
      .set({ over: true, lastNotified: at })
      .where(and(eq(alerts.id, id), eq(alerts.over, false)))
      .returning();
    return row;
  }

  /** Re-arms an alert whose value fell back under its limit. */
  async markUnder(id: string): Promise<void> {
    await this.orm
      .update(alerts)
      .set({ over: false })
      .where(and(eq(alerts.id, id), eq(alerts.over, true)));
  }

  async insertNotification(values: typeof notifications.$inferInsert): Promise<NotificationRow> {
    const [row] = await this.orm.insert(notifications).values(values).returning();
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  /**
   * The organisation's notifications, newest first, each with whether `userId` has read it; only those whose
   * `audience` is among `audiences` (an Admin sees 'approvers' entries, an Owner 'owners' ones too).
   */
  async notifications(
    organizationId: string,
    userId: string,
    audiences: ReadonlyArray<NotificationRow['audience']>,
    limit?: number,
  ): Promise<MemberNotificationRow[]> {
    const query = this.orm
      .select({
        id: notifications.id,
        organizationId: notifications.organizationId,
        title: notifications.title,
        description: notifications.description,
        status: notifications.status,
        avatar: notifications.avatar,
        alertId: notifications.alertId,
        audience: notifications.audience,
        link: notifications.link,
        createdAt: notifications.createdAt,
        read: sql<boolean>`${notificationReads.userId} is not null`,
      })
      .from(notifications)
      .leftJoin(notificationReads, readBy(userId))
      .where(seenBy(organizationId, audiences))
      .orderBy(desc(notifications.createdAt), desc(notifications.id));
    return limit ? query.limit(limit) : query;
  }

  /** How many of the notifications the member sees they have not read, however old. */
  async unreadCount(
    organizationId: string,
    userId: string,
    audiences: ReadonlyArray<NotificationRow['audience']>,
  ): Promise<number> {
    const [row] = await this.orm
      .select({ count: sql<number>`count(*)::int` })
      .from(notifications)
      .leftJoin(notificationReads, readBy(userId))
      .where(and(seenBy(organizationId, audiences), sql`${notificationReads.userId} is null`));
    return row?.count ?? 0;
  }

  /** Marks every notification the member sees read, in one statement; answers how many were unread. */
  async markAllRead(
    organizationId: string,
    userId: string,
    audiences: ReadonlyArray<NotificationRow['audience']>,
  ): Promise<number> {
    const result = await this.orm.execute(sql`
      insert into ${notificationReads} (notification_id, user_id)
      select ${notifications.id}, ${userId}::uuid from ${notifications}
      where ${seenBy(organizationId, audiences)}
      on conflict do nothing`);
    return result.rowCount ?? 0;
  }

  /** Marks the organisation's notifications among `ids` read for `userId`; answers how many of the ids are its. */
  async markRead(organizationId: string, userId: string, ids: string[]): Promise<number> {
    const own = await this.orm
      .select({ id: notifications.id })
      .from(notifications)
      .where(and(eq(notifications.organizationId, organizationId), inArray(notifications.id, ids)));
    if (own.length === 0) return 0;
    await this.orm
      .insert(notificationReads)
      .values(own.map((row) => ({ notificationId: row.id, userId })))
      .onConflictDoNothing();
    return own.length;
  }

  /** Who gets the alert e-mail: its creator, or the organisation's Owners and Admins when the creator is gone. */
  async recipients(
    organizationId: string,
    createdBy: string | null,
  ): Promise<Array<{ email: string; firstName: string }>> {
    const select = { email: users.email, firstName: users.firstName };
    if (createdBy) {
      const rows = await this.orm
        .select(select)
        .from(users)
        .where(and(eq(users.organizationId, organizationId), eq(users.id, createdBy)));
      if (rows.length) return rows;
    }
    return this.orm
      .select(select)
      .from(users)
      .where(
        and(
          eq(users.organizationId, organizationId),
          or(eq(users.roleId, ROLE_ID.Owner), eq(users.roleId, ROLE_ID.Admin)),
          eq(users.active, true),
        ),
      );
  }
}

import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { chatWebhooks, shareDownloads, shares, users } from '../../db/schema/index.ts';

export type ShareRow = typeof shares.$inferSelect;
type ChatWebhookRow = typeof chatWebhooks.$inferSelect;

export interface ShareListRow extends ShareRow {
  creatorName: string | null;
  downloadCount: number;
}

/** SQL of shares, their download log and the chat webhook; organisation-scoped except the token lookup. */
export class SharingRepo {
  constructor(readonly orm: Database) {}

  /** Runs `work` in one transaction, as a change and its audit entry must (ARCHITECTURE "Audit trail"). */
  transaction<T>(work: (tx: SharingRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new SharingRepo(tx as unknown as Database)));
  }

  async insert(values: typeof shares.$inferInsert): Promise<ShareRow> {
    const [row] = await this.orm.insert(shares).values(values).returning();
    if (!row) throw new Error('share insert returned no row');
    return row;
  }

  /** Removes a share whose delivery failed, so no link exists that nobody received. */
  async delete(id: string): Promise<void> {
    await this.orm.delete(shares).where(eq(shares.id, id));
  }

  /** The public page's lookup: a token is the only key a signed-out visitor has, whatever its organisation. */
  async findByTokenHash(tokenHash: string): Promise<ShareRow | undefined> {
    const [row] = await this.orm.select().from(shares).where(eq(shares.tokenHash, tokenHash)).limit(1);
    return row;
  }

  async find(organizationId: string, id: string): Promise<ShareRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(shares)
      .where(and(eq(shares.organizationId, organizationId), eq(shares.id, id)))
      .limit(1);
    return row;
  }

  async list(
    organizationId: string,
    page: number,
    pageSize: number,
  ): Promise<{ rows: ShareListRow[]; total: number }> {
    const where = eq(shares.organizationId, organizationId);
    const rows = await this.orm
      .select({
        share: shares,
        creatorName: sql<string | null>`nullif(trim(${users.firstName} || ' ' || ${users.lastName}), '')`,
        downloadCount: sql<number>`(select count(*) from ${shareDownloads} where ${shareDownloads.shareId} = ${shares.id})::int`,
      })
      .from(shares)
      .leftJoin(users, eq(users.id, shares.createdBy))
      .where(where)
      .orderBy(desc(shares.createdAt), desc(shares.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize);
    const [total] = await this.orm.select({ n: count() }).from(shares).where(where);
    return {
      rows: rows.map((r) => ({ ...r.share, creatorName: r.creatorName, downloadCount: r.downloadCount })),
      total: total?.n ?? 0,
    };
  }

  /** Answers whether this call revoked it (false when it was revoked already). */
  async revoke(organizationId: string, id: string, at: Date): Promise<boolean> {
    const rows = await this.orm
      .update(shares)
      .set({ revokedAt: at })
      .where(and(eq(shares.organizationId, organizationId), eq(shares.id, id), isNull(shares.revokedAt)))
      .returning({ id: shares.id });
    return rows.length > 0;
  }

  async logDownload(values: typeof shareDownloads.$inferInsert): Promise<void> {
    await this.orm.insert(shareDownloads).values(values);
  }

  async userName(organizationId: string, userId: string): Promise<string | null> {
    const [row] = await this.orm
      .select({ firstName: users.firstName, lastName: users.lastName })
      .from(users)
      .where(and(eq(users.organizationId, organizationId), eq(users.id, userId)))
      .limit(1);
    return row ? `${row.firstName} ${row.lastName}`.trim() || null : null;
  }

  async webhook(organizationId: string): Promise<ChatWebhookRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(chatWebhooks)
      .where(eq(chatWebhooks.organizationId, organizationId))
      .limit(1);
    return row;
  }

  async saveWebhook(organizationId: string, urlSealed: string, channelName: string): Promise<ChatWebhookRow> {
    const values = { urlSealed, channelName, updatedAt: new Date() };
    const [row] = await this.orm
      .insert(chatWebhooks)
      .values({ organizationId, ...values })
      .onConflictDoUpdate({ target: chatWebhooks.organizationId, set: values })
      .returning();
    if (!row) throw new Error('webhook upsert returned no row');
    return row;
  }

  async deleteWebhook(organizationId: string): Promise<ChatWebhookRow | undefined> {
    const [row] = await this.orm
      .delete(chatWebhooks)
      .where(eq(chatWebhooks.organizationId, organizationId))
      .returning();
    return row;
  }
}

import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import type { RoleTitle } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { apiKeys, roles, users } from '../../db/schema/index.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** What a presented access key resolves to when it may still be used: its creator, live, in the key's organisation. */
interface LiveApiKey {
  id: string;
  secretHash: string;
  userId: string;
  organizationId: string;
  role: RoleTitle;
  lastUsedAt: Date | null;
}

/** SQL of API keys; every query of a member's keys names the member and their organisation. */
export class ApiKeysRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: ApiKeysRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new ApiKeysRepo(tx as unknown as Database)));
  }

  async list(organizationId: string, userId: string): Promise<ApiKeyRow[]> {
    return this.orm
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.organizationId, organizationId),
          eq(apiKeys.userId, userId),
          isNull(apiKeys.deletedAt),
        ),
      )
      .orderBy(desc(apiKeys.createdAt));
  }

  async insert(row: {
    organizationId: string;
    userId: string;
    accessKey: string;
    secretHash: string;
  }): Promise<ApiKeyRow> {
    const [created] = await this.orm.insert(apiKeys).values(row).returning();
    if (!created) throw new Error('api key insert returned no row');
    return created;
  }

  /** One of the member's live keys, locked until the transaction ends; undefined when they have no such key. */
  async lockOwn(organizationId: string, userId: string, id: string): Promise<ApiKeyRow | undefined> {
    const [row] = await this.orm
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.id, id),
          eq(apiKeys.organizationId, organizationId),
          eq(apiKeys.userId, userId),
          isNull(apiKeys.deletedAt),
        ),
      )
      .for('update');
    return row;
  }

  /** Changes one of the member's live keys; null when they have no such key. */
  async update(
    organizationId: string,
    userId: string,
    id: string,
    change: Partial<Pick<ApiKeyRow, 'active' | 'deletedAt'>>,
  ): Promise<ApiKeyRow | null> {
    const [row] = await this.orm
      .update(apiKeys)
      .set(change)
      .where(
        and(
          eq(apiKeys.id, id),
          eq(apiKeys.organizationId, organizationId),
          eq(apiKeys.userId, userId),
          isNull(apiKeys.deletedAt),
        ),
      )
      .returning();
    return row ?? null;
  }

  /**
   * The key behind `accessKey` when it is live: not deleted, active, and its creator still an active member of
   * the key's organisation. Read on every call (no cache), so deleting or deactivating works at once.
   */
  async live(accessKey: string): Promise<LiveApiKey | null> {
    const [row] = await this.orm
      .select({
        id: apiKeys.id,
        secretHash: apiKeys.secretHash,
        userId: apiKeys.userId,
        organizationId: apiKeys.organizationId,
        role: roles.title,
        lastUsedAt: apiKeys.lastUsedAt,
      })
      .from(apiKeys)
      .innerJoin(users, and(eq(users.id, apiKeys.userId), eq(users.organizationId, apiKeys.organizationId)))
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(
        and(
          eq(apiKeys.accessKey, accessKey),
          isNull(apiKeys.deletedAt),
          eq(apiKeys.active, true),
          eq(users.active, true),
        ),
      )
      .limit(1);
    return row ? { ...row, role: row.role as RoleTitle } : null;
  }

  /** Stamps the key's last use unless a stamp newer than `staleBefore` is there (another process may have). */
  async touch(id: string, now: Date, staleBefore: Date) {
    await this.orm
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore))));
  }
}

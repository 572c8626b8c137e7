import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { AuditEntity } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { apiKeys, audits } from '../../db/schema/index.ts';

/** Which entries of one organisation a read covers. `onlyAuthor` narrows a User's reads to their own entries. */
export interface AuditScope {
  organizationId: string;
  onlyAuthor: string | null;
  from?: Date;
  to?: Date;
  entities?: readonly AuditEntity[];
  users?: readonly string[];
}

const entryColumns = {
  id: audits.id,
  authorUserId: audits.authorUserId,
  authorName: audits.authorName,
  entity: audits.entity,
  type: audits.type,
  resource: audits.resource,
  resourceId: audits.resourceId,
  changes: audits.changes,
  createdAt: audits.createdAt,
  accessKey: apiKeys.accessKey,
};

export type AuditRow = Awaited<ReturnType<AuditRepo['page']>>['rows'][number];

/** SQL of the audit trail's reads. Only reads: entries are written by `recordAudit` (audit.writer.ts) and never changed. */
export class AuditRepo {
  constructor(private readonly orm: Database) {}

  #where(scope: AuditScope): SQL | undefined {
    return and(
      eq(audits.organizationId, scope.organizationId),
      scope.onlyAuthor ? eq(audits.authorUserId, scope.onlyAuthor) : undefined,
      scope.from ? gte(audits.createdAt, scope.from) : undefined,
      scope.to ? lt(audits.createdAt, scope.to) : undefined,
      scope.entities?.length ? inArray(audits.entity, [...scope.entities]) : undefined,
      scope.users?.length ? inArray(audits.authorUserId, [...scope.users]) : undefined,
    );
  }

  /** One page, newest first, with how many entries the scope holds. */
  async page(scope: AuditScope, offset: number, limit: number) {
    const where = this.#where(scope);
    const [rows, [count]] = await Promise.all([
      this.orm
        .select(entryColumns)
        .from(audits)
        .leftJoin(apiKeys, eq(apiKeys.id, audits.apiKeyId))
        .where(where)
        .orderBy(desc(audits.createdAt), desc(audits.id))
        .offset(offset)
        .limit(limit),
      this.orm
        .select({ total: sql<number>`count(*)::int` })
        .from(audits)
        .where(where),
    ]);
    return { rows, total: count?.total ?? 0 };
  }

  /**
   * The entries after the one with id `afterId` (older ones), newest first: the export reads the trail in such
   * pages. The cursor's time is read in SQL, as JavaScript dates would drop its microseconds.
   */
  async after(scope: AuditScope, afterId: number | null, limit: number) {
    return this.orm
      .select(entryColumns)
      .from(audits)
      .leftJoin(apiKeys, eq(apiKeys.id, audits.apiKeyId))
      .where(
        and(
          this.#where(scope),
          afterId === null
            ? undefined
            : sql`(${audits.createdAt}, ${audits.id}) < (select a.created_at, a.id from audits a where a.id = ${afterId})`,
        ),
      )
      .orderBy(desc(audits.createdAt), desc(audits.id))
      .limit(limit);
  }

  /** The entities and authors present in the scope's entries; an author under the name of their latest entry. */
  async filters(scope: AuditScope) {
    const where = this.#where(scope);
    const [entities, authors] = await Promise.all([
      this.orm.selectDistinct({ entity: audits.entity }).from(audits).where(where).orderBy(audits.entity),
      this.orm
        .select({
          id: sql<string>`${audits.authorUserId}`,
          name: sql<string>`(array_agg(${audits.authorName} order by ${audits.id} desc))[1]`,
        })
        .from(audits)
        .where(and(where, sql`${audits.authorUserId} is not null`))
        .groupBy(audits.authorUserId),
    ]);
    return {
      entities: entities.map((row) => row.entity),
      users: authors.sort((a, b) => a.name.localeCompare(b.name)),
    };
  }
}

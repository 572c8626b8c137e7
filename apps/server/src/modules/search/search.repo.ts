import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';

/** One object as the index stores it; metadata left undefined keeps what the index already holds. */
export interface IndexedObject {
  key: string;
  size: number;
  lastModified: Date | null;
  contentType: string | null;
  userMetadata?: Record<string, string>;
}

/** A copied object: its key at the destination, the key it was copied from, what was written. */
export interface CopiedObject {
  key: string;
  sourceKey: string;
  size: number;
  lastModified: Date | null;
}

/** A row of a search answer. */
export type SearchRow = {
  cloud_account_id: string;
  project_name: string;
  bucket: string;
  key: string;
  name: string;
  prefix: string;
  size: string;
  content_type: string | null;
  last_modified: Date | null;
  user_metadata: Record<string, string> | null;
  custom_metadata: Record<string, string> | null;
  media_info: Record<string, unknown> | null;
  total: string;
};

/** The key's last segment (a folder marker keeps its own name) and its folder. */
function splitKey(key: string): { name: string; prefix: string } {
  const trimmed = key.endsWith('/') ? key.slice(0, -1) : key;
  const slash = trimmed.lastIndexOf('/');
  return { name: trimmed.slice(slash + 1), prefix: slash < 0 ? '' : trimmed.slice(0, slash + 1) };
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0
    ? ''
    : name
        .slice(dot + 1)
        .toLowerCase()
        .slice(0, 32);
}

/** SQL of the media-search index (issue 26 point 4); every statement names the organisation. */
export class SearchRepo {
  constructor(readonly orm: Database) {}

  /** The database's clock: a walk marks what it saw with it, and hooks' `now()` is never behind it. */
  async now(): Promise<Date> {
    const result = await this.orm.execute<{ now: Date }>(sql`select clock_timestamp() as now`);
    const [row] = result.rows;
    return row ? new Date(row.now) : new Date();
  }

  /**
   * Inserts or refreshes `objects` in one multi-row statement (unnest of column arrays). Metadata the caller does
   * not know (a listing's) keeps the index's; a changed size drops media info, which described other bytes.
   */
  async upsert(
    organizationId: string,
    accountId: string,
    bucket: string,
    objects: IndexedObject[],
    seenAt: Date | null,
  ): Promise<void> {
    if (objects.length === 0) return;
    const keys: string[] = [];
    const names: string[] = [];
    const prefixes: string[] = [];
    const sizes: number[] = [];
    const types: Array<string | null> = [];
    const extensions: string[] = [];
    const modified: Array<string | null> = [];
    const metadata: Array<string | null> = [];
    for (const object of objects) {
      const { name, prefix } = splitKey(object.key);
      keys.push(object.key);
      names.push(name);
      prefixes.push(prefix);
      sizes.push(object.size);
      types.push(object.contentType);
      extensions.push(extensionOf(name));
      modified.push(object.lastModified ? object.lastModified.toISOString() : null);
      metadata.push(object.userMetadata ? JSON.stringify(object.userMetadata) : null);
    }
    await this.orm.execute(sql`
      insert into search_objects as o (organization_id, cloud_account_id, bucket, key, name, prefix, size,
        content_type, extension, last_modified, user_metadata, seen_at)
      select ${organizationId}::uuid, ${accountId}::uuid, ${bucket}, u.key, u.name, u.prefix, u.size, u.content_type,
        u.extension, u.last_modified, u.user_metadata, coalesce(${seenAt}::timestamptz, now())
      from unnest(${sql.param(keys)}::text[], ${sql.param(names)}::text[], ${sql.param(prefixes)}::text[], ${sql.param(sizes)}::bigint[], ${sql.param(types)}::text[],
        ${sql.param(extensions)}::text[], ${sql.param(modified)}::timestamptz[], ${sql.param(metadata)}::jsonb[])
        as u(key, name, prefix, size, content_type, extension, last_modified, user_metadata)
      on conflict (organization_id, cloud_account_id, bucket, key) do update set
        size = excluded.size,
        content_type = coalesce(excluded.content_type, o.content_type),
        last_modified = coalesce(excluded.last_modified, o.last_modified),
        user_metadata = coalesce(excluded.user_metadata, o.user_metadata),
        media_info = case when o.size = excluded.size then o.media_info end,
        seen_at = greatest(o.seen_at, excluded.seen_at)`);
  }

  /**
   * Inserts or refreshes copies in one multi-row statement, like `upsert`: each copy takes the content type, user
   * metadata and (same size, so the same bytes) media info its source has in the index, as a copy carries them.
   * `source` null: the copies came from no indexed bucket (the local agent).
   */
  async upsertCopies(
    organizationId: string,
    destination: { accountId: string; bucket: string },
    source: { accountId: string; bucket: string } | null,
    copies: CopiedObject[],
  ): Promise<void> {
    if (copies.length === 0) return;
    const keys: string[] = [];
    const sourceKeys: string[] = [];
    const names: string[] = [];
    const prefixes: string[] = [];
    const sizes: number[] = [];
    const extensions: string[] = [];
    const modified: Array<string | null> = [];
    for (const copy of copies) {
      const { name, prefix } = splitKey(copy.key);
      keys.push(copy.key);
      sourceKeys.push(copy.sourceKey);
      names.push(name);
      prefixes.push(prefix);
      sizes.push(copy.size);
      extensions.push(extensionOf(name));
      modified.push(copy.lastModified ? copy.lastModified.toISOString() : null);
    }
    await this.orm.execute(sql`
      insert into search_objects as o (organization_id, cloud_account_id, bucket, key, name, prefix, size,
        content_type, extension, last_modified, user_metadata, media_info, seen_at)
      select ${organizationId}::uuid, ${destination.accountId}::uuid, ${destination.bucket}, u.key, u.name, u.prefix,
        u.size, s.content_type, u.extension, u.last_modified, s.user_metadata,
        case when s.size = u.size then s.media_info end, now()
      from unnest(${sql.param(keys)}::text[], ${sql.param(sourceKeys)}::text[], ${sql.param(names)}::text[],
        ${sql.param(prefixes)}::text[], ${sql.param(sizes)}::bigint[], ${sql.param(extensions)}::text[],
        ${sql.param(modified)}::timestamptz[])
        as u(key, source_key, name, prefix, size, extension, last_modified)
      left join search_objects s on s.organization_id = ${organizationId}
        and s.cloud_account_id = ${source?.accountId ?? null}::uuid and s.bucket = ${source?.bucket ?? null}
        and s.key = u.source_key
      on conflict (organization_id, cloud_account_id, bucket, key) do update set
        size = excluded.size,
        content_type = coalesce(excluded.content_type, o.content_type),
        last_modified = coalesce(excluded.last_modified, o.last_modified),
        user_metadata = coalesce(excluded.user_metadata, o.user_metadata),
        media_info = coalesce(excluded.media_info, case when o.size = excluded.size then o.media_info end),
        seen_at = greatest(o.seen_at, excluded.seen_at)`);
  }

  /** Sets the custom metadata or the media info of one indexed object (null clears it). */
  async setMetadata(
    organizationId: string,
    accountId: string,
    bucket: string,
    key: string,
    column: 'custom_metadata' | 'media_info',
    value: Record<string, unknown> | null,
  ): Promise<void> {
    const json = value === null ? null : JSON.stringify(value);
    await this.orm.execute(sql`
      update search_objects set ${sql.identifier(column)} = ${json}::jsonb
      where organization_id = ${organizationId} and cloud_account_id = ${accountId} and bucket = ${bucket}
        and key = ${key}`);
  }

  async remove(organizationId: string, accountId: string, bucket: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.orm.execute(sql`
      delete from search_objects
      where organization_id = ${organizationId} and cloud_account_id = ${accountId} and bucket = ${bucket}
        and key = any(${sql.param(keys)}::text[])`);
  }

  /** Every object under `prefix` ('' is the whole bucket). */
  async removePrefix(
    organizationId: string,
    accountId: string,
    bucket: string,
    prefix: string,
  ): Promise<void> {
    await this.orm.execute(sql`
      delete from search_objects
      where organization_id = ${organizationId} and cloud_account_id = ${accountId} and bucket = ${bucket}
        and starts_with(key, ${prefix})`);
  }

  /** Removes the bucket's rows last seen before `before`: what a finished walk did not meet is gone. */
  async sweep(organizationId: string, accountId: string, bucket: string, before: Date): Promise<number> {
    const result = await this.orm.execute(sql`
      delete from search_objects
      where organization_id = ${organizationId} and cloud_account_id = ${accountId} and bucket = ${bucket}
        and seen_at < ${before.toISOString()}::timestamptz`);
    return result.rowCount ?? 0;
  }

  /** One page of matches, most relevant first, then by name; `total` on every row is the count of all matches. */
  async search(where: SQL, relevance: SQL, limit: number): Promise<SearchRow[]> {
    const result = await this.orm.execute<SearchRow>(searchStatement(where, relevance, limit));
    return result.rows;
  }
}

/** The statement of `SearchRepo.search`, apart so bench/media-search times exactly it. */
export function searchStatement(where: SQL, relevance: SQL, limit: number): SQL {
  return sql`
    select o.cloud_account_id, a.name as project_name, o.bucket, o.key, o.name, o.prefix, o.size, o.content_type,
      o.last_modified, o.user_metadata, o.custom_metadata, o.media_info, count(*) over () as total
    from search_objects o join cloud_accounts a on a.id = o.cloud_account_id
    where ${where}
    order by ${relevance} desc, o.name, o.key, o.bucket
    limit ${limit}`;
}

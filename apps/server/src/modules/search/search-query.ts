import { sql, type SQL } from 'drizzle-orm';
import {
  MEDIA_SEARCH_FIELDS,
  mediaSearchMessages,
  type MediaSearchBody,
  type MediaSearchFilter,
} from '@cumulo/contract';
import { badRequest } from '../../errors.ts';

/** `%`, `_` and `\` typed by a member are letters, not LIKE wildcards. */
export function likeContains(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A text that reads as a number, as a number; null otherwise (never a cast error on odd metadata). */
const numericOf = (expr: SQL) =>
  sql`(case when ${expr} ~ '^-?[0-9]{1,15}(\\.[0-9]{1,15})?$' then (${expr})::numeric end)`;

/**
 * The texts a field stands for (a filter holds when any of them does) and, when it has one, its number. Only the
 * closed list and `metadata.<name>` reach here (the contract refuses anything else); names and values travel as
 * parameters, never as SQL text.
 */
function fieldOf(field: string): { texts: SQL[]; number: SQL | null } {
  switch (field as (typeof MEDIA_SEARCH_FIELDS)[number]) {
    case 'name':
      return { texts: [sql`o.name`], number: null };
    case 'path':
      return { texts: [sql`o.prefix`], number: null };
    case 'key':
      return { texts: [sql`o.key`], number: null };
    case 'bucket':
      return { texts: [sql`o.bucket`], number: null };
    case 'account':
      return { texts: [sql`a.name`, sql`o.cloud_account_id::text`], number: null };
    case 'size':
      return { texts: [sql`o.size::text`], number: sql`o.size::numeric` };
    case 'type':
      return { texts: [sql`o.extension`, sql`o.content_type`], number: null };
  }
  const name = field.slice('metadata.'.length);
  const path = `{${name.split('.').join(',')}}`;
  const texts = [
    // A label is named as its member typed it ('Scene', 'Shot Type'); a field names it in lower case.
    sql`(select e.value from jsonb_each_text(o.custom_metadata) e where lower(e.key) = ${name} limit 1)`,
    sql`o.user_metadata ->> ${name}`,
    sql`o.media_info #>> ${path}::text[]`,
  ];
  return { texts, number: sql`coalesce(${sql.join(texts.map(numericOf), sql`, `)})` };
}

const anyOf = (parts: SQL[]) => sql`coalesce((${sql.join(parts, sql` or `)}), false)`;

/** One filter as a boolean SQL expression. */
function filterSql(filter: MediaSearchFilter): SQL {
  const { texts, number } = fieldOf(filter.field);
  const value = filter.value;
  const asText = String(value);
  switch (filter.comparator) {
    case 'match':
    case 'does not match': {
      const equal =
        typeof value === 'number' && number !== null
          ? sql`coalesce(${number} = ${value}, false)`
          : anyOf(texts.map((t) => sql`lower(${t}) = lower(${asText})`));
      return filter.comparator === 'match' ? equal : sql`not ${equal}`;
    }
    case 'contains':
    case 'does not contain': {
      const contains = anyOf(texts.map((t) => sql`${t} ilike ${likeContains(asText)}`));
      return filter.comparator === 'contains' ? contains : sql`not ${contains}`;
    }
    case 'greater than':
    case 'less than': {
      if (number === null) throw badRequest(mediaSearchMessages.numberField(filter.field));
      const op = filter.comparator === 'greater than' ? sql`>` : sql`<`;
      return sql`coalesce(${number} ${op} ${value}, false)`;
    }
  }
}

/**
 * `o.key ilike '%keyword%'`, said so that trigram indexes answer it without one over whole keys (the costliest
 * index to keep while a million objects arrive, bench/media-search): a key is its folder (`prefix`, ending with '/')
 * then its name, which holds no '/'. So a keyword without '/' is in the key exactly when it is in the folder or in
 * the name; one with '/' is in the folder, or spans the two: the folder ends with what comes up to its last '/',
 * and the name starts with the rest. A folder marker ('a/b/') ends with a '/' its name lacks: those few keys have
 * a trigram index of their own (`search_objects_folder_key_trgm`).
 */
function keyContains(keyword: string): SQL {
  const pattern = likeContains(keyword);
  const slash = keyword.lastIndexOf('/');
  if (slash < 0) return sql`(o.prefix ilike ${pattern} or o.name ilike ${pattern})`;
  const head = likeContains(keyword.slice(0, slash + 1)).slice(0, -1);
  const tail = likeContains(keyword.slice(slash + 1)).slice(1);
  return sql`(o.prefix ilike ${pattern} or (o.prefix ilike ${head} and o.name ilike ${tail})
    or (o.key like '%/' and o.key ilike ${pattern}))`;
}

/** The WHERE and the relevance of a search, always within the caller's organisation. */
export function searchSql(organizationId: string, body: MediaSearchBody): { where: SQL; relevance: SQL } {
  const { keyword, config, context } = body;
  const parts: SQL[] = [sql`o.organization_id = ${organizationId}`];
  if (config.cloud_accounts !== undefined)
    parts.push(sql`o.cloud_account_id = any(${sql.param(config.cloud_accounts)}::uuid[])`);
  if (config.cloud_account_id !== undefined) parts.push(sql`o.cloud_account_id = ${config.cloud_account_id}`);
  const bucket = config.bucket ?? config.bucket_name;
  if (bucket !== undefined && bucket !== '') parts.push(sql`o.bucket = ${bucket}`);
  const path = config.path?.replace(/^\/+/, '');
  if (path !== undefined && path !== '') parts.push(sql`starts_with(o.key, ${path})`);
  let relevance: SQL = sql`0::real`;
  if (keyword !== '') {
    if (config.query_type === 'name') {
      // The name contains the keyword (trigram index), or a name word or metadata value is it (full-text index).
      parts.push(
        sql`(o.name ilike ${likeContains(keyword)} or o.document @@ plainto_tsquery('simple', ${keyword}))`,
      );
      relevance = sql`similarity(o.name, ${keyword})`;
    } else {
      parts.push(keyContains(keyword));
      relevance = sql`similarity(o.key, ${keyword})`;
    }
  }
  for (const filter of context.filters) parts.push(filterSql(filter));
  return { where: sql.join(parts, sql` and `), relevance };
}

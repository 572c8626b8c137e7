import { sql, type SQL } from 'drizzle-orm';
import { DIRECTION_PROVIDER_LABELS, PROVIDER_NAMES } from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { cloudAccounts, transferBatches, users } from '../../db/schema/index.ts';
import { likeContains } from '../search/search-query.ts';
import { isoText } from './admin.repo.ts';

/** The Usage Detail filter as instants: the service turned the days of `tz` into them. */
export interface UsageScope {
  organizationId?: string;
  userId?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive: the instant after the last day. */
  to?: Date;
  /** The checked directions; absent: every batch, those whose account was removed included. */
  directions?: readonly { source: string; destination: string }[];
}

/** One direction's bytes; a provider is null where the batch's account was removed before batches recorded it. */
interface DirectionBytes {
  source: string | null;
  destination: string | null;
  bytes: number;
}

interface CostGroup extends DirectionBytes {
  sourceAccount: string | null;
  destinationAccount: string | null;
}

/** Where the CSV's reading of the history stopped: the last row's exact instant and id. */
export interface HistoryCursor {
  requestedAt: string;
  id: string;
}

export interface HistoryRow {
  cursor: HistoryCursor;
  id: string;
  user: string | null;
  source: string | null;
  destination: string | null;
  sourceBucket: string;
  destinationBucket: string;
  bytes: number;
  objects: number;
  requestedAt: string;
  finishedAt: string | null;
}

/** The label of an unknown provider (a removed account) in SQL, matching the service's. */
export const UNKNOWN_PROVIDER_LABEL = 'Unknown';

/**
 * SQL of the Usage Detail and Transfer Cost screens over every organisation's transfer batches (both transfer
 * types), joined to their accounts' providers. Sums and groups are made here, pages cut here: the indexes on
 * (organization_id, requested_at), (user_id, requested_at) and (requested_at) narrow the batches first.
 */
export class AdminUsageRepo {
  constructor(private readonly orm: Database) {}

  /** Every source → destination provider pair the scope's batches have (known providers only). */
  async directions(organizationId: string | undefined): Promise<{ source: string; destination: string }[]> {
    const result = await this.orm.execute<{ source: string; destination: string }>(sql`
      with ${pairsOf({ organizationId })}
      select distinct src.provider as source, dst.provider as destination
      ${fromPairs}
      where src.provider is not null and dst.provider is not null`);
    return result.rows;
  }

  /** The users of the user dropdown: the organisation's, or everybody's; by name. */
  async users(organizationId: string | undefined) {
    const result = await this.orm.execute<{ id: string; name: string; email: string }>(sql`
      select u.id, trim(concat_ws(' ', u.first_name, u.last_name)) as name, u.email from ${users} u
      where ${organizationId ? sql`u.organization_id = ${organizationId}` : sql`true`}
      order by lower(u.first_name), lower(u.last_name), u.email`);
    return result.rows;
  }

  async totals(scope: UsageScope): Promise<DirectionBytes[]> {
    const result = await this.orm.execute<{
      source: string | null;
      destination: string | null;
      bytes: string;
    }>(sql`
      with ${pairsOf(scope)}
      select src.provider as source, dst.provider as destination, sum(p.bytes)::text as bytes
      ${fromPairs} where ${directionWhere(scope)}
      group by src.provider, dst.provider`);
    return result.rows.map((row) => ({ ...row, bytes: Number(row.bytes) }));
  }

  async countHistory(scope: UsageScope): Promise<number> {
    const result = await this.orm.execute<{ total: number }>(sql`select count(*)::int as total
      ${fromBatches} where ${batchWhere(scope)} and ${directionWhere(scope)}`);
    return result.rows[0]?.total ?? 0;
  }

  /** A page of the scope's batches newest first (then by id, so pages never overlap). */
  async history(scope: UsageScope, limit: number, offset: number): Promise<HistoryRow[]> {
    return this.#history(scope, sql`true`, limit, offset);
  }

  /**
   * The batches after `cursor` in the same order (the CSV reads them so: each step finds its place through the
   * index instead of skipping every row before it, so a file of a million batches costs as much per row as the
   * first page).
   */
  async historyAfter(scope: UsageScope, cursor: HistoryCursor | null, limit: number): Promise<HistoryRow[]> {
    const after = cursor
      ? sql`(b.requested_at, b.id) < (${cursor.requestedAt}::timestamptz, ${cursor.id}::uuid)`
      : sql`true`;
    return this.#history(scope, after, limit, 0);
  }

  async #history(scope: UsageScope, after: SQL, limit: number, offset: number): Promise<HistoryRow[]> {
    const result = await this.orm.execute<{
      id: string;
      user_name: string | null;
      source: string | null;
      destination: string | null;
      source_bucket: string;
      destination_bucket: string;
      bytes: string;
      objects: number;
      requested_at: string;
      requested_at_key: string;
      finished_at: string | null;
    }>(sql`
      select b.id, trim(concat_ws(' ', u.first_name, u.last_name)) as user_name,
        src.provider as source, dst.provider as destination, b.source_bucket, b.destination_bucket,
        b.transferred_size::text as bytes, b.total_number as objects,
        ${isoText(sql`b.requested_at`)} as requested_at,
        to_char(b.requested_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as requested_at_key,
        case when b.finished_at is null then null else ${isoText(sql`b.finished_at`)} end as finished_at
      ${fromBatches} left join ${users} u on u.id = b.user_id
      where ${batchWhere(scope)} and ${directionWhere(scope)} and ${after}
      order by b.requested_at desc, b.id desc
      limit ${limit} offset ${offset}`);
    return result.rows.map((row) => ({
      id: row.id,
      user: row.user_name,
      source: row.source,
      destination: row.destination,
      sourceBucket: row.source_bucket,
      destinationBucket: row.destination_bucket,
      bytes: Number(row.bytes),
      objects: row.objects,
      requestedAt: row.requested_at,
      finishedAt: row.finished_at,
      cursor: { requestedAt: row.requested_at_key, id: row.id },
    }));
  }

  async countCostGroups(scope: UsageScope, search: string | undefined): Promise<number> {
    const result = await this.orm.execute<{ total: number }>(sql`with ${pairsOf(scope)}
      select count(*)::int as total from (${costGroups(scope, search)}) g`);
    return result.rows[0]?.total ?? 0;
  }

  /** Per direction and pair of account names, the bytes copied; by direction label, then the names. */
  async costGroups(
    scope: UsageScope,
    search: string | undefined,
    limit: number,
    offset: number,
  ): Promise<CostGroup[]> {
    const result = await this.orm.execute<{
      source: string | null;
      destination: string | null;
      source_account: string | null;
      destination_account: string | null;
      bytes: string;
    }>(sql`with ${pairsOf(scope)}
      select g.source, g.destination, g.source_account, g.destination_account, g.bytes::text as bytes
      from (${costGroups(scope, search)}) g
      order by g.label, g.source_account nulls last, g.destination_account nulls last
      limit ${limit} offset ${offset}`);
    return result.rows.map((row) => ({
      source: row.source,
      destination: row.destination,
      sourceAccount: row.source_account,
      destinationAccount: row.destination_account,
      bytes: Number(row.bytes),
    }));
  }
}

/**
 * A batch's two sides as `src` and `dst`: the provider recorded on the batch when it was made (so removing an
 * account leaves its past transfers' prices and directions as they were), else its account's; the account's name.
 */
const side = (
  provider: SQL,
  accountId: SQL,
) => sql`(select coalesce(${provider}, a.provider) as provider, a.name
  from (select 1) one left join ${cloudAccounts} a on a.id = ${accountId})`;

const fromBatches = sql`from ${transferBatches} b
  cross join lateral ${side(sql`b.source_provider`, sql`b.source_cloud_account_id`)} src
  cross join lateral ${side(sql`b.destination_provider`, sql`b.destination_cloud_account_id`)} dst`;

/**
 * The scope's bytes per pair of accounts, summed over the batches before any join (the `with` of the grouped
 * reads): a few hundred pairs are joined to their providers and names instead of every batch.
 */
function pairsOf(scope: UsageScope): SQL {
  return sql`pairs as (
    select b.source_cloud_account_id as source_id, b.destination_cloud_account_id as destination_id,
      b.source_provider, b.destination_provider, sum(b.transferred_size) as bytes
    from ${transferBatches} b where ${batchWhere(scope)}
    group by b.source_cloud_account_id, b.destination_cloud_account_id, b.source_provider, b.destination_provider)`;
}

const fromPairs = sql`from pairs p
  cross join lateral ${side(sql`p.source_provider`, sql`p.source_id`)} src
  cross join lateral ${side(sql`p.destination_provider`, sql`p.destination_id`)} dst`;

function costGroups(scope: UsageScope, search: string | undefined): SQL {
  const label = sql`(${providerLabel(sql`src.provider`)} || ' to ' || ${providerLabel(sql`dst.provider`)})`;
  const searched = search ? sql`and ${label} ilike ${likeContains(search)}` : sql``;
  return sql`select src.provider as source, dst.provider as destination, src.name as source_account,
      dst.name as destination_account, ${label} as label, sum(p.bytes) as bytes
    ${fromPairs} where ${directionWhere(scope)} ${searched}
    group by src.provider, dst.provider, src.name, dst.name`;
}

/** The contract's provider labels in SQL, so the search and the order use what the table shows. */
function providerLabel(provider: SQL): SQL {
  const cases = PROVIDER_NAMES.map((name) => sql`when ${name} then ${DIRECTION_PROVIDER_LABELS[name]}`);
  return sql`(case ${provider} ${sql.join(cases, sql` `)} else ${UNKNOWN_PROVIDER_LABEL} end)`;
}

/** What narrows the batches themselves: organisation, user, period. */
function batchWhere(scope: UsageScope): SQL {
  const conditions: SQL[] = [sql`true`];
  if (scope.organizationId) conditions.push(sql`b.organization_id = ${scope.organizationId}`);
  if (scope.userId) conditions.push(sql`b.user_id = ${scope.userId}`);
  if (scope.from) conditions.push(sql`b.requested_at >= ${scope.from.toISOString()}`);
  if (scope.to) conditions.push(sql`b.requested_at < ${scope.to.toISOString()}`);
  return sql.join(conditions, sql` and `);
}

/** The checked directions, over the joined accounts' providers (`src`, `dst`). */
function directionWhere(scope: UsageScope): SQL {
  if (!scope.directions) return sql`true`;
  const pairs = scope.directions.map((d) => sql`(${d.source}, ${d.destination})`);
  return pairs.length ? sql`(src.provider, dst.provider) in (${sql.join(pairs, sql`, `)})` : sql`false`;
}

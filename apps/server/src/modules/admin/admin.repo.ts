import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import {
  agentTransfers,
  analyticsMonthlyCosts,
  analyticsReportPeriods,
  cloudAccounts,
  instanceOperators,
  organizations,
  transferBatches,
  uploadReports,
  users,
} from '../../db/schema/index.ts';
import { likeContains } from '../search/search-query.ts';
import { operatorEmailMatch } from './instance-operators.repo.ts';

/** A UTC month as a half-open range of instants, and its 'YYYY-MM' (the analytics rollups' key). */
export interface MonthRange {
  from: Date;
  to: Date;
  month: string;
}

interface AccountListRow {
  id: string;
  name: string;
  description: string | null;
  createdAt: string;
  users: number;
  active: boolean;
}

interface UserListRow {
  id: string;
  name: string;
  email: string;
  createdAt: string;
  active: boolean;
  operator: boolean;
  organizationId: string;
  organizationName: string;
}

/** Bytes one organisation or user moved: transfers copied, per source provider (null: the account is gone). */
export interface MovedBytes {
  ownerId: string;
  sourceProvider: string | null;
  bytes: number;
}

/** `(select …)` lists of ids for `in`: never empty here, the callers return early. */
const idList = (ids: readonly string[]) => sql`${ids}`;

/**
 * The cross-organisation SQL of the operator's console (modules/admin/README.md): every organisation and user, and
 * what each moved. Only AdminService reaches it, after its operator check. Lists page in SQL; sums are made for
 * the page's ids only, so a page costs the same with ten organisations or ten thousand.
 */
export class AdminRepo {
  constructor(
    readonly orm: Database,
    private readonly operatorEmails: readonly string[],
  ) {}

  transaction<T>(work: (tx: AdminRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new AdminRepo(tx as unknown as Database, this.operatorEmails)));
  }

  async countAccounts(search: string | undefined): Promise<number> {
    const result = await this.orm.execute<{ total: number }>(sql`select count(*)::int as total
      from ${organizations} o where ${accountSearch(search)}`);
    return result.rows[0]?.total ?? 0;
  }

  /** Organisations by name (then id, so pages never overlap), with their member count and whether one is active. */
  async accountsPage(search: string | undefined, limit: number, offset: number): Promise<AccountListRow[]> {
    const result = await this.orm.execute<{
      id: string;
      name: string;
      description: string | null;
      created_at: string;
      users: number;
      active: boolean;
    }>(sql`select o.id, o.name, o.description, ${isoText(sql`o.created_at`)} as created_at,
        (select count(*)::int from ${users} u where u.organization_id = o.id) as users,
        exists (select 1 from ${users} u where u.organization_id = o.id and u.active) as active
      from ${organizations} o
      where ${accountSearch(search)}
      order by lower(o.name), o.name, o.id
      limit ${limit} offset ${offset}`);
    return result.rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      createdAt: row.created_at,
      users: row.users,
      active: row.active,
    }));
  }

  /** Every organisation for "Select Account", by name. */
  async accountOptions(): Promise<{ id: string; name: string }[]> {
    const result = await this.orm.execute<{ id: string; name: string }>(sql`select o.id, o.name
      from ${organizations} o order by lower(o.name), o.name, o.id`);
    return result.rows;
  }

  async findAccount(id: string): Promise<{ id: string; name: string } | undefined> {
    const result = await this.orm.execute<{ id: string; name: string }>(sql`select o.id, o.name
      from ${organizations} o where o.id = ${id}`);
    return result.rows[0];
  }

  /**
   * A new organisation with sign-up's defaults, unless one of that name exists (any case): null then. Run in a
   * transaction: the advisory lock on the lower-cased name makes two adds of one name at once see each other.
   */
  async createAccountUnlessNamed(name: string, description: string | null) {
    // Compared as people read names: any case, runs of white space as one space, none at the ends (an
    // organisation named at sign-up may hold "Case  Org").
    const sameName = name.trim().replace(/\s+/g, ' ').toLowerCase();
    await this.orm.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`admin-account:${sameName}`}, 0))`,
    );
    const taken = await this.orm.execute(
      sql`select 1 from ${organizations} o
          where lower(btrim(regexp_replace(o.name, '\\s+', ' ', 'g'))) = ${sameName} limit 1`,
    );
    if (taken.rows.length > 0) return null;
    const [row] = await this.orm
      .insert(organizations)
      .values({ name, description })
      .returning({ id: organizations.id, name: organizations.name });
    return row ?? null;
  }

  /**
   * Per organisation and source provider, the bytes of its transfer batches requested in the month (requested,
   * not finished: a batch counts in the month it was asked for, as its Initiation Date shows).
   */
  async monthTransfersOf(organizationIds: readonly string[], range: MonthRange): Promise<MovedBytes[]> {
    if (organizationIds.length === 0) return [];
    const result = await this.orm.execute<{ owner_id: string; source: string | null; bytes: string }>(sql`
      select b.organization_id as owner_id, coalesce(b.source_provider, src.provider) as source,
        sum(b.transferred_size)::text as bytes
      from ${transferBatches} b
      left join ${cloudAccounts} src on src.id = b.source_cloud_account_id
      where b.organization_id in ${idList(organizationIds)}
        and b.requested_at >= ${range.from.toISOString()} and b.requested_at < ${range.to.toISOString()}
      group by b.organization_id, coalesce(b.source_provider, src.provider)`);
    return result.rows.map(movedBytes);
  }

  /** Per organisation, the bytes uploaded in the month: from the browser, and by the transfer agents. */
  async monthUploadsOf(organizationIds: readonly string[], range: MonthRange): Promise<Map<string, number>> {
    if (organizationIds.length === 0) return new Map();
    const from = range.from.toISOString();
    const to = range.to.toISOString();
    const result = await this.orm.execute<{ owner_id: string; bytes: string }>(sql`
      select owner_id, sum(bytes)::text as bytes from (
        select r.organization_id as owner_id, r.size as bytes from ${uploadReports} r
        where r.organization_id in ${idList(organizationIds)} and r.created_at >= ${from} and r.created_at < ${to}
        union all
        select a.organization_id, a.size from ${agentTransfers} a
        where a.organization_id in ${idList(organizationIds)} and a.direction = 'upload'
          and a.created_at >= ${from} and a.created_at < ${to}
      ) moved group by owner_id`);
    return new Map(result.rows.map((row) => [row.owner_id, Number(row.bytes)]));
  }

  /**
   * Per organisation, the month's billed cost analytics read (nano-dollars), from the one current report period
   * of each account and month that analytics' own reads sum (analytics-costs.repo.ts `chosenPeriodsOf`).
   */
  async monthBilledOf(organizationIds: readonly string[], month: string): Promise<Map<string, bigint>> {
    if (organizationIds.length === 0) return new Map();
    const result = await this.orm.execute<{ owner_id: string; cost_nano: string }>(sql`
      with chosen as (
        select distinct on (cloud_account_id, period) id
        from ${analyticsReportPeriods}
        where organization_id in ${idList(organizationIds)} and current
        order by cloud_account_id, period, line_items desc, layout desc, report)
      select m.organization_id as owner_id, sum(m.cost_nano)::text as cost_nano
      from ${analyticsMonthlyCosts} m join chosen c on c.id = m.period_id
      where m.organization_id in ${idList(organizationIds)} and m.month = ${month}
      group by m.organization_id`);
    return new Map(result.rows.map((row) => [row.owner_id, BigInt(row.cost_nano)]));
  }

  async countUsers(filter: UserFilter): Promise<number> {
    const result = await this.orm.execute<{ total: number }>(sql`select count(*)::int as total
      from ${users} u where ${userWhere(filter)}`);
    return result.rows[0]?.total ?? 0;
  }

  /** Users newest first (the registration date), with their organisation and whether they are operators. */
  async usersPage(filter: UserFilter, limit: number, offset: number): Promise<UserListRow[]> {
    const result = await this.orm.execute<{
      id: string;
      name: string;
      email: string;
      created_at: string;
      active: boolean;
      operator: boolean;
      organization_id: string;
      organization_name: string;
    }>(sql`select u.id, trim(concat_ws(' ', u.first_name, u.last_name)) as name, u.email,
        ${isoText(sql`u.created_at`)} as created_at, u.active,
        (exists (select 1 from ${instanceOperators} io where io.user_id = u.id)
          or ${operatorEmailMatch(sql`u.email`, this.operatorEmails)}) as operator,
        o.id as organization_id, o.name as organization_name
      from ${users} u join ${organizations} o on o.id = u.organization_id
      where ${userWhere(filter)}
      order by u.created_at desc, u.id
      limit ${limit} offset ${offset}`);
    return result.rows.map((row) => ({
      id: row.id,
      name: row.name,
      email: row.email,
      createdAt: row.created_at,
      active: row.active,
      operator: row.operator,
      organizationId: row.organization_id,
      organizationName: row.organization_name,
    }));
  }

  /** A user's organisation, for the routes that act on a user by id alone. */
  async organizationOfUser(userId: string): Promise<string | undefined> {
    const result = await this.orm.execute<{ organization_id: string }>(sql`select u.organization_id
      from ${users} u where u.id = ${userId}`);
    return result.rows[0]?.organization_id;
  }

  /** Per user, the bytes of every transfer they started (all time), by source provider. */
  async userTransfersOf(userIds: readonly string[]): Promise<MovedBytes[]> {
    if (userIds.length === 0) return [];
    const result = await this.orm.execute<{ owner_id: string; source: string | null; bytes: string }>(sql`
      select b.user_id as owner_id, null::text as source, sum(b.transferred_size)::text as bytes
      from ${transferBatches} b where b.user_id in ${idList(userIds)}
      group by b.user_id`);
    return result.rows.map(movedBytes);
  }

  /** Per user, the bytes they uploaded (all time): browser uploads and their agents' uploads. */
  async userUploadsOf(userIds: readonly string[]): Promise<Map<string, number>> {
    if (userIds.length === 0) return new Map();
    const result = await this.orm.execute<{ owner_id: string; bytes: string }>(sql`
      select owner_id, sum(bytes)::text as bytes from (
        select r.user_id as owner_id, r.size as bytes from ${uploadReports} r where r.user_id in ${idList(userIds)}
        union all
        select a.user_id, a.size from ${agentTransfers} a
        where a.user_id in ${idList(userIds)} and a.direction = 'upload'
      ) moved group by owner_id`);
    return new Map(result.rows.map((row) => [row.owner_id, Number(row.bytes)]));
  }
}

interface UserFilter {
  search?: string;
  organizationId?: string;
}

const movedBytes = (row: { owner_id: string; source: string | null; bytes: string }): MovedBytes => ({
  ownerId: row.owner_id,
  sourceProvider: row.source,
  bytes: Number(row.bytes),
});

function accountSearch(search: string | undefined): SQL {
  return search ? sql`o.name ilike ${likeContains(search)}` : sql`true`;
}

function userWhere(filter: UserFilter): SQL {
  const conditions: SQL[] = [sql`true`];
  if (filter.organizationId) conditions.push(sql`u.organization_id = ${filter.organizationId}`);
  if (filter.search) {
    const pattern = likeContains(filter.search);
    conditions.push(
      sql`(concat_ws(' ', u.first_name, u.last_name) ilike ${pattern} or u.email ilike ${pattern})`,
    );
  }
  return sql.join(conditions, sql` and `);
}

/** A timestamptz as ISO 8601 text in UTC (raw queries return timestamps as text). */
export function isoText(value: SQL): SQL {
  return sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

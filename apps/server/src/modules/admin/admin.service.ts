import {
  ACCOUNT_COLUMNS,
  ROLE_ID,
  TRANSFER_COST_COLUMNS,
  TRANSFER_GB_BYTES,
  TRANSFER_HISTORY_COLUMNS,
  USAGE_TOTAL_COLUMNS,
  USER_COLUMNS,
  DIRECTION_PROVIDER_LABELS,
  adminMessages,
  csvLine,
  directionOf,
  parseDirection,
  roundTransferCost,
  transferCostEstimate,
  type AdminAccountRow,
  type AdminAccountsAnswer,
  type AdminAccountsQuery,
  type AdminColumn,
  type AdminDirection,
  type AdminTransferCostRow,
  type AdminTransferRow,
  type AdminUsageFilter,
  type AdminUsageFiltersAnswer,
  type AdminUsageTotalRow,
  type AdminUserRow,
  type AdminUsersQuery,
  type CreateAccountBody,
  type ProviderName,
  type inviteAdminUserBody,
} from '@cumulo/contract';
import type { z } from 'zod';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, forbidden, notFound } from '../../errors.ts';
import { recordAudit, changesOf } from '../audit/audit.writer.ts';
import type { MembersService } from '../members/members.service.ts';
import type { InstanceOperatorsRepo } from './instance-operators.repo.ts';
import type { AdminRepo, MonthRange, MovedBytes } from './admin.repo.ts';
import {
  UNKNOWN_PROVIDER_LABEL,
  type AdminUsageRepo,
  type HistoryCursor,
  type HistoryRow,
  type UsageScope,
} from './admin-usage.repo.ts';

/** The Add New User form as parsed (the e-mail lower-cased). */
type InviteAdminUserBody = z.output<typeof inviteAdminUserBody>;

/** Rows read per query while a CSV streams: the file never holds more than one batch in memory. */
const CSV_BATCH = 500;

interface Paging {
  page: number;
  pagesize: number;
}

/** The previous calendar month in UTC of `now`: what the Account list's Total Usage and Total Cost are of. */
function previousMonth(now: Date): MonthRange {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { from, to, month: from.toISOString().slice(0, 7) };
}

/**
 * The instant a day ('YYYY-MM-DD', plus `addDays`) starts in `timeZone` (the Usage Detail period's whole days).
 * Undefined outside the years 1–9999: no batch is that old or that late, so such a bound excludes nothing, and
 * PostgreSQL could not read it.
 */
function startOfDayIn(day: string, timeZone: string, addDays = 0): Date | undefined {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  // setUTCFullYear, not Date.UTC, which reads the years 0–99 as 1900–1999.
  const wall = new Date(0).setUTCFullYear(year, month - 1, date + addDays);
  // The zone's offset at a guess, then at the corrected instant (a day that starts inside a DST change).
  let instant = wall - offsetOf(wall, timeZone);
  instant = wall - offsetOf(instant, timeZone);
  return instant >= FIRST_INSTANT && instant < AFTER_LAST_INSTANT ? new Date(instant) : undefined;
}

const FIRST_INSTANT = new Date(0).setUTCFullYear(1, 0, 2);
const AFTER_LAST_INSTANT = new Date(0).setUTCFullYear(9999, 11, 31);

function offsetOf(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = new Date(0).setUTCFullYear(part('year'), part('month') - 1, part('day'));
  const wholeSecond = Math.floor(instant / 1000) * 1000;
  return asUtc + ((part('hour') * 60 + part('minute')) * 60 + part('second')) * 1000 - wholeSecond;
}

/**
 * A transfer's charge: its source's egress plus Cumulo's transfer charge per GB (bytes / 1024³, as /calc counts).
 * A removed source account's provider is unknown: priced like the S3-compatible stores (AWS egress), so a report
 * never undercounts (the contract's `egressPerGbFor` rule for providers off the price table).
 */
function transferCharge(sourceProvider: string | null, bytes: number) {
  return transferCostEstimate(priceAs(sourceProvider), bytes / TRANSFER_GB_BYTES);
}

const priceAs = (provider: string | null): ProviderName =>
  provider && parseDirection(`${provider}:${provider}`) ? (provider as ProviderName) : 'genericS3';

/** A direction of a batch; a removed account's side reads 'Unknown' (and its key 'unknown'). */
function directionOfBatch(source: string | null, destination: string | null): AdminDirection {
  const known = parseDirection(`${source}:${destination}`);
  if (known) return directionOf(known.source, known.destination);
  const label = (provider: string | null) =>
    provider && provider in DIRECTION_PROVIDER_LABELS
      ? DIRECTION_PROVIDER_LABELS[provider as ProviderName]
      : UNKNOWN_PROVIDER_LABEL;
  return {
    key: `${source ?? 'unknown'}:${destination ?? 'unknown'}`,
    label: `${label(source)} to ${label(destination)}`,
    source: source ?? 'unknown',
    destination: destination ?? 'unknown',
  };
}

/** The CSV of a table: the BOM, the titles, then every row of `pages` formatted as the table shows it. */
async function* csvOf<Row>(
  columns: ReadonlyArray<AdminColumn<Row>>,
  timeZone: string,
  batch: number,
  pages: (limit: number, offset: number) => Promise<Row[]>,
): AsyncGenerator<string> {
  yield `\uFEFF${csvLine(columns.map((column) => column.title))}`;
  for (let offset = 0; ; offset += batch) {
    const rows = await pages(batch, offset);
    if (rows.length > 0) yield rows.map((row) => csvLine(columns.map((c) => c.cell(row, timeZone)))).join('');
    if (rows.length < batch) return;
  }
}

/**
 * The instance operator's console (modules/admin/README.md). Every method checks first that the caller is an
 * operator (403 for everyone else, Owners included); only then does it reach the cross-organisation repos.
 */
export class AdminService {
  constructor(
    private readonly operators: InstanceOperatorsRepo,
    private readonly repo: AdminRepo,
    private readonly usage: AdminUsageRepo,
    private readonly members: MembersService,
    private readonly now: () => Date = () => new Date(),
    private readonly csvBatch = CSV_BATCH,
  ) {}

  async requireOperator(principal: Principal): Promise<void> {
    if (!(await this.operators.isOperator(principal.userId))) throw forbidden(adminMessages.operatorsOnly);
  }

  /* ---------- accounts ---------- */

  async accounts(principal: Principal, query: AdminAccountsQuery): Promise<AdminAccountsAnswer> {
    await this.requireOperator(principal);
    const range = previousMonth(this.now());
    const offset = (query.page - 1) * query.pagesize;
    const total = await this.repo.countAccounts(query.search);
    const accounts =
      offset < total ? await this.#accountRows(query.search, range, query.pagesize, offset) : [];
    return { month: range.month, total, page: query.page, pagesize: query.pagesize, accounts };
  }

  async accountsCsv(principal: Principal, query: AdminAccountsQuery) {
    await this.requireOperator(principal);
    const range = previousMonth(this.now());
    return csvOf(ACCOUNT_COLUMNS, query.tz, this.csvBatch, (limit, offset) =>
      this.#accountRows(query.search, range, limit, offset),
    );
  }

  async accountOptions(principal: Principal) {
    await this.requireOperator(principal);
    return this.repo.accountOptions();
  }

  /** "Add New Account": an organisation with no members yet; its first invited member becomes its Owner. */
  async createAccount(principal: Principal, body: CreateAccountBody) {
    await this.requireOperator(principal);
    const description = body.description?.trim() || null;
    const account = await this.repo.transaction(async (tx) => {
      const created = await tx.createAccountUnlessNamed(body.account_name, description);
      if (!created) return null;
      // The new organisation's trail starts with who made it: the operator, named as its author.
      await recordAudit(
        tx.orm,
        { organizationId: created.id, userId: principal.userId },
        {
          entity: 'Organization',
          type: 'Added',
          resource: created.name,
          resourceId: created.id,
          changes: changesOf(null, { name: created.name, description }),
        },
      );
      return created;
    });
    if (!account)
      throw badRequest(adminMessages.accountExists, { account_name: [adminMessages.accountExists] });
    return { message: adminMessages.accountCreated, account };
  }

  async #accountRows(search: string | undefined, range: MonthRange, limit: number, offset: number) {
    const rows = await this.repo.accountsPage(search, limit, offset);
    const ids = rows.map((row) => row.id);
    const [transfers, uploads, billed] = await Promise.all([
      this.repo.monthTransfersOf(ids, range),
      this.repo.monthUploadsOf(ids, range),
      this.repo.monthBilledOf(ids, range.month),
    ]);
    return rows.map((row): AdminAccountRow => {
      const moved = transfers.filter((t) => t.ownerId === row.id);
      const transferCost = moved.reduce((sum, t) => sum + transferCharge(t.sourceProvider, t.bytes).total, 0);
      const billedUsd = Number(billed.get(row.id) ?? 0n) / 1e9;
      return {
        id: row.id,
        accountName: row.name,
        description: row.description,
        totalUsage: bytesOf(moved) + (uploads.get(row.id) ?? 0),
        totalCost: roundTransferCost(transferCost + billedUsd),
        creationDate: row.createdAt,
        status: row.users === 0 ? 'No users yet' : row.active ? 'Active' : 'Deactivate',
        users: row.users,
      };
    });
  }

  /* ---------- users ---------- */

  async users(principal: Principal, query: AdminUsersQuery) {
    await this.requireOperator(principal);
    const filter = { search: query.search, organizationId: query.account };
    const offset = (query.page - 1) * query.pagesize;
    const total = await this.repo.countUsers(filter);
    const users = offset < total ? await this.#userRows(filter, query.pagesize, offset) : [];
    return { total, page: query.page, pagesize: query.pagesize, users };
  }

  async usersCsv(principal: Principal, query: AdminUsersQuery) {
    await this.requireOperator(principal);
    const filter = { search: query.search, organizationId: query.account };
    return csvOf(USER_COLUMNS, query.tz, this.csvBatch, (limit, offset) =>
      this.#userRows(filter, limit, offset),
    );
  }

  /**
   * "Add New User": a real invitation into the chosen organisation through the members module — as its Owner when
   * it has none yet (a new account's first member), else as a User.
   */
  async inviteUser(principal: Principal, body: InviteAdminUserBody) {
    await this.requireOperator(principal);
    const account = await this.repo.findAccount(body.organization_id);
    // The form's own field: the account picked in "Select Account" was removed meanwhile.
    if (!account) {
      throw badRequest(adminMessages.unknownAccount, { organization_id: [adminMessages.unknownAccount] });
    }
    const roleId = (await this.members.hasOwner(account.id)) ? ROLE_ID.User : ROLE_ID.Owner;
    await this.members.inviteByOperator(principal, account.id, body, roleId);
    return { message: adminMessages.userInvited(body.email) };
  }

  /** Active/Deactivate from /userList: the members module's own change, sessions ended included. */
  async setUserActive(principal: Principal, userId: string, active: boolean) {
    await this.requireOperator(principal);
    const organizationId = await this.repo.organizationOfUser(userId);
    if (!organizationId) throw notFound();
    return this.members.setActiveByOperator(principal, organizationId, userId, active);
  }

  async #userRows(filter: { search?: string; organizationId?: string }, limit: number, offset: number) {
    const rows = await this.repo.usersPage(filter, limit, offset);
    const ids = rows.map((row) => row.id);
    const [transfers, uploads] = await Promise.all([
      this.repo.userTransfersOf(ids),
      this.repo.userUploadsOf(ids),
    ]);
    return rows.map((row): AdminUserRow => ({
      id: row.id,
      userName: row.name || row.email,
      email: row.email,
      totalUsage: bytesOf(transfers.filter((t) => t.ownerId === row.id)) + (uploads.get(row.id) ?? 0),
      accountId: row.organizationId,
      accountName: row.organizationName,
      registrationDate: row.createdAt,
      active: row.active,
      operator: row.operator,
    }));
  }

  /* ---------- usage ---------- */

  async usageFilters(
    principal: Principal,
    organizationId: string | undefined,
  ): Promise<AdminUsageFiltersAnswer> {
    await this.requireOperator(principal);
    const account = organizationId ? await this.#account(organizationId) : null;
    const [users, pairs] = await Promise.all([
      this.usage.users(organizationId),
      this.usage.directions(organizationId),
    ]);
    const directions = pairs
      .map((pair) => directionOfBatch(pair.source, pair.destination))
      .sort((a, b) => a.label.localeCompare(b.label));
    return { account, users, directions };
  }

  async usageTotals(principal: Principal, filter: AdminUsageFilter): Promise<AdminUsageTotalRow[]> {
    await this.requireOperator(principal);
    return this.#totals(await this.#scope(filter));
  }

  async usageTotalsCsv(principal: Principal, filter: AdminUsageFilter) {
    await this.requireOperator(principal);
    const totals = await this.#totals(await this.#scope(filter));
    return csvOf(USAGE_TOTAL_COLUMNS, filter.tz, this.csvBatch, async (limit, offset) =>
      totals.slice(offset, offset + limit),
    );
  }

  async usageHistory(principal: Principal, query: AdminUsageFilter & Paging) {
    await this.requireOperator(principal);
    const scope = await this.#scope(query);
    const offset = (query.page - 1) * query.pagesize;
    const total = await this.usage.countHistory(scope);
    const rows = offset < total ? await this.#historyRows(scope, query.pagesize, offset) : [];
    return { total, page: query.page, pagesize: query.pagesize, rows };
  }

  async usageHistoryCsv(principal: Principal, filter: AdminUsageFilter) {
    await this.requireOperator(principal);
    const scope = await this.#scope(filter);
    // Read by keyset, not offset: each batch of rows starts where the last one ended.
    let cursor: HistoryCursor | null = null;
    return csvOf(TRANSFER_HISTORY_COLUMNS, filter.tz, this.csvBatch, async (limit) => {
      const rows = await this.usage.historyAfter(scope, cursor, limit);
      cursor = rows.at(-1)?.cursor ?? cursor;
      return rows.map(transferRowOf);
    });
  }

  async transferCosts(principal: Principal, query: AdminUsageFilter & Paging & { search?: string }) {
    await this.requireOperator(principal);
    const scope = await this.#scope(query);
    const offset = (query.page - 1) * query.pagesize;
    const total = await this.usage.countCostGroups(scope, query.search);
    const rows = offset < total ? await this.#costRows(scope, query.search, query.pagesize, offset) : [];
    return { total, page: query.page, pagesize: query.pagesize, rows };
  }

  async transferCostsCsv(principal: Principal, query: AdminUsageFilter & { search?: string }) {
    await this.requireOperator(principal);
    const scope = await this.#scope(query);
    return csvOf(TRANSFER_COST_COLUMNS, query.tz, this.csvBatch, (limit, offset) =>
      this.#costRows(scope, query.search, limit, offset),
    );
  }

  async #totals(scope: UsageScope): Promise<AdminUsageTotalRow[]> {
    return (await this.usage.totals(scope))
      .map((row) => {
        const direction = directionOfBatch(row.source, row.destination);
        return {
          direction: direction.key,
          label: direction.label,
          totalTransfer: row.bytes,
          totalCost: transferCharge(row.source, row.bytes).total,
        };
      })
      .sort((a, b) => a.label.localeCompare(b.label));
  }

  async #historyRows(scope: UsageScope, limit: number, offset: number): Promise<AdminTransferRow[]> {
    return (await this.usage.history(scope, limit, offset)).map(transferRowOf);
  }

  async #costRows(
    scope: UsageScope,
    search: string | undefined,
    limit: number,
    offset: number,
  ): Promise<AdminTransferCostRow[]> {
    return (await this.usage.costGroups(scope, search, limit, offset)).map((row) => {
      const direction = directionOfBatch(row.source, row.destination);
      const charge = transferCharge(row.source, row.bytes);
      return {
        direction: direction.key,
        label: direction.label,
        source: row.sourceAccount ?? UNKNOWN_PROVIDER_LABEL,
        destination: row.destinationAccount ?? UNKNOWN_PROVIDER_LABEL,
        transferSize: row.bytes,
        gbCost: charge.rate,
        totalCost: charge.total,
      };
    });
  }

  /** The filter as the repo reads it: the period's days of `tz` as instants, the directions' provider pairs. */
  async #scope(filter: AdminUsageFilter): Promise<UsageScope> {
    if (filter.account) await this.#account(filter.account);
    return {
      organizationId: filter.account,
      userId: filter.user,
      from: filter.start ? startOfDayIn(filter.start, filter.tz) : undefined,
      to: filter.end ? startOfDayIn(filter.end, filter.tz, 1) : undefined,
      directions: filter.directions?.map((key) => {
        const pair = parseDirection(key);
        if (!pair) throw badRequest(adminMessages.badDirection);
        return pair;
      }),
    };
  }

  async #account(id: string) {
    const account = await this.repo.findAccount(id);
    if (!account) throw notFound(adminMessages.unknownAccount);
    return account;
  }
}

function transferRowOf(row: HistoryRow): AdminTransferRow {
  const direction = directionOfBatch(row.source, row.destination);
  return {
    id: row.id,
    user: row.user || UNKNOWN_PROVIDER_LABEL,
    direction: direction.key,
    label: direction.label,
    sourceBucket: row.sourceBucket,
    destinationBucket: row.destinationBucket,
    transferSize: row.bytes,
    totalObject: row.objects,
    initiationDate: row.requestedAt,
    completionDate: row.finishedAt,
  };
}

const bytesOf = (moved: readonly MovedBytes[]) => moved.reduce((sum, t) => sum + t.bytes, 0);

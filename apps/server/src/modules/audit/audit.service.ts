import {
  AUDIT_EXPORT_MAX_ROWS,
  AUDIT_PAGE_SIZE,
  auditMessages,
  csvLine,
  type AuditEntry,
  type AuditFilters,
  type AuditPage,
  type AuditQuery,
} from '@cumulo/contract';
import type { Principal } from '../../authz/principal.ts';
import { badRequest } from '../../errors.ts';
import type { AuditRepo, AuditRow, AuditScope } from './audit.repo.ts';

/** The CSV's columns: one line per changed property of an entry (one line with empty change cells when none). */
const AUDIT_CSV_COLUMNS = [
  'time',
  'author',
  'entity',
  'resource',
  'type',
  'property',
  'initial',
  'value',
] as const;

const entryOf = (row: AuditRow): AuditEntry => ({
  id: String(row.id),
  author: row.authorUserId,
  username: row.authorName,
  resource: row.resource,
  resource_id: row.resourceId,
  entity: row.entity,
  type: row.type,
  created_on: row.createdAt.toISOString(),
  changes: row.changes,
  api_key: row.accessKey,
});

/** A query's dates as instants: a date alone means from the start of that UTC day, to the end of that UTC day. */
function instant(value: string | undefined, field: 'from' | 'to'): Date | undefined {
  if (value === undefined) return undefined;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const at = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(at.getTime()))
    throw badRequest(auditMessages.invalidDate, { [field]: [auditMessages.invalidDate] });
  if (dateOnly && field === 'to') at.setUTCDate(at.getUTCDate() + 1);
  return at;
}

/**
 * Reads of the audit trail (spec 002 §2 "Finance logs", §7 audits). Owners and Admins read the organisation's
 * whole trail; a User reads only the entries they authored. Nothing here writes: entries are appended by
 * `recordAudit` in the transaction of each change and never edited or deleted.
 */
export class AuditService {
  constructor(private readonly repo: AuditRepo) {}

  #scope(principal: Principal, query?: Omit<AuditQuery, 'offset' | 'limit'>): AuditScope {
    return {
      organizationId: principal.organizationId,
      onlyAuthor: principal.role === 'User' ? principal.userId : null,
      from: instant(query?.from, 'from'),
      to: instant(query?.to, 'to'),
      entities: query?.entities,
      users: query?.users,
    };
  }

  /** GET /audits/filters: the entities and authors the caller's readable entries hold. */
  async filters(principal: Principal): Promise<AuditFilters> {
    return this.repo.filters(this.#scope(principal));
  }

  /** GET /audits: one page of the caller's readable entries, newest first. */
  async page(principal: Principal, query: AuditQuery): Promise<AuditPage> {
    const { rows, total } = await this.repo.page(this.#scope(principal, query), query.offset, query.limit);
    return { audits: rows.map(entryOf), total, offset: query.offset, limit: query.limit };
  }

  /**
   * GET /audits/export: the CSV lines of the same entries, read page by page so a long trail is never held
   * whole; cut after AUDIT_EXPORT_MAX_ROWS entries with a last line that says so.
   */
  exportCsv(
    principal: Principal,
    query: Omit<AuditQuery, 'offset' | 'limit'>,
    pageSize = AUDIT_PAGE_SIZE * 25,
    maxRows = AUDIT_EXPORT_MAX_ROWS,
  ): AsyncIterable<string> {
    // Checked before the first line goes out, so bad input still answers 400 rather than a cut stream.
    return this.#csvLines(this.#scope(principal, query), pageSize, maxRows);
  }

  async *#csvLines(scope: AuditScope, pageSize: number, maxRows: number): AsyncGenerator<string> {
    // The byte order mark tells spreadsheets the file is UTF-8 (names, '•' of masked cards).
    yield `\uFEFF${csvLine(AUDIT_CSV_COLUMNS)}`;
    let written = 0;
    let afterId: number | null = null;
    for (;;) {
      const rows = await this.repo.after(scope, afterId, pageSize);
      for (const row of rows) {
        if (written === maxRows) {
          yield csvLine([auditMessages.exportCut(maxRows)]);
          return;
        }
        written += 1;
        const entry = [row.createdAt.toISOString(), row.authorName, row.entity, row.resource, row.type];
        const changes = row.changes.length ? row.changes : [{ property: null, initial: null, value: null }];
        yield changes
          .map((change) => csvLine([...entry, change.property, change.initial, change.value]))
          .join('');
      }
      const last = rows.at(-1);
      if (!last || rows.length < pageSize) return;
      afterId = last.id;
    }
  }
}

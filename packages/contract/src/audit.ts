import { z } from 'zod';

/**
 * The audit trail (spec 002 §2 "Finance logs", §3 "Audit entry", §7 audits; ARCHITECTURE "Audit trail"): every
 * change to an entity of the product writes one entry, in the same database transaction as the change.
 */

/** What an entry is about, as the /logs filter shows it. One name per kind of thing a member can change. */
export const AUDIT_ENTITIES = [
  'Cloud account',
  'Bucket',
  'Object',
  'Metadata',
  'Alert',
  'Share',
  'Chat webhook',
  'Transfer',
  'Encoding job',
  'Hybrik profile',
  'Hybrik job',
  'Hybrik settings',
  'Upload',
  'Sync job',
  'User',
  'Invitation',
  'Role permission',
  'User permission',
  'API key',
  'Transfer agent',
  'Payment card',
  'Subscription',
  'Organization',
  'Budget',
  'Budget alert',
  'Product',
  'Finance settings',
] as const;
export type AuditEntity = (typeof AUDIT_ENTITIES)[number];

export const AUDIT_TYPES = ['Added', 'Modified', 'Deleted'] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

/** Page size of GET audits and of the /logs infinite scroll (spec 002 §8). */
export const AUDIT_PAGE_SIZE = 20;
/** The most rows one CSV export holds; a longer range is cut and says so in its last line. */
export const AUDIT_EXPORT_MAX_ROWS = 100_000;
/** The name shown as author of what Cumulo did by itself (a renewal, a scheduled cycle), with no member behind it. */
export const AUDIT_SYSTEM_AUTHOR = 'Cumulo';

/** How a secret appears in `changes`: never its value (ARCHITECTURE "Secrets"). */
export const AUDIT_SECRET_MASK = '••••';

export const auditMessages = {
  title: 'Users Activities',
  empty: 'No Logs To View',
  loadFailed: 'Error while trying to filter logs.',
  /* Texts the spec leaves to us ("not shown"). */
  invalidDate: 'Please choose a valid date.',
  exportCut: (rows: number) =>
    `Only the first ${rows} entries are in this file: choose a shorter range for the rest.`,
} as const;

/** The /logs ranges (spec 002 §2). */
export const AUDIT_RANGES = ['Today', 'This Week', 'This Month', 'All'] as const;
export type AuditRange = (typeof AUDIT_RANGES)[number];

/** One changed property: its new `value` and its `initial` one (null where there was none: Added, Deleted). */
export const auditChange = z.object({
  property: z.string(),
  value: z.string().nullable(),
  initial: z.string().nullable(),
});
export type AuditChange = z.infer<typeof auditChange>;

/** One entry of GET audits (spec 002 §3 "Audit entry"). */
export const auditEntry = z.object({
  id: z.string(),
  /** The author's user id; null for what Cumulo did by itself. */
  author: z.string().nullable(),
  /** The author's name as it was when they acted (kept when they leave). */
  username: z.string(),
  /** Which one: the account's, bucket's, member's … name. */
  resource: z.string(),
  resource_id: z.string().nullable(),
  entity: z.enum(AUDIT_ENTITIES),
  type: z.enum(AUDIT_TYPES),
  created_on: z.string(),
  changes: z.array(auditChange),
  /** Set when the author acted through an API key: its access key. */
  api_key: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntry>;

export const auditPage = z.object({
  audits: z.array(auditEntry),
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
});
export type AuditPage = z.infer<typeof auditPage>;

/** GET audit filters: what the /logs selects offer, from the organisation's own entries. */
export const auditFilters = z.object({
  entities: z.array(z.enum(AUDIT_ENTITIES)),
  users: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type AuditFilters = z.infer<typeof auditFilters>;

/** A comma-separated list in a query string, or the key repeated. */
const listParam = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (raw) =>
      raw === undefined || raw === ''
        ? undefined
        : (Array.isArray(raw) ? raw : [raw]).flatMap((part) =>
            typeof part === 'string' ? part.split(',').filter(Boolean) : [part],
          ),
    z.array(item).max(100).optional(),
  );

/** An ISO time with its offset, or a date alone; bounded like every string the API reads. */
const instantParam = z.iso.datetime({ offset: true }).max(40).or(z.iso.date().max(10)).optional();

/** GET audits (spec 002 §7): from, to (ISO dates or times), entities, users, offset, limit 20. */
export const auditQuery = z.object({
  from: instantParam,
  to: instantParam,
  entities: listParam(z.enum(AUDIT_ENTITIES)),
  users: listParam(z.uuid()),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(AUDIT_PAGE_SIZE),
});
export type AuditQuery = z.infer<typeof auditQuery>;

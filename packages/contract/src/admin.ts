import { z } from 'zod';
import { formatBytes, formatUsd } from './format.ts';
import { PROVIDER_NAMES, type ProviderName } from './providers.ts';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN, NAME_MAX_LENGTH } from './validation.ts';
import { text } from './text.ts';

/**
 * The instance operator's console (issue 28; spec 002 §2 "Admin report screens", §3 admin rows, §5, §9): reports
 * over every organisation of one Cumulo, on real data. Only instance operators (the first account of a fresh
 * install, and the addresses in `OPERATOR_EMAILS`) see these screens or may call these routes; everyone else gets
 * 403 from the server. No organisation Owner can make someone an operator.
 *
 * Every list route takes `format=csv` as well: the same rows under the same filter, all pages, with the columns
 * and texts the table shows (`*_CSV_COLUMNS`, formatted by the functions below, shared by the web and the server),
 * streamed as `text/csv` — the screens' "Download Report".
 */

/** Spec 002 §9: admin tables page 10 rows at a time. */
export const ADMIN_PAGE_SIZE = 10;
/** Spec 002 §5, §9: the transfer report's search is cut to 20 characters (case-insensitive, over the direction). */
export const ADMIN_SEARCH_MAX = 20;
/** Spec 002 §9: "dates MM/DD/YYYY - hh:mm" (hours 00–23, so a time reads the same without AM/PM). */
export const ADMIN_DATE_FORMAT = 'MM/DD/YYYY - hh:mm';
/** The longest description of an organisation. */
export const ACCOUNT_DESCRIPTION_MAX = 500;

export const adminMessages = {
  /** The Detail cell of a Usage Detail total whose account was removed (its direction reads 'Unknown …'). */
  removedAccountNoDetail: 'Account removed',
  accountCreated: 'Account created successfully.',
  accountNameRequired: 'Please enter the account name.',
  accountExists: 'An account with this name already exists.',
  userInvited: (email: string) => `Invitation sent to ${email}.`,
  selectAccount: 'Please select an account.',
  firstNameRequired: 'Please enter the first name.',
  lastNameRequired: 'Please enter the last name.',
  emailRequired: 'Please enter a valid email.',
  unknownAccount: 'This account does not exist.',
  operatorsOnly: 'Only the operators of this Cumulo can see its accounts and users.',
  badPeriod: 'The end of the period must not be before its start.',
  badTimeZone: 'Unknown time zone.',
  badDirection: 'Unknown direction.',
} as const;

/**
 * An organisation's state in the Account list: Active while one of its members is active, Deactivate once all its
 * members are, and "No users yet" for one an operator added that nobody has joined (it was never deactivated).
 */
export const ACCOUNT_STATUSES = ['Active', 'Deactivate', 'No users yet'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/* ---------- queries ---------- */

const page = z.coerce.number().int().min(1).max(1_000_000).default(1);
const pagesize = z.coerce.number().int().min(1).max(100).default(ADMIN_PAGE_SIZE);
const search = text({ trim: true, max: 200 })
  .transform((s) => s.slice(0, ADMIN_SEARCH_MAX))
  .optional();
const isoDate = z.iso.date({ message: 'Use a date as YYYY-MM-DD.' }).max(10);
/** The IANA zone dates are shown in (the browser's); CSV dates use it too, so the file matches the table. */
export const timeZoneParam = text({ max: 64 }).refine(isTimeZone, adminMessages.badTimeZone).default('UTC');
const format = z.enum(['json', 'csv']).default('json');

/** `aws:wasabi` — a transfer direction: the source and destination providers of a batch. */
export const directionKey = z
  .string()
  .regex(/^[A-Za-z0-9]+:[A-Za-z0-9]+$/, adminMessages.badDirection)
  .refine((key) => parseDirection(key) !== null, adminMessages.badDirection);

/** Comma-separated direction keys (the checked boxes); absent = every direction. */
const directions = text({ max: 2000 })
  .transform((s, ctx) => {
    const keys = s
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    for (const key of keys) {
      if (parseDirection(key) === null) {
        ctx.addIssue({ code: 'custom', message: adminMessages.badDirection });
        return z.NEVER;
      }
    }
    return keys;
  })
  .optional();

/** GET /admin/accounts */
export const adminAccountsQuery = z.object({ page, pagesize, search, tz: timeZoneParam, format });
export type AdminAccountsQuery = z.infer<typeof adminAccountsQuery>;

/** GET /admin/users (`account`: one organisation's users only). */
export const adminUsersQuery = z.object({
  page,
  pagesize,
  search,
  account: z.uuid().optional(),
  tz: timeZoneParam,
  format,
});
export type AdminUsersQuery = z.infer<typeof adminUsersQuery>;

/**
 * The filter of /usageDetail and /transferCostDetail: a user (absent = ALL), an organisation (from the Account
 * list's Detail), a period of whole days in `tz` (both ends included; absent = no bound) and the checked directions.
 */
export const adminUsageFilter = z
  .object({
    user: z.uuid().optional(),
    account: z.uuid().optional(),
    start: isoDate.optional(),
    end: isoDate.optional(),
    directions,
    tz: timeZoneParam,
  })
  .refine((f) => !f.start || !f.end || f.start <= f.end, { message: adminMessages.badPeriod, path: ['end'] });
export type AdminUsageFilter = z.infer<typeof adminUsageFilter>;

/** GET /admin/usage/filters: what the filter bar offers for an organisation (or all). */
export const adminUsageFiltersQuery = z.object({ account: z.uuid().optional() });

/** GET /admin/usage/totals (the Total Transfer/Cost Report table; one row per direction, not paged). */
export const adminUsageTotalsQuery = z.intersection(adminUsageFilter, z.object({ format }));
/** GET /admin/usage/history (the Transfer History table). */
export const adminUsageHistoryQuery = z.intersection(adminUsageFilter, z.object({ page, pagesize, format }));
/** GET /admin/transfer-costs (/transferCostDetail; `search` over the direction's label, 20 characters). */
export const adminTransferCostsQuery = z.intersection(
  adminUsageFilter,
  z.object({ page, pagesize, search, format }),
);

/* ---------- bodies ---------- */

/** POST /admin/accounts — "Add New Account" (spec 002 §2: Account Name, Description). */
export const createAccountBody = z.object({
  // Runs of spaces inside the name are one space: "Case  Org" is the "Case Org" it was meant to be.
  account_name: text({ trim: true, max: NAME_MAX_LENGTH, error: adminMessages.accountNameRequired })
    .min(1, adminMessages.accountNameRequired)
    .transform((name) => name.replace(/\s+/g, ' ')),
  description: text({ trim: true, max: ACCOUNT_DESCRIPTION_MAX }).optional().nullable(),
});
export type CreateAccountBody = z.infer<typeof createAccountBody>;

/**
 * POST /admin/users — "Add New User" (spec 002 §2, §5: Select Account required): a real invitation into the chosen
 * organisation. Its role is Owner when the organisation has no Owner yet (a new account's first member), else User.
 */
export const inviteAdminUserBody = z.object({
  first_name: text({ trim: true, max: NAME_MAX_LENGTH, error: adminMessages.firstNameRequired }).min(
    1,
    adminMessages.firstNameRequired,
  ),
  last_name: text({ trim: true, max: NAME_MAX_LENGTH, error: adminMessages.lastNameRequired }).min(
    1,
    adminMessages.lastNameRequired,
  ),
  email: text({ trim: true, max: EMAIL_MAX_LENGTH, error: adminMessages.emailRequired })
    .transform((e) => e.toLowerCase())
    .refine((e) => EMAIL_PATTERN.test(e), adminMessages.emailRequired),
  organization_id: z.uuid({ message: adminMessages.selectAccount }),
});
export type InviteAdminUserBody = z.input<typeof inviteAdminUserBody>;

/** PUT /admin/users/{id}/active — Active/Deactivate from /userList (answers memberMessages.activated/deactivated). */
export const adminUserActiveBody = z.object({ active: z.boolean() });

/* ---------- answers ---------- */

/** A row of /admindaccount (spec 002 §2, §3 account row). Money in USD, sizes in bytes. */
export const adminAccountRow = z.object({
  id: z.string(),
  accountName: z.string(),
  description: z.string().nullable(),
  /** Bytes moved by Cumulo in the previous calendar month (UTC): transfers copied plus browser and agent uploads. */
  totalUsage: z.number(),
  /** The previous month's transfer charges plus the billed cost analytics read for that month. */
  totalCost: z.number(),
  creationDate: z.string(),
  status: z.enum(ACCOUNT_STATUSES),
  users: z.number(),
});
export type AdminAccountRow = z.infer<typeof adminAccountRow>;
export const adminAccountsAnswer = z.object({
  /** 'YYYY-MM': the month Total Usage and Total Cost are of. */
  month: z.string(),
  total: z.number(),
  page: z.number(),
  pagesize: z.number(),
  accounts: z.array(adminAccountRow),
});
export type AdminAccountsAnswer = z.infer<typeof adminAccountsAnswer>;

/** GET /admin/accounts/options — every organisation for "Select Account" (id and name, by name). */
export const adminAccountOptions = z.array(z.object({ id: z.string(), name: z.string() }));
export type AdminAccountOption = z.infer<typeof adminAccountOptions>[number];

export const createAccountAnswer = z.object({
  message: z.string(),
  account: z.object({ id: z.string(), name: z.string() }),
});

/** A row of /userList (spec 002 §2, §3 user report row). */
export const adminUserRow = z.object({
  id: z.string(),
  userName: z.string(),
  email: z.string(),
  /** Bytes this user moved through Cumulo, all time: transfers copied plus uploads. */
  totalUsage: z.number(),
  accountId: z.string(),
  accountName: z.string(),
  registrationDate: z.string(),
  active: z.boolean(),
  operator: z.boolean(),
});
export type AdminUserRow = z.infer<typeof adminUserRow>;
export const adminUsersAnswer = z.object({
  total: z.number(),
  page: z.number(),
  pagesize: z.number(),
  users: z.array(adminUserRow),
});
export type AdminUsersAnswer = z.infer<typeof adminUsersAnswer>;

export const adminDirection = z.object({
  key: z.string(),
  label: z.string(),
  source: z.string(),
  destination: z.string(),
});
export type AdminDirection = z.infer<typeof adminDirection>;

/** GET /admin/usage/filters: the header's Account Name, the user dropdown and the directions seen (spec 002 §2). */
export const adminUsageFiltersAnswer = z.object({
  /** The organisation asked for; null for every organisation. */
  account: z.object({ id: z.string(), name: z.string() }).nullable(),
  users: z.array(z.object({ id: z.string(), name: z.string(), email: z.string() })),
  /** Every source → destination provider pair of the organisation's (or all) transfers, by label. */
  directions: z.array(adminDirection),
});
export type AdminUsageFiltersAnswer = z.infer<typeof adminUsageFiltersAnswer>;

/** A row of the Total Transfer/Cost Report: one direction's bytes and cost under the filter. */
export const adminUsageTotalRow = z.object({
  direction: z.string(),
  label: z.string(),
  totalTransfer: z.number(),
  totalCost: z.number(),
});
export type AdminUsageTotalRow = z.infer<typeof adminUsageTotalRow>;
export const adminUsageTotalsAnswer = z.object({ totals: z.array(adminUsageTotalRow) });

/** A row of the Transfer History table (spec 002 §2): one transfer batch. */
export const adminTransferRow = z.object({
  id: z.string(),
  user: z.string(),
  direction: z.string(),
  label: z.string(),
  sourceBucket: z.string(),
  destinationBucket: z.string(),
  /** Bytes copied. */
  transferSize: z.number(),
  totalObject: z.number(),
  initiationDate: z.string(),
  completionDate: z.string().nullable(),
});
export type AdminTransferRow = z.infer<typeof adminTransferRow>;
export const adminUsageHistoryAnswer = z.object({
  total: z.number(),
  page: z.number(),
  pagesize: z.number(),
  rows: z.array(adminTransferRow),
});
export type AdminUsageHistoryAnswer = z.infer<typeof adminUsageHistoryAnswer>;

/**
 * A row of /transferCostDetail: one direction between two cloud accounts (Source, Destination are account names),
 * its bytes, the price per GB (source egress + Cumulo's transfer charge) and the total.
 */
export const adminTransferCostRow = z.object({
  direction: z.string(),
  label: z.string(),
  source: z.string(),
  destination: z.string(),
  transferSize: z.number(),
  gbCost: z.number(),
  totalCost: z.number(),
});
export type AdminTransferCostRow = z.infer<typeof adminTransferCostRow>;
export const adminTransferCostsAnswer = z.object({
  total: z.number(),
  page: z.number(),
  pagesize: z.number(),
  rows: z.array(adminTransferCostRow),
});
export type AdminTransferCostsAnswer = z.infer<typeof adminTransferCostsAnswer>;

/* ---------- directions ---------- */

/** The providers' names in direction labels (spec 002 §2: "AWS to Wasabi", "Generic S3 to Wasabi"). */
export const DIRECTION_PROVIDER_LABELS: Record<ProviderName, string> = {
  aws: 'AWS',
  wasabi: 'Wasabi',
  azure: 'Azure',
  backblaze: 'Backblaze',
  genericS3: 'Generic S3',
  google: 'Google Cloud',
  filebase: 'Filebase',
};

function isProvider(name: string): name is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}

/** `aws:wasabi` → its two providers; null when either is not a provider. */
export function parseDirection(key: string): { source: ProviderName; destination: ProviderName } | null {
  const [source, destination, rest] = key.split(':');
  if (rest !== undefined || !source || !destination || !isProvider(source) || !isProvider(destination))
    return null;
  return { source, destination };
}

export function directionOf(source: ProviderName, destination: ProviderName): AdminDirection {
  return {
    key: `${source}:${destination}`,
    label: `${DIRECTION_PROVIDER_LABELS[source]} to ${DIRECTION_PROVIDER_LABELS[destination]}`,
    source,
    destination,
  };
}

/* ---------- what the tables show (and the CSV repeats) ---------- */

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** An ISO instant as the admin tables show it in `timeZone`: 'MM/DD/YYYY - hh:mm' (24-hour). */
export function formatAdminDate(iso: string | null, timeZone = 'UTC'): string {
  if (!iso) return '';
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('month')}/${part('day')}/${part('year')} - ${part('hour')}:${part('minute')}`;
}

/** The date-only columns (Registration Date, Creation date): 'MM/DD/YYYY'. */
export function formatAdminDay(iso: string, timeZone = 'UTC'): string {
  return formatAdminDate(iso, timeZone).slice(0, 10);
}

/** Sizes and money as every admin table shows them. */
export const formatAdminSize = (bytes: number) => formatBytes(bytes);
export const formatAdminCost = (usd: number) => formatUsd(usd);
/** GB Cost: the price per GB with the transfer prices' 5 decimals trimmed of trailing zeros ('$0.15', '$0.237'). */
export const formatAdminRate = (usdPerGb: number) => formatUsd(usdPerGb, 5).replace(/(\.\d\d\d*?)0+$/, '$1');

/** A CSV column: its header (the table's) and the text of a row's cell. */
export interface AdminColumn<Row> {
  title: string;
  cell: (row: Row, timeZone: string) => string;
}

export const ACCOUNT_COLUMNS: ReadonlyArray<AdminColumn<AdminAccountRow>> = [
  { title: 'Account Name', cell: (r) => r.accountName },
  { title: 'Total Usage', cell: (r) => formatAdminSize(r.totalUsage) },
  { title: 'Total Cost', cell: (r) => formatAdminCost(r.totalCost) },
  { title: 'Creation date', cell: (r, tz) => formatAdminDay(r.creationDate, tz) },
  { title: 'Status', cell: (r) => r.status },
  { title: 'Users', cell: (r) => String(r.users) },
];

export const USER_COLUMNS: ReadonlyArray<AdminColumn<AdminUserRow>> = [
  { title: 'User Name', cell: (r) => r.userName },
  { title: 'Total Usage', cell: (r) => formatAdminSize(r.totalUsage) },
  { title: 'Account Name', cell: (r) => r.accountName },
  { title: 'Registration Date', cell: (r, tz) => formatAdminDay(r.registrationDate, tz) },
  { title: 'Status', cell: (r) => (r.active ? 'Active' : 'Deactivate') },
];

export const USAGE_TOTAL_COLUMNS: ReadonlyArray<AdminColumn<AdminUsageTotalRow>> = [
  { title: 'Direction', cell: (r) => r.label },
  { title: 'Total Transfer', cell: (r) => formatAdminSize(r.totalTransfer) },
  { title: 'Total Cost', cell: (r) => formatAdminCost(r.totalCost) },
];

export const TRANSFER_HISTORY_COLUMNS: ReadonlyArray<AdminColumn<AdminTransferRow>> = [
  { title: 'User', cell: (r) => r.user },
  { title: 'Direction', cell: (r) => r.label },
  { title: 'Source Bucket', cell: (r) => r.sourceBucket },
  { title: 'Destination Bucket', cell: (r) => r.destinationBucket },
  { title: 'Transfer Size', cell: (r) => formatAdminSize(r.transferSize) },
  { title: 'Total Object', cell: (r) => String(r.totalObject) },
  { title: 'Initiation Date', cell: (r, tz) => formatAdminDate(r.initiationDate, tz) },
  { title: 'Completion Date', cell: (r, tz) => formatAdminDate(r.completionDate, tz) },
];

export const TRANSFER_COST_COLUMNS: ReadonlyArray<AdminColumn<AdminTransferCostRow>> = [
  { title: 'Direction', cell: (r) => r.label },
  { title: 'Source', cell: (r) => r.source },
  { title: 'Destination', cell: (r) => r.destination },
  { title: 'Transfer Size', cell: (r) => formatAdminSize(r.transferSize) },
  { title: 'GB Cost', cell: (r) => formatAdminRate(r.gbCost) },
  { title: 'Total Cost', cell: (r) => formatAdminCost(r.totalCost) },
];

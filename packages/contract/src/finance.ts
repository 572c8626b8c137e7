import { z } from 'zod';
import { COST_CATEGORIES, productLabelOf } from './analytics.ts';
import { text } from './text.ts';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from './validation.ts';

/* ------------------------------------------------------------------------------------------------------------------
 * Finance — the budget manager (issue 25; spec 002 §1, §2 Finance, §3 Budget alert, Finance settings, Budget row,
 * Chart point, Tree node, Product; §5, §7 Budget and finance, §8, §9). Budgets are per cloud account, product and
 * month; actuals come from the analytics rollups (AWS Cost and Usage Reports). Money is US dollars with 2 decimals
 * on the wire, held as integer cents in PostgreSQL. A month is 'YYYY-MM' (UTC).
 * ---------------------------------------------------------------------------------------------------------------- */

/** The label of a cloud's own budget (its total), beside which product budgets are its sub budgets. */
export const BUDGET_TOTAL_LABEL = 'Total';
/** The largest budget a month or a year takes: a trillion dollars less a cent, exact in cents as a JS number. */
export const BUDGET_MAX = 999_999_999_999.99;
/** Alert percentages (spec 002 §5, §9): default 80, each can be disabled (null), 1 to 1000 otherwise. */
export const ALERT_PERCENT_DEFAULT = 80;
export const ALERT_PERCENT_MIN = 1;
export const ALERT_PERCENT_MAX = 1000;
/** How often the audit digest goes to `logs_emails` (spec 002 §3 "Finance settings"; default Monthly, §9). */
export const LOGS_FREQUENCIES = ['Daily', 'Weekly', 'Monthly'] as const;
export type LogsFrequency = (typeof LOGS_FREQUENCIES)[number];
export const LOGS_FREQUENCY_DEFAULT: LogsFrequency = 'Monthly';
/** At most this many addresses in `alert_emails` or `logs_emails`. */
export const FINANCE_EMAILS_MAX = 20;
/** The longest custom product name. */
export const PRODUCT_NAME_MAX = 100;
/** The hourly check that sends every digest that is due (minute 7, clear of the other crons). */
export const FINANCE_DIGEST_CRON = '7 * * * *';
/** The most audit entries one digest e-mail lists; it counts the rest and links to /logs. */
export const FINANCE_DIGEST_MAX_ENTRIES = 200;

export const BUDGET_FLAGS = ['yearly', 'monthly'] as const;
export type BudgetFlag = (typeof BUDGET_FLAGS)[number];

export const financeMessages = {
  /* Spec 002 §8, as written. */
  alertSaved: 'Alert saved successfully',
  alertSaveFailed: 'Failed to save alert please try again later',
  alertDeleted: 'Alert deleted successfully.',
  alertDeleteFailed: 'Failed to delete alert.',
  alertsFailed: 'Failed to retrieve notifications.',
  alertsServerError: 'Server error ... Something went wrong while fetching your alerts, please try again.',
  settingsSaved: 'Settings saved successfully.',
  settingsFailed: 'Failed to save settings, please try again.',
  budgetUpdated: 'Budget updated successfully',
  budgetFailed: 'Error updating budget, please try again.',
  invalidBudget: 'Enter a valid budget.',
  subBudgetMismatch: 'sub budgets does not match total budget',
  productSaved: 'Product saved successfully.',
  productFailed: 'Failed to save product, please try again.',
  productNameRequired: 'Please enter a valid product name.',
  /* Texts the spec leaves to us ("not shown"). */
  packageRequired: 'Budgets, budget alerts and finance reports are part of the Finance package.',
  invalidMonth: 'Choose a month as YYYY-MM.',
  invalidYear: 'Choose a year from last year to next year.',
  invalidPercent: `Enter a percentage from ${ALERT_PERCENT_MIN} to ${ALERT_PERCENT_MAX}, or turn the alert off.`,
  alertNeedsOne: 'Turn on an actual or a forecast alert, or delete the alert.',
  alertRange: 'The end month must not be before the start month.',
  alertYears: 'Choose months of this year or next year.',
  invalidEmail: (address: string) => `${address} is not a valid e-mail address.`,
  tooManyEmails: `Enter at most ${FINANCE_EMAILS_MAX} e-mail addresses.`,
  productExists: (name: string) => `A product named ${name} already exists.`,
  productReserved: `${BUDGET_TOTAL_LABEL} is the name of a cloud's own budget: choose another name.`,
  unknownLabel: (label: string) =>
    `${label} is not a product: choose ${BUDGET_TOTAL_LABEL}, a product of the billing reports or a custom product.`,
  budgetRange: 'The end month must not be before the start month, and both must be in one year.',
  monthRequired: 'Choose the month of this budget.',
  noReports: 'No billing reports for this account: actual costs come from AWS Cost and Usage Reports.',
  /** The bell and e-mail of a crossing. */
  crossedTitle: (scope: string) => `Budget alert: ${scope}`,
} as const;

/** 'YYYY-MM' of the years the finance reads cover (2000–2100): year 0 is no date PostgreSQL takes (it answered 500). */
const monthText = text({ max: 7 }).regex(/^(20\d\d|2100)-(0[1-9]|1[0-2])$/, financeMessages.invalidMonth);
const yearNumber = z.coerce
  .number({ error: financeMessages.invalidYear })
  .int(financeMessages.invalidYear)
  .min(2000, financeMessages.invalidYear)
  .max(2100, financeMessages.invalidYear);
/** A budget label: `Total`, a report product code (AmazonS3) or a custom product's name. */
const labelText = text({ max: PRODUCT_NAME_MAX, trim: true }).min(1, financeMessages.productNameRequired);

/** True when a number is money with at most 2 decimals, from 0 to BUDGET_MAX. */
export function isBudgetAmount(value: number): boolean {
  return (
    Number.isFinite(value) &&
    value >= 0 &&
    value <= BUDGET_MAX &&
    Math.abs(Math.round(value * 100) - value * 100) < 1e-6
  );
}

/** Parses what a member typed into a budget cell: the amount, or null for 'Enter a valid budget.'. */
export function parseBudgetInput(typed: string): number | null {
  const cleaned = typed.replace(/[$,\s]/g, '');
  if (!/^\d+(\.\d{1,2})?$/.test(cleaned)) return null;
  const value = Number(cleaned);
  return isBudgetAmount(value) ? value : null;
}

const budgetAmount = z
  .number({ error: financeMessages.invalidBudget })
  .min(0, financeMessages.invalidBudget)
  .max(BUDGET_MAX, financeMessages.invalidBudget)
  .refine(isBudgetAmount, { message: financeMessages.invalidBudget });

/**
 * PUT /finance/budget (spec 002 §7 "PUT budget {cloud, label, month, yearly amount, flag, start, end}").
 * `flag: 'yearly'` spreads `amount` evenly over `start`..`end` (one year's months; the cents left over go to the
 * last month, so the months add up to the amount exactly); `flag: 'monthly'` sets `month` to `amount`.
 */
export const putBudgetBody = z.object({
  cloud: z.uuid(),
  label: labelText,
  amount: budgetAmount,
  flag: z.enum(BUDGET_FLAGS),
  month: monthText.optional(),
  start: monthText.optional(),
  end: monthText.optional(),
});
export type PutBudgetBody = z.infer<typeof putBudgetBody>;

/** GET /finance/budget/hierarchical (the chart and the table) and GET /finance/budget.csv. */
export const budgetQuery = z.object({
  cloud: z.uuid(),
  year: yearNumber,
  label: labelText.default(BUDGET_TOTAL_LABEL),
  /** The service (another label) drawn beside for comparison: actual_cmp and budget_cmp. */
  compare: labelText.optional(),
});
export type BudgetQuery = z.infer<typeof budgetQuery>;

/** Spec 002 §3 "Budget row": one month of one cloud and label. */
export const budgetRow = z.object({
  month: z.string(),
  cloud: z.string(),
  label: z.string(),
  /** null: no budget set for the month. */
  budget: z.number().nullable(),
  actual: z.number(),
  /** The month's forecast (spec 000 §5) for the current month; the actual for a past month; null ahead. */
  forecast: z.number().nullable(),
  /** On a Total row: its product budgets set for the month do not add up to it. */
  budget_warning: z.boolean(),
  /** On a Total row: the sum of its product budgets for the month (null when none is set). */
  sub_budgets: z.number().nullable(),
});
export type BudgetRow = z.infer<typeof budgetRow>;

/** Spec 002 §3 "Chart point". */
export const chartPoint = z.object({
  month: z.string(),
  actual: z.number(),
  budget: z.number().nullable(),
  forecast: z.number().nullable(),
  actual_cmp: z.number().optional(),
  budget_cmp: z.number().nullable().optional(),
});
export type ChartPoint = z.infer<typeof chartPoint>;

export const budgetHierarchical = z.object({
  cloud: z.string(),
  label: z.string(),
  year: z.number(),
  compare: z.string().nullable(),
  rows: z.array(budgetRow),
  chart: z.array(chartPoint),
  yearly: z.object({ budget: z.number().nullable(), actual: z.number(), forecast: z.number().nullable() }),
  /** Whether the account has billing reports: without them every actual is 0 and the screen says why. */
  has_reports: z.boolean(),
  /** The last day of report data in the year ('YYYY-MM-DD'), null when none. */
  data_through: z.string().nullable(),
});
export type BudgetHierarchical = z.infer<typeof budgetHierarchical>;

export const budgetTreeQuery = z.object({ year: yearNumber });

/** Spec 002 §3 "Tree node": the organisation's clouds, each with its products, for one year. */
export interface TreeNode {
  cloud: string | null;
  /** The budget label the node stands for: `Total` on a cloud, the product code or custom name below it. */
  label: string;
  title: string;
  /** The year's budget (null: none set). */
  value: number | null;
  actual: number;
  budget_warning: boolean;
  children: TreeNode[];
}
export const treeNode: z.ZodType<TreeNode> = z.lazy(() =>
  z.object({
    cloud: z.string().nullable(),
    label: z.string(),
    title: z.string(),
    value: z.number().nullable(),
    actual: z.number(),
    budget_warning: z.boolean(),
    children: z.array(treeNode),
  }),
);

/** GET /finance/products?cloud: what a budget can be set for — report product codes, then custom products. */
export const financeProductsQuery = z.object({ cloud: z.uuid().optional() });
export const financeProduct = z.object({
  /** The budget label: a product code or the custom product's name. */
  name: z.string(),
  /** What the screens show: the code's label, or the custom name. */
  label: z.string(),
  category: z.enum(COST_CATEGORIES),
  custom: z.boolean(),
});
export type FinanceProduct = z.infer<typeof financeProduct>;

/** POST /finance/products (spec 002 §7 "save product {category, name}"; §5 'Please enter a valid product name.'). */
export const createProductBody = z.object({
  category: z.enum(COST_CATEGORIES).default('Others'),
  name: text({ max: PRODUCT_NAME_MAX, trim: true, error: financeMessages.productNameRequired }).min(
    1,
    financeMessages.productNameRequired,
  ),
});
export type CreateProductBody = z.infer<typeof createProductBody>;

const percent = z
  .number({ error: financeMessages.invalidPercent })
  .int(financeMessages.invalidPercent)
  .min(ALERT_PERCENT_MIN, financeMessages.invalidPercent)
  .max(ALERT_PERCENT_MAX, financeMessages.invalidPercent)
  .nullable();
/** A month as its first day: 'YYYY-MM-01' (spec 002 §3 "Budget alert": start, end are first days of months). */
const firstOfMonth = text({ max: 10 }).regex(/^\d{4}-(0[1-9]|1[0-2])-01$/, financeMessages.invalidMonth);

/** POST /finance/alerts (spec 002 §7 "Set alert"): one alert per cloud and product; saving again replaces it. */
export const setBudgetAlertBody = z.object({
  cloud: z.uuid(),
  product: labelText.default(BUDGET_TOTAL_LABEL),
  actual_alert_percent: percent,
  forecast_alert_percent: percent,
  start: firstOfMonth,
  end: firstOfMonth,
});
export type SetBudgetAlertBody = z.infer<typeof setBudgetAlertBody>;

/** Spec 002 §3 "Budget alert", with when it last fired. */
export const budgetAlert = z.object({
  id: z.string(),
  title: z.string(),
  cloud: z.string(),
  product: z.string(),
  actual_alert_percent: z.number().nullable(),
  forecast_alert_percent: z.number().nullable(),
  start: z.string(),
  end: z.string(),
  last_fired: z.string().nullable(),
});
export type BudgetAlert = z.infer<typeof budgetAlert>;

/** GET /finance/budget?cloud&product (spec 002 §7): the pair's alert, or the defaults of a new one (id null). */
export const budgetAlertQuery = z.object({ cloud: z.uuid(), product: labelText.default(BUDGET_TOTAL_LABEL) });
export const budgetAlertConfig = budgetAlert
  .pick({ start: true, end: true, actual_alert_percent: true, forecast_alert_percent: true })
  .extend({ id: z.string().nullable() });
export type BudgetAlertConfig = z.infer<typeof budgetAlertConfig>;

/** The first day of the current month and of December (spec 002 §5 alert date range defaults). */
export function defaultAlertRange(now: Date): { start: string; end: string } {
  const year = now.getUTCFullYear();
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return { start: `${year}-${month}-01`, end: `${year}-12-01` };
}

const emailList = z
  .array(
    text({ max: EMAIL_MAX_LENGTH, trim: true }).refine((value) => EMAIL_PATTERN.test(value), {
      error: (issue) => financeMessages.invalidEmail(String(issue.input)),
    }),
  )
  .max(FINANCE_EMAILS_MAX, financeMessages.tooManyEmails)
  .transform((list) => [...new Set(list.map((address) => address.toLowerCase()))]);

/** PUT /finance/settings (spec 002 §3 "Finance settings"). */
export const financeSettingsBody = z.object({
  alert_emails: emailList,
  logs_emails: emailList,
  logs_frequency: z.enum(LOGS_FREQUENCIES),
  show_dollar_sign: z.boolean(),
  show_decimal: z.boolean(),
  show_border: z.boolean(),
});
export type FinanceSettingsBody = z.infer<typeof financeSettingsBody>;

/** GET /finance/settings: the settings, and the digest's state (every background job's state is visible). */
export const financeSettings = z.object({
  alert_emails: z.array(z.string()),
  logs_emails: z.array(z.string()),
  logs_frequency: z.enum(LOGS_FREQUENCIES),
  show_dollar_sign: z.boolean(),
  show_decimal: z.boolean(),
  show_border: z.boolean(),
  last_digest: z
    .object({
      period_start: z.string(),
      period_end: z.string(),
      sent_at: z.string().nullable(),
      entries: z.number(),
      error: z.string().nullable(),
    })
    .nullable(),
  /** When the next digest goes (ISO 8601), null without `logs_emails`. */
  next_digest_at: z.string().nullable(),
});
export type FinanceSettings = z.infer<typeof financeSettings>;

/** The settings of an organisation that never saved any. */
export const FINANCE_SETTINGS_DEFAULTS: FinanceSettingsBody = {
  alert_emails: [],
  logs_emails: [],
  logs_frequency: LOGS_FREQUENCY_DEFAULT,
  show_dollar_sign: true,
  show_decimal: true,
  show_border: true,
};

/** Every finance number as the settings say: with or without `$`, with 2 decimals or rounded to dollars. */
export function formatFinanceAmount(
  value: number | null,
  settings: Pick<FinanceSettingsBody, 'show_dollar_sign' | 'show_decimal'>,
): string {
  if (value === null) return '—';
  const digits = settings.show_decimal ? 2 : 0;
  const shown = Math.abs(value).toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return `${value < 0 ? '-' : ''}${settings.show_dollar_sign ? '$' : ''}${shown}`;
}

/** A budget label as people read it: a product code's label, else the label itself. */
export const budgetLabelOf = (label: string) => productLabelOf(label);

/** The year tabs of /finance (spec 002 §2): previous, current and next. */
export function financeYears(now: Date): [number, number, number] {
  const year = now.getUTCFullYear();
  return [year - 1, year, year + 1];
}

import { z } from 'zod';
import { text } from './text.ts';

/** Billing-report ingestion (issue 24): what started a run, and how it stands. */
export const INGEST_TRIGGERS = ['connect', 'billing_bucket_saved', 'manual', 'schedule'] as const;
export type IngestTrigger = (typeof INGEST_TRIGGERS)[number];
export const INGEST_STATES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type IngestState = (typeof INGEST_STATES)[number];

/** How often every account with a billing bucket is ingested again (issue 24: every 6 hours). */
export const ANALYTICS_INGEST_CRON = '41 */6 * * *';

export const analyticsMessages = {
  refreshing: (account: string) => `Reading the billing reports of ${account}.`,
  noBillingBucket: (account: string) =>
    `${account} has no billing bucket. Save the bucket AWS delivers its Cost and Usage Reports to first.`,
  bucketUnreadable: (bucket: string, reason: string) =>
    `The account's keys cannot read the billing bucket ${bucket}: ${reason}`,
  noReports: (bucket: string) => `No Cost and Usage Report was found in the billing bucket ${bucket}.`,
} as const;

export const analyticsRefreshBody = z.object({ cloudId: z.uuid() });
export const analyticsRunsQuery = z.object({ cloudId: z.uuid() });

/** One ingestion run as GET /analytics/runs lists it, newest first. */
export const analyticsRunView = z.object({
  id: z.uuid(),
  cloud_account_id: z.uuid(),
  trigger: z.enum(INGEST_TRIGGERS),
  state: z.enum(INGEST_STATES),
  queued_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  periods_seen: z.number(),
  periods_replaced: z.number(),
  periods_skipped: z.number(),
  rows: z.number(),
  error: z.string().nullable(),
});
export type AnalyticsRunView = z.infer<typeof analyticsRunView>;

/* ------------------------------------------------------------------------------------------------------------------
 * The read side (issue 24; spec 002 §2 Analytics, §3 "Product total cost", "Bucket cost", "EFS", "Overview",
 * "Transfer history item", §7 "Analytics and cost"). Money is in US dollars as numbers: the server sums exact
 * nano-dollars (bigint) and divides once at the end. A month is 'YYYY-MM' (UTC); when absent, the current month.
 * ---------------------------------------------------------------------------------------------------------------- */

/** The cost categories, shared with Finance's custom products (spec 002 §3 "Product (custom)"): Others is the default. */
export const COST_CATEGORIES = [
  'Compute',
  'Storage',
  'Database',
  'Transfer',
  'Automation',
  'Infrastructure',
  'Monitoring',
  'Others',
] as const;
export type CostCategory = (typeof COST_CATEGORIES)[number];

/** The report's product codes Cumulo places in a category; any other code is 'Others'. */
const PRODUCT_CATEGORIES: Readonly<Record<string, CostCategory>> = {
  AmazonEC2: 'Compute',
  AWSLambda: 'Compute',
  AmazonECS: 'Compute',
  AmazonEKS: 'Compute',
  AmazonLightsail: 'Compute',
  AmazonS3: 'Storage',
  AmazonEFS: 'Storage',
  AmazonGlacier: 'Storage',
  AmazonFSx: 'Storage',
  AWSBackup: 'Storage',
  AmazonRDS: 'Database',
  AmazonDynamoDB: 'Database',
  AmazonElastiCache: 'Database',
  AmazonRedshift: 'Database',
  AmazonDocDB: 'Database',
  AWSDataTransfer: 'Transfer',
  AWSDirectConnect: 'Transfer',
  AmazonCloudFront: 'Transfer',
  AWSTransfer: 'Transfer',
  AWSStepFunctions: 'Automation',
  AWSCloudFormation: 'Automation',
  AWSSystemsManager: 'Automation',
  AWSEvents: 'Automation',
  AmazonRoute53: 'Infrastructure',
  AmazonVPC: 'Infrastructure',
  AWSELB: 'Infrastructure',
  AWSCloudTrail: 'Monitoring',
  AmazonCloudWatch: 'Monitoring',
  AWSConfig: 'Monitoring',
};

export function costCategoryOf(productCode: string): CostCategory {
  return PRODUCT_CATEGORIES[productCode] ?? 'Others';
}

/** The per-product monthly cost calls (spec 002 §7 "AwsAllocationMonthlyCost"), the product codes each reads. */
export const ALLOCATION_PRODUCTS = {
  s3: ['AmazonS3'],
  ec2: ['AmazonEC2'],
  'data-transfer': ['AWSDataTransfer'],
  cloudwatch: ['AmazonCloudWatch'],
  rds: ['AmazonRDS'],
  efs: ['AmazonEFS'],
  route53: ['AmazonRoute53'],
  support: ['AWSSupportBusiness', 'AWSSupportEnterprise', 'AWSDeveloperSupport', 'AWSSupport'],
  'direct-connect': ['AWSDirectConnect'],
} as const satisfies Record<string, readonly string[]>;
export type AllocationProduct = keyof typeof ALLOCATION_PRODUCTS;
export const ALLOCATION_PRODUCT_KEYS = Object.keys(ALLOCATION_PRODUCTS) as AllocationProduct[];

/** What the screens call a product code (the /analytics-old tab titles of spec 002 §2); others show the code. */
const PRODUCT_LABELS: Readonly<Record<string, string>> = {
  AmazonS3: 'S3',
  AmazonEC2: 'EC2',
  AWSDataTransfer: 'Data Transfer',
  AmazonRDS: 'Amazon RDS',
  AmazonCloudWatch: 'Cloud Watch',
  AmazonEFS: 'EFS',
  AWSDirectConnect: 'Direct Connect',
  AWSSupportBusiness: 'AWS Support',
  AWSSupportEnterprise: 'AWS Support',
  AWSDeveloperSupport: 'AWS Support',
  AWSSupport: 'AWS Support',
  AmazonRoute53: 'Route 53',
};

export function productLabelOf(productCode: string): string {
  return PRODUCT_LABELS[productCode] ?? productCode;
}

/** The name the screens give the group of line items with a blank resource id (issue 24: 'unattributed'). */
export const UNATTRIBUTED = 'unattributed';

/**
 * Line-item types whose cost is projected over the month in the forecast; the others (Fee, RIFee, Tax, Credit,
 * Refund, …) are billed once and counted as they are (spec 000 §5: forecast = total ÷ day of month × days in month;
 * issue 24: fees not projected daily).
 */
export const PROJECTED_LINE_ITEM_TYPES = [
  'Usage',
  'DiscountedUsage',
  'SavingsPlanCoveredUsage',
  'SavingsPlanNegation',
] as const;

/** The four AWS documents the Download Invoice tab links to (spec 002 §2). */
export const BILLING_REPORT_DOCUMENTS = [
  {
    title: 'What are AWS Cost and Usage Reports?',
    url: 'https://docs.aws.amazon.com/cur/latest/userguide/what-is-cur.html',
  },
  {
    title: 'Cost and Usage Report data dictionary',
    url: 'https://docs.aws.amazon.com/cur/latest/userguide/data-dictionary.html',
  },
  {
    title: 'Understanding your AWS invoice',
    url: 'https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/invoice.html',
  },
  {
    title: 'AWS Data Exports (CUR 2.0)',
    url: 'https://docs.aws.amazon.com/cur/latest/userguide/what-is-data-exports.html',
  },
] as const;

export const analyticsReadMessages = {
  /** The server's 403 when the organisation lacks the Analytics package (the screen shows the subscription modal). */
  packageRequired: 'Cost and usage analytics is part of the Analytics package.',
  /** /analytics' account filter leaves out azure and wasabi (spec 002 §2): they deliver no billing report. */
  noReports: (account: string) => `${account} delivers no billing report Cumulo can read.`,
  invalidMonth: 'Choose a month as YYYY-MM.',
  /** Empty states of /analytics (spec 002 §2). */
  noAccount: 'Connect a cloud account to see what it costs.',
  noBillingBucket: 'None of your accounts has a billing bucket yet. Add one on the Hybrid page.',
  noData: 'No billing data for this month yet.',
  /** GET /analytics/invoices/download of a key outside the account's billing bucket (and its prefix). */
  invoiceOutsideBucket: (bucket: string) => `That file is not in the billing bucket ${bucket}.`,
} as const;

const month = text({ max: 7 })
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, analyticsReadMessages.invalidMonth)
  .optional();

/** Every read call takes the account and the month; the per-product ones may narrow to one usage (linked) account. */
export const analyticsQuery = z.object({
  cloudId: z.uuid(),
  month,
  awsAccountId: text({ max: 12 })
    .regex(/^\d{12}$/)
    .optional(),
});
export type AnalyticsQuery = z.infer<typeof analyticsQuery>;
export const analyticsMonthQuery = z.object({ month });

const product = z.object({ label: z.string(), name: z.string(), monthly_actual: z.number() });

/** GET /analytics?cloudId&month: spec 002 §3 "Overview" with the cards' figures and the year's trend. */
export const analyticsOverview = z.object({
  month: z.string(),
  categories: z.array(
    z.object({
      name: z.enum(COST_CATEGORIES),
      monthly_actual: z.number(),
      /** How many products the category holds. */
      size: z.number(),
      products: z.array(product),
    }),
  ),
  monthly_actual: z.number(),
  monthly_forecast: z.number(),
  compute_cost: z.number(),
  storage_cost: z.number(),
  /** The month's cost per line-item type (Usage, Fee, Credit, Refund, Tax, …), never netted together. */
  line_item_types: z.array(z.object({ line_item_type: z.string(), cost: z.number() })),
  /** The twelve months ending at `month`, oldest first (months without data at 0). */
  trend: z.array(z.object({ month: z.string(), monthly_actual: z.number() })),
  /** The last day with usage in the month ('YYYY-MM-DD'), null when the month has none. */
  data_through: z.string().nullable(),
  /** When the account's reports were last read successfully (ISO), null before the first run. */
  ingested_at: z.string().nullable(),
});
export type AnalyticsOverview = z.infer<typeof analyticsOverview>;

/** GET /analytics/product: spec 002 §3 "Product total cost", one per product code of the month, costliest first. */
export const productTotalCost = z.object({
  product_code: z.string(),
  label: z.string(),
  total_cost: z.number(),
});
export type ProductTotalCost = z.infer<typeof productTotalCost>;

const usageCost = z.object({ usage_type: z.string(), cost: z.number(), usage_amount: z.number() });

/** GET /analytics/allocation/{product}: one product's month, for the donuts (total and top usages). */
export const allocationMonthlyCost = z.object({
  product: z.enum(ALLOCATION_PRODUCT_KEYS as [AllocationProduct, ...AllocationProduct[]]),
  total_cost: z.number(),
  /** Costliest first; the screens draw the top 4 and gather the rest as "Other". */
  usage_types: z.array(usageCost),
  operations: z.array(z.object({ operation: z.string(), cost: z.number() })),
  regions: z.array(z.object({ region: z.string(), cost: z.number() })),
});
export type AllocationMonthlyCost = z.infer<typeof allocationMonthlyCost>;

const usageTypeDetail = z.object({
  usage_type: z.string(),
  cost: z.number(),
  operations: z.array(z.object({ operation: z.string(), cost: z.number() })),
});
/** GET /analytics/detail/buckets: spec 002 §3 "Bucket cost"; blank resource ids gather under UNATTRIBUTED. */
export const bucketCost = z.object({
  bucket_name: z.string(),
  cost: z.number(),
  usage_types: z.array(usageTypeDetail),
});
export type BucketCost = z.infer<typeof bucketCost>;
/** GET /analytics/detail/databases: spec 002 §3 "Database cost", the same nesting. */
export const databaseCost = z.object({
  database_name: z.string(),
  cost: z.number(),
  usage_types: z.array(usageTypeDetail),
});
export type DatabaseCost = z.infer<typeof databaseCost>;

export const INSTANCE_KINDS = ['ec2', 'rds'] as const;
export type InstanceKind = (typeof INSTANCE_KINDS)[number];
export const INSTANCE_STATES = ['running', 'stopped'] as const;
/**
 * GET /analytics/instances/{ec2|rds}: spec 002 §3 "Instances". `state` comes from the provider's API where the
 * account's keys allow it (`state_source: 'api'`), else from the report: usage on the month's last day of data
 * means running.
 */
export const analyticsInstance = z.object({
  id: z.string(),
  name: z.string(),
  monthly_actual: z.number(),
  state: z.enum(INSTANCE_STATES),
  state_source: z.enum(['api', 'report']),
  products: z.array(product),
});
export type AnalyticsInstance = z.infer<typeof analyticsInstance>;

/** GET /analytics/efs: spec 002 §3 "EFS"; size and mount targets from the EFS API where allowed, else the report. */
export const efsFileSystem = z.object({
  name: z.string(),
  file_system_id: z.string(),
  size_in_bytes: z.object({ value: z.number() }),
  number_of_mount_targets: z.number().nullable(),
  creation_time: z.string().nullable(),
  monthly_actual: z.number(),
});
export type EfsFileSystem = z.infer<typeof efsFileSystem>;

/** GET /analytics/periods?cloudId[&awsAccountId]: the query; a linked account narrows each month's cost to its own. */
export const analyticsPeriodsQuery = analyticsQuery.pick({ cloudId: true, awsAccountId: true });
export type AnalyticsPeriodsQuery = z.infer<typeof analyticsPeriodsQuery>;
/**
 * GET /analytics/periods: the months the account's reports hold (for the filters), newest first, each with its cost
 * (of the linked account asked for, else of the whole bill), and the usage (linked) accounts the reports name.
 */
export const analyticsPeriods = z.object({
  months: z.array(z.object({ month: z.string(), cost: z.number(), ingested_at: z.string().nullable() })),
  usage_accounts: z.array(z.string()),
});
export type AnalyticsPeriods = z.infer<typeof analyticsPeriods>;

/** GET /analytics/invoices?cloudId&token: the billing bucket's files (Download Invoice, /analytics Invoices). */
export const analyticsInvoicesQuery = z.object({ cloudId: z.uuid(), token: text({ max: 4096 }).optional() });
export const analyticsInvoices = z.object({
  bucket: z.string(),
  files: z.array(z.object({ key: z.string(), size: z.number(), last_modified: z.string().nullable() })),
  next_token: z.string().nullable(),
});
export type AnalyticsInvoices = z.infer<typeof analyticsInvoices>;
/** GET /analytics/invoices/download?cloudId&key: a short-lived link to one file of the billing bucket. */
export const analyticsInvoiceDownloadQuery = z.object({
  cloudId: z.uuid(),
  key: text({ max: 1024 }).min(1),
});
export const analyticsInvoiceDownload = z.object({ url: z.string() });

/** GET /analytics/transfers/history?limit: spec 002 §3 "Transfer history item", Cumulo's own finished transfers. */
export const analyticsTransfersQuery = z.object({ limit: z.coerce.number().int().min(1).max(50).default(5) });
export const analyticsTransferItem = z.object({
  id: z.string(),
  cost: z.number(),
  size: z.number(),
  ended: z.string(),
  cloud: z.string(),
});
export type AnalyticsTransferItem = z.infer<typeof analyticsTransferItem>;
/** GET /analytics/transfers/usage?month: spec 002 §3 "Transfer usage", with the quota it counts against (-1 = none). */
export const analyticsServiceUsage = z.object({ service: z.string(), usage: z.number(), total: z.number() });
export type AnalyticsServiceUsage = z.infer<typeof analyticsServiceUsage>;

/**
 * GET /analytics/estimates?month (issue 24 "beyond the anchors"): every account's buckets, any provider, the
 * month's storage cost estimated from the inventory and the price table, beside the billed cost where a report
 * has the bucket (null otherwise) and the difference billed − estimated.
 */
export const storageCostEstimate = z.object({
  cloud_account_id: z.uuid(),
  account_name: z.string(),
  provider: z.string(),
  bucket_name: z.string(),
  region: z.string(),
  size: z.number(),
  estimated_cost: z.number(),
  billed_cost: z.number().nullable(),
  difference: z.number().nullable(),
});
export type StorageCostEstimate = z.infer<typeof storageCostEstimate>;

/** GET /analytics/dashboard: spec 000 §3 "Analytics items shown on the dashboard", this month's costliest, all accounts. */
export const dashboardAnalyticsItem = z.object({
  cloud_account_id: z.uuid(),
  product_name: z.string(),
  usage_type: z.string(),
  total_cost: z.number(),
  bucket_name: z.string().nullable(),
  database_name: z.string().nullable(),
});
export type DashboardAnalyticsItem = z.infer<typeof dashboardAnalyticsItem>;

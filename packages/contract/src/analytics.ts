import { z } from 'zod';

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

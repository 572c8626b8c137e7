import dayjs from 'dayjs';
import type { AnalyticsRunView } from '@cumulo/contract';

/**
 * The words of /analytics that the spec leaves unwritten (its own messages are the contract's
 * `analyticsReadMessages` and `analyticsMessages`), in one place.
 */

/** Spec 000 §9: timestamps read MM/DD/YYYY - HH:mm in local time. */
const TIMESTAMP_FORMAT = 'MM/DD/YYYY - HH:mm';
export const formatTimestamp = (iso: string | null) => (iso ? dayjs(iso).format(TIMESTAMP_FORMAT) : '');

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

export const analyticsTexts = {
  noServiceUsed: 'No service used this month.',
  noTransfer: 'No transfer finished yet.',
  noBucketToEstimate: 'No bucket to estimate yet.',
  noInstances: (noun: string) => `No ${noun} in this month's reports.`,
  emptyBillingBucket: (bucket: string) => `The billing bucket ${bucket} holds no file.`,
  neverRead: 'The billing reports have not been read yet.',
  stateFromApi: 'As the provider reports it now',
  stateFromReport: "From the billing report: usage on the month's last day of data",
} as const;

/** What started a run, in words (GET /analytics/runs `trigger`). */
export const TRIGGER_TEXTS: Record<AnalyticsRunView['trigger'], string> = {
  connect: 'Account connected',
  billing_bucket_saved: 'Billing bucket saved',
  manual: 'Refresh',
  schedule: 'Every 6 hours',
};

/** The latest ingestion run in words (issue 24: each run and its outcome is visible in the product). */
export function runSummary(run: AnalyticsRunView): string {
  switch (run.state) {
    case 'queued':
      return `Reading the billing reports is queued (since ${formatTimestamp(run.queued_at)}).`;
    case 'running':
      return `Reading the billing reports (started ${formatTimestamp(run.started_at ?? run.queued_at)}).`;
    case 'succeeded':
      return (
        `Billing reports read ${formatTimestamp(run.finished_at)}: ${plural(run.rows, 'row', 'rows')}, ` +
        `${plural(run.periods_replaced, 'period', 'periods')} replaced, ` +
        `${plural(run.periods_skipped, 'period', 'periods')} unchanged.`
      );
    case 'failed':
      return `Reading the billing reports failed ${formatTimestamp(run.finished_at)}: ${run.error ?? 'no reason was given.'}`;
  }
}

import { useEffect, useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  allocationMonthlyCost,
  analyticsInstance,
  analyticsInvoiceDownload,
  analyticsInvoices,
  analyticsOverview,
  analyticsPeriods,
  analyticsRunView,
  analyticsServiceUsage,
  analyticsTransferItem,
  bucketCost,
  dashboardAnalyticsItem,
  databaseCost,
  efsFileSystem,
  productTotalCost,
  storageCostEstimate,
  type AllocationProduct,
  type InstanceKind,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/**
 * The analytics read calls (spec 002 §7 "Analytics and cost", issue 24), one hook each, shared by /analytics,
 * /analytics-old and the dashboard. Every hook is off until its account is chosen; `month` is 'YYYY-MM'.
 */
export interface AnalyticsSelection {
  cloudId: string | undefined;
  month: string;
  awsAccountId?: string;
}

function useAnalyticsCall<T>(path: string, schema: z.ZodType<T>, selection: AnalyticsSelection) {
  const query = { cloudId: selection.cloudId, month: selection.month, awsAccountId: selection.awsAccountId };
  return useQuery({
    queryKey: queryKeys.analyticsCall(path, query),
    enabled: Boolean(selection.cloudId),
    queryFn: async ({ signal }) => schema.parse(await api.get(path, { signal, query })),
  });
}

/** GET /analytics: categories, monthly actual and forecast, the cards' figures and the year's trend. */
export const useAnalyticsOverview = (selection: AnalyticsSelection) =>
  useAnalyticsCall('/analytics', analyticsOverview, selection);

/** GET /analytics/product: every product code's month total, costliest first. */
export const useProductTotals = (selection: AnalyticsSelection) =>
  useAnalyticsCall('/analytics/product', z.array(productTotalCost), selection);

/** GET /analytics/allocation/{product}: one product's month by usage type, operation and region. */
export const useAllocation = (product: AllocationProduct, selection: AnalyticsSelection) =>
  useAnalyticsCall(`/analytics/allocation/${product}`, allocationMonthlyCost, selection);

/** GET /analytics/detail/buckets: bucket → usage type → operation. */
export const useBucketCosts = (selection: AnalyticsSelection) =>
  useAnalyticsCall('/analytics/detail/buckets', z.array(bucketCost), selection);

/** GET /analytics/detail/databases: database → usage type → operation. */
export const useDatabaseCosts = (selection: AnalyticsSelection) =>
  useAnalyticsCall('/analytics/detail/databases', z.array(databaseCost), selection);

/** GET /analytics/instances/{ec2|rds}: running and stopped instances with their month's cost. */
export const useInstances = (kind: InstanceKind, selection: AnalyticsSelection) =>
  useAnalyticsCall(`/analytics/instances/${kind}`, z.array(analyticsInstance), selection);

/** GET /analytics/efs: the EFS file systems (EFS Usage tab). */
export const useEfsFileSystems = (selection: AnalyticsSelection) =>
  useAnalyticsCall('/analytics/efs', z.array(efsFileSystem), selection);

/**
 * GET /analytics/periods: the months the account's billing reports hold, with each month's cost (the linked
 * account's, when one is given), and every usage (linked) account they name, for the filters. Off for an account
 * without reports (undefined).
 */
export function useAnalyticsPeriods(cloudId: string | undefined, awsAccountId: string | undefined) {
  const query = { cloudId, awsAccountId };
  return useQuery({
    queryKey: queryKeys.analyticsCall('/analytics/periods', query),
    enabled: Boolean(cloudId),
    queryFn: async ({ signal }) =>
      analyticsPeriods.parse(await api.get('/analytics/periods', { signal, query })),
    // Another linked account's months: the filter keeps the account's list while they come (not another account's).
    placeholderData: (previous, previousQuery) =>
      previousQuery?.queryKey[2] &&
      'cloudId' in previousQuery.queryKey[2] &&
      previousQuery.queryKey[2].cloudId === cloudId
        ? previous
        : undefined,
  });
}

/** GET /analytics/runs: the account's ingestion runs, newest first (polled while one is queued or running). */
export function useIngestRuns(cloudId: string | undefined) {
  const client = useQueryClient();
  const runs = useQuery({
    queryKey: queryKeys.analyticsCall('/analytics/runs', { cloudId }),
    enabled: Boolean(cloudId),
    queryFn: async ({ signal }) =>
      z.array(analyticsRunView).parse(await api.get('/analytics/runs', { signal, query: { cloudId } })),
    refetchInterval: (query) =>
      query.state.data?.some((run) => run.state === 'queued' || run.state === 'running') ? 2000 : false,
  });
  // A run that ends has replaced the figures on screen: they are read again when it does, so the page never shows
  // "1 period replaced" beside the month's old totals (Refresh reads them when the run is queued, too early). The
  // budgets' actuals (/finance) come from the same reports and are read again too. A run already finished when the
  // page opens changes nothing: what the page reads then is already its result.
  const underWay = runs.data?.some((run) => run.state === 'queued' || run.state === 'running') ?? false;
  const wasUnderWay = useRef(underWay);
  useEffect(() => {
    if (wasUnderWay.current && !underWay) {
      void client.invalidateQueries({ queryKey: queryKeys.analytics });
      void client.invalidateQueries({ queryKey: queryKeys.finance });
    }
    wasUnderWay.current = underWay;
  }, [underWay, client]);
  return runs;
}

/** POST /analytics/refresh: read the account's billing reports again now; every analytics answer is refreshed. */
export function useRefreshAnalytics() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (cloudId: string) => api.post('/analytics/refresh', { cloudId }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.analytics }),
  });
}

/** GET /analytics/invoices: one page of the billing bucket's files. */
export function useInvoiceFiles(cloudId: string | undefined, token?: string) {
  return useQuery({
    queryKey: queryKeys.analyticsCall('/analytics/invoices', { cloudId, token }),
    enabled: Boolean(cloudId),
    queryFn: async ({ signal }) =>
      analyticsInvoices.parse(await api.get('/analytics/invoices', { signal, query: { cloudId, token } })),
  });
}

/** GET /analytics/invoices/download: a short-lived link to one billing-bucket file. */
export async function invoiceDownloadUrl(cloudId: string, key: string): Promise<string> {
  return analyticsInvoiceDownload.parse(
    await api.get('/analytics/invoices/download', { query: { cloudId, key } }),
  ).url;
}

/** GET /analytics/transfers/history: Cumulo's own latest finished transfers and what they cost. */
export function useTransferCosts(limit = 5) {
  return useQuery({
    queryKey: queryKeys.analyticsCall('/analytics/transfers/history', { limit }),
    queryFn: async ({ signal }) =>
      z
        .array(analyticsTransferItem)
        .parse(await api.get('/analytics/transfers/history', { signal, query: { limit } })),
  });
}

/** GET /analytics/transfers/usage: the month's use of each service against its quota. */
export function useServicesUsage(month: string) {
  return useQuery({
    queryKey: queryKeys.analyticsCall('/analytics/transfers/usage', { month }),
    queryFn: async ({ signal }) =>
      z
        .array(analyticsServiceUsage)
        .parse(await api.get('/analytics/transfers/usage', { signal, query: { month } })),
  });
}

/** GET /analytics/estimates: every bucket's estimated storage cost beside the billed one. */
export function useStorageEstimates(month: string) {
  return useQuery({
    queryKey: queryKeys.analyticsCall('/analytics/estimates', { month }),
    queryFn: async ({ signal }) =>
      z.array(storageCostEstimate).parse(await api.get('/analytics/estimates', { signal, query: { month } })),
  });
}

/** GET /analytics/dashboard: this month's costliest items across the organisation's accounts. */
export function useDashboardAnalytics(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.analyticsCall('/analytics/dashboard', {}),
    enabled,
    queryFn: async ({ signal }) =>
      z.array(dashboardAnalyticsItem).parse(await api.get('/analytics/dashboard', { signal })),
  });
}

import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  adminAccountOptions,
  adminAccountsAnswer,
  adminTransferCostsAnswer,
  adminUsageFiltersAnswer,
  adminUsageHistoryAnswer,
  adminUsageTotalsAnswer,
  adminUsersAnswer,
  createAccountAnswer,
  messageAnswer,
  type CreateAccountBody,
  type InviteAdminUserBody,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { saveTextFile } from '../transfers/save-text-file.ts';

type QueryValue = string | number | undefined;
export type AdminQuery = Record<string, QueryValue>;

/** The zone the browser shows dates in: every admin call (and CSV) formats its dates there. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * The filter of /usageDetail and /transferCostDetail as the URL holds it, so a reload or a Detail link keeps it:
 * user, account, start, end (YYYY-MM-DD) and the checked directions (comma-separated keys; absent = all).
 */
export interface UsageFilter {
  user?: string;
  account?: string;
  start?: string;
  end?: string;
  directions?: string[];
}

const FILTER_KEYS = ['user', 'account', 'start', 'end'] as const;

export function filterFromSearch(params: URLSearchParams): UsageFilter {
  const filter: UsageFilter = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value) filter[key] = value;
  }
  const directions = params.get('directions');
  if (directions) filter.directions = directions.split(',').filter(Boolean);
  return filter;
}

/** The query string of a filter: the same one the API calls take, and the Detail links carry. */
export function filterQuery(filter: UsageFilter): AdminQuery {
  return {
    user: filter.user,
    account: filter.account,
    start: filter.start,
    end: filter.end,
    directions: filter.directions?.length ? filter.directions.join(',') : undefined,
  };
}

export function filterSearch(filter: UsageFilter): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filterQuery(filter))) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A GET of the console, with the browser's zone; the screen shows failures itself. */
function useAdminGet<T>(path: string, query: AdminQuery, parse: (body: unknown) => T, enabled = true) {
  const full = { ...query, tz: browserTimeZone() };
  return useQuery({
    queryKey: queryKeys.adminCall(path, full),
    queryFn: async ({ signal }) => parse(await api.get(path, { signal, silent: true, query: full })),
    // The next page replaces the table's rows without emptying it in between.
    placeholderData: keepPreviousData,
    enabled,
  });
}

export const useAdminAccounts = (query: AdminQuery) =>
  useAdminGet('/admin/accounts', query, (b) => adminAccountsAnswer.parse(b));
export const useAdminUsers = (query: AdminQuery) =>
  useAdminGet('/admin/users', query, (b) => adminUsersAnswer.parse(b));
export const useAccountOptions = () =>
  useAdminGet('/admin/accounts/options', {}, (b) => adminAccountOptions.parse(b));
export const useUsageFilters = (account: string | undefined) =>
  useAdminGet('/admin/usage/filters', { account }, (b) => adminUsageFiltersAnswer.parse(b));
export const useUsageTotals = (filter: UsageFilter) =>
  useAdminGet('/admin/usage/totals', filterQuery(filter), (b) => adminUsageTotalsAnswer.parse(b));
export const useUsageHistory = (filter: UsageFilter, page: number) =>
  useAdminGet('/admin/usage/history', { ...filterQuery(filter), page }, (b) =>
    adminUsageHistoryAnswer.parse(b),
  );
export const useTransferCosts = (filter: UsageFilter, page: number, search: string) =>
  useAdminGet('/admin/transfer-costs', { ...filterQuery(filter), page, search: search || undefined }, (b) =>
    adminTransferCostsAnswer.parse(b),
  );

/**
 * "Download Report": the list route's `format=csv` under the same filter (every page), fetched with the bearer
 * and saved by the browser, as /logs and /finance save theirs.
 */
export async function downloadAdminCsv(path: string, query: AdminQuery, fileName: string): Promise<void> {
  const body = await api.get(path, {
    silent: true,
    query: { ...query, tz: browserTimeZone(), format: 'csv' },
  });
  // Reading the answer as text drops the server's byte order mark; spreadsheets need it to read UTF-8.
  saveTextFile(fileName, `\uFEFF${typeof body === 'string' ? body.replace(/^\uFEFF/, '') : ''}`, 'text/csv');
}

export function useCreateAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateAccountBody) =>
      createAccountAnswer.parse(await api.post('/admin/accounts', body, { silent: true })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin }),
  });
}

export function useInviteAdminUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: InviteAdminUserBody) => {
      await api.post('/admin/users', body, { silent: true });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin }),
  });
}

export function useSetUserActive() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, active }: { id: string; active: boolean }) =>
      messageAnswer.parse(
        await api.put(`/admin/users/${encodeURIComponent(id)}/active`, { active }, { silent: true }),
      ).message,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin }),
  });
}

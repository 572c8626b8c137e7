import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  budgetAlert,
  budgetAlertConfig,
  budgetHierarchical,
  financeProduct,
  financeSettings,
  treeNode,
  type CreateProductBody,
  type FinanceSettingsBody,
  type PutBudgetBody,
  type SetBudgetAlertBody,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/**
 * The finance calls (spec 002 §7 "Budget and finance", issue 25), one hook each. Every write invalidates every
 * finance key: a budget, an alert or a product changes the table, the chart and the tree at once.
 */

type FinanceQuery = Record<string, string | number | undefined>;

function useFinanceCall<T>(path: string, schema: z.ZodType<T>, query: FinanceQuery, enabled = true) {
  return useQuery({
    queryKey: queryKeys.financeCall(path, query),
    enabled,
    queryFn: async ({ signal }) => schema.parse(await api.get(path, { signal, query })),
  });
}

function useFinanceWrite<A>(call: (body: A) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.finance }),
  });
}

/** GET /finance/budget/hierarchical: the table's rows and the chart's points for a cloud, label and year. */
export const useBudgetHierarchical = (query: {
  cloud: string | undefined;
  year: number;
  label: string;
  compare?: string;
}) => useFinanceCall('/finance/budget/hierarchical', budgetHierarchical, query, Boolean(query.cloud));

/** GET /finance/budget/tree: every cloud and its products for the year. */
export const useBudgetTree = (year: number) =>
  useFinanceCall('/finance/budget/tree', z.array(treeNode), { year });

/** GET /finance/products: what a budget can be set for (report product codes, then custom products). */
export const useFinanceProducts = (cloud: string | undefined) =>
  useFinanceCall('/finance/products', z.array(financeProduct), cloud ? { cloud } : {});

/** GET /finance/budget: the alert of a cloud and product, or the defaults of a new one. */
export const useBudgetAlertConfig = (cloud: string | undefined, product: string) =>
  useFinanceCall('/finance/budget', budgetAlertConfig, { cloud, product }, Boolean(cloud));

/** GET /finance/alerts: every budget alert of the organisation. */
export const useBudgetAlerts = (enabled = true) =>
  useFinanceCall('/finance/alerts', z.array(budgetAlert), {}, enabled);

/** GET /finance/settings. */
export const useFinanceSettings = () => useFinanceCall('/finance/settings', financeSettings, {});

/** PUT /finance/budget: a month, or a yearly amount spread over its months (silent: the table toasts a refusal). */
export const usePutBudget = () =>
  useFinanceWrite((body: PutBudgetBody) => api.put('/finance/budget', body, { silent: true }));

/** POST /finance/products: a custom product. */
export const useCreateProduct = () =>
  useFinanceWrite((body: CreateProductBody) => api.post('/finance/products', body, { silent: true }));

/** POST /finance/alerts: set (create or replace) the alert of a cloud and product. */
export const useSetBudgetAlert = () =>
  useFinanceWrite((body: SetBudgetAlertBody) => api.post('/finance/alerts', body, { silent: true }));

/** DELETE /finance/alerts/{id}. */
export const useDeleteBudgetAlert = () =>
  useFinanceWrite((id: string) => api.delete(`/finance/alerts/${encodeURIComponent(id)}`, { silent: true }));

/** PUT /finance/settings. */
export const useSaveFinanceSettings = () =>
  useFinanceWrite((body: FinanceSettingsBody) => api.put('/finance/settings', body, { silent: true }));

/**
 * GET /finance/budget.csv through the authenticated API (bearer header), with the byte order mark spreadsheets need
 * to read UTF-8; save it with `saveTextFile` as /logs does its export.
 */
export async function fetchBudgetCsv(query: { cloud: string; year: number; label: string }): Promise<string> {
  const body = await api.get('/finance/budget.csv', { silent: true, query });
  return `\uFEFF${typeof body === 'string' ? body.replace(/^\uFEFF/, '') : ''}`;
}

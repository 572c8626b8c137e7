import { useQuery } from '@tanstack/react-query';
import {
  alertView,
  cloudAccountView,
  type AlertView,
  type CloudAccountView,
  type CreateAlertBody,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { queryKeys } from '../../api/query-keys.ts';

// The web app reaches zod only through the contract's schemas.
const accountList = cloudAccountView.array();
const alertList = alertView.array();

export async function fetchCloudAccounts(): Promise<CloudAccountView[]> {
  return accountList.parse(await api.get('/cloud_accounts/'));
}

/** The organisation's cloud accounts (GET /api/cloud_accounts/), for names, buckets and current usage. */
export function useCloudAccounts() {
  return useQuery({
    queryKey: queryKeys.accounts,
    queryFn: fetchCloudAccounts,
    enabled: getStoredToken() !== null,
  });
}

export async function fetchAccountAlerts(accountId: string): Promise<AlertView[]> {
  return alertList.parse(await api.get(`/cloud_accounts/${encodeURIComponent(accountId)}/notifications`));
}

/** The size and cost alerts of one account, bucket-level ones included (GET /cloud_accounts/{id}/notifications). */
export function useAccountAlerts(accountId: string) {
  return useQuery({
    queryKey: queryKeys.accountAlerts(accountId),
    queryFn: () => fetchAccountAlerts(accountId),
  });
}

/** POST /notifications/ — one limit per call; 400s are shown inside the alert modal. */
export async function createAlert(body: CreateAlertBody): Promise<AlertView> {
  return alertView.parse(await api.post('/notifications/', body, { silent: true }));
}

export async function deleteAlert(alertId: string): Promise<void> {
  await api.delete(`/notifications/${encodeURIComponent(alertId)}`);
}

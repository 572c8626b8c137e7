import { useQuery } from '@tanstack/react-query';
import { alertView, type AlertView, type CreateAlertBody } from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

// The web app reaches zod only through the contract's schemas.
const alertList = alertView.array();

/** The organisation's cloud accounts: one hook for every screen (features/accounts). */
export { useCloudAccounts } from '../accounts/accounts-api.ts';

async function fetchAccountAlerts(accountId: string): Promise<AlertView[]> {
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

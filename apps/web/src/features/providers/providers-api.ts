import { useQuery } from '@tanstack/react-query';
import { cloudAccountView, liveBucket, type CloudAccountView, type ProviderName } from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { connectRequest, type AccountFormValues } from './account-form.ts';

/** The organisation's cloud accounts and what this user may add: one hook each for every screen (features/accounts). */
export { useAccessInfo, useCloudAccounts } from '../accounts/accounts-api.ts';

/** The account's buckets asked of the provider now (POST /cloudaccount/list_buckets). */
export function useLiveBuckets(accountId: string | undefined) {
  return useQuery({
    queryKey: queryKeys.liveBuckets(accountId ?? ''),
    queryFn: async () =>
      liveBucket
        .array()
        .parse(await api.post('/cloudaccount/list_buckets', { id: accountId }, { silent: true })),
    enabled: accountId !== undefined,
  });
}

/*
 * The calls below show their own 'Something Went Wrong' popup with the server's message, so they are silent:
 * the shared 400 'Error' modal would otherwise open on top of it.
 */

export async function connectAccount(
  provider: ProviderName,
  values: AccountFormValues,
): Promise<CloudAccountView> {
  const request = connectRequest(provider, values);
  return cloudAccountView.parse(await api.post(request.path, request.body, { silent: true }));
}

export interface WasabiSubAccountValues {
  acct_name: string;
  password: string;
  project_name: string;
}

/** POST /wasabi_sub_accounts — registers a new Wasabi account and connects it. */
export async function createWasabiAccount(values: WasabiSubAccountValues): Promise<CloudAccountView> {
  return cloudAccountView.parse(await api.post('/wasabi_sub_accounts', values, { silent: true }));
}

/** PUT /cloud_accounts/{id} — edit mode changes only the name and the billing bucket. */
export async function updateAccount(
  id: string,
  changes: { project_name: string; billing_bucket?: string | null },
): Promise<CloudAccountView> {
  return cloudAccountView.parse(
    await api.put(`/cloud_accounts/${id}`, { cloud_account: changes }, { silent: true }),
  );
}

/** PUT /cloud_accounts/{id}/update_billing_report_bucket */
export async function saveBillingBucket(id: string, bucket: string): Promise<CloudAccountView> {
  return cloudAccountView.parse(
    await api.put(
      `/cloud_accounts/${id}/update_billing_report_bucket`,
      { billing_bucket: bucket },
      { silent: true },
    ),
  );
}

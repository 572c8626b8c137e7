import { useQuery } from '@tanstack/react-query';
import {
  PROVIDER_NAMES,
  cloudAccountView,
  liveBucket,
  type CloudAccountView,
  type ProviderName,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { numberField } from '../../api/answers.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { connectRequest, type AccountFormValues } from './account-form.ts';

interface AccessInfo {
  userType: number;
  /** Providers this user may add, in the product's provider order. */
  providers: ProviderName[];
  wasabiCreate: { enabled: boolean; message: string };
}

/** Shown when the server says nothing about the Wasabi create path. */
const WASABI_CREATE_UNKNOWN =
  'Creating new Wasabi accounts is not enabled on this Cumulo server. Create the account at wasabi.com and ' +
  'connect it on the "Connect Existing Account" tab.';

/** GET /cloud_accounts/access_info — which providers this user may add, and whether Wasabi create is enabled. */
async function fetchAccessInfo(): Promise<AccessInfo> {
  const answer = await api.get('/cloud_accounts/access_info');
  const userType = numberField(answer, 'userType');
  const listed = (answer as { providers?: unknown }).providers;
  const providers = Array.isArray(listed) ? PROVIDER_NAMES.filter((name) => listed.includes(name)) : [];
  const wasabiCreate = (answer as { wasabi_create?: { enabled?: unknown; message?: unknown } }).wasabi_create;
  return {
    userType,
    providers,
    wasabiCreate:
      wasabiCreate && typeof wasabiCreate.enabled === 'boolean'
        ? {
            enabled: wasabiCreate.enabled,
            message: typeof wasabiCreate.message === 'string' ? wasabiCreate.message : WASABI_CREATE_UNKNOWN,
          }
        : { enabled: false, message: WASABI_CREATE_UNKNOWN },
  };
}

export function useAccessInfo() {
  return useQuery({ queryKey: queryKeys.accessInfoForSetup, queryFn: fetchAccessInfo });
}

/** The organisation's cloud accounts (GET /cloud_accounts/). */
/** The organisation's cloud accounts: one hook for every screen (features/accounts). */
export { useCloudAccounts } from '../accounts/accounts-api.ts';

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

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  PROVIDER_NAMES,
  cloudAccountView,
  messageAnswer,
  type CloudAccountView,
  type ProviderName,
  type RoleTitle,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useProfile } from '../profile/useProfile.ts';

// The web app reaches zod only through the contract's schemas.
const accountList = cloudAccountView.array();

export type StorageView = CloudAccountView['storages'][number];

/** GET /cloud_accounts/access_info: which providers this user may add, and whether Wasabi create is enabled. */
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

async function fetchCloudAccounts(): Promise<CloudAccountView[]> {
  return accountList.parse(await api.get('/cloud_accounts/'));
}

/** How often the list is re-read while a count is under way (a fallback for a missed realtime message). */
const COUNTING_POLL_MS = 3000;
/** A just-connected account has no bucket rows until its first inventory lists them. */
const NEW_ACCOUNT_WINDOW_MS = 2 * 60 * 1000;

/** True while some bucket is being counted, or a new account's first inventory has not listed its buckets. */
function inventoryUnderWay(accounts: readonly CloudAccountView[] | undefined, now = Date.now()): boolean {
  return (accounts ?? []).some(
    (account) =>
      account.storages.some((b) => b.inventory_status === 'pending' || b.inventory_status === 'running') ||
      (account.bucket_count === 0 && now - Date.parse(account.created_at) < NEW_ACCOUNT_WINDOW_MS),
  );
}

/** The organisation's cloud accounts with their buckets (GET /api/cloud_accounts/). */
export function useCloudAccounts() {
  return useQuery({
    queryKey: queryKeys.accounts,
    queryFn: fetchCloudAccounts,
    enabled: getStoredToken() !== null,
    // Realtime 'inventory' messages refresh the list; polling while counting covers a socket that was down.
    refetchInterval: (query) => (inventoryUnderWay(query.state.data) ? COUNTING_POLL_MS : false),
  });
}

function readAccessInfo(body: unknown): AccessInfo {
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const listed = Array.isArray(record.providers) ? record.providers : [];
  const wasabiCreate = record.wasabi_create as { enabled?: unknown; message?: unknown } | undefined;
  return {
    userType: typeof record.userType === 'number' ? record.userType : 0,
    providers: PROVIDER_NAMES.filter((name) => listed.includes(name)),
    wasabiCreate:
      wasabiCreate && typeof wasabiCreate.enabled === 'boolean'
        ? {
            enabled: wasabiCreate.enabled,
            message: typeof wasabiCreate.message === 'string' ? wasabiCreate.message : WASABI_CREATE_UNKNOWN,
          }
        : { enabled: false, message: WASABI_CREATE_UNKNOWN },
  };
}

async function fetchAccessInfo(): Promise<AccessInfo> {
  return readAccessInfo(await api.get('/cloud_accounts/access_info'));
}

/**
 * Providers this user may add and the Wasabi create switch (GET /api/cloud_accounts/access_info), one query for
 * the accounts list, its add button and the add-provider wizard; only asked when `enabled`.
 */
export function useAccessInfo(enabled = true) {
  return useQuery({
    queryKey: queryKeys.accessInfo,
    queryFn: fetchAccessInfo,
    enabled: enabled && getStoredToken() !== null,
  });
}

const MANAGER_ROLES: readonly RoleTitle[] = ['Owner', 'Admin'];

/**
 * Whether the signed-in user may connect, change and remove accounts (Owner or Admin, spec 000 §6).
 * `known` stays false until the profile has loaded, so screens never flash manage actions at a User.
 */
export function useAccountPermissions(): { known: boolean; canManage: boolean } {
  const { data: profile } = useProfile();
  if (!profile) return { known: false, canManage: false };
  return { known: true, canManage: (MANAGER_ROLES as readonly string[]).includes(profile.role.title) };
}

/** DELETE /cloudaccount/delete?id= — answers {message: '<name> removed successfully'}. */
export function useDeleteAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (accountId: string) =>
      messageAnswer.parse(
        await api.delete('/cloudaccount/delete', { query: { id: accountId }, silent: true }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.accounts }),
  });
}

/** POST /cloud_accounts/{id}/inventory — queues a new count of the account's buckets (202 {message}). */
export function useRefreshInventory() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (accountId: string) =>
      messageAnswer.parse(
        await api.post(`/cloud_accounts/${encodeURIComponent(accountId)}/inventory`, undefined, {
          silent: true,
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.accounts }),
  });
}

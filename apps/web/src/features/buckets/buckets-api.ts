import { useQuery } from '@tanstack/react-query';
import {
  bucketExistsAnswer,
  bucketNameErrors,
  bucketNameMessages,
  createBucketAnswer,
  type CreateBucketBody,
  type ProviderName,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useDebouncedValue } from '../../ui/useDebouncedValue.ts';

export type CreateBucketAnswer = ReturnType<typeof createBucketAnswer.parse>;

/** POST /cloud_accounts/{id}/storages — silent: the screen shows the first error as a banner. */
export async function createBucket(accountId: string, body: CreateBucketBody): Promise<CreateBucketAnswer> {
  return createBucketAnswer.parse(
    await api.post(`/cloud_accounts/${accountId}/storages`, body, { silent: true }),
  );
}

/** How long typing must pause before the name is checked with the provider. */
const NAME_CHECK_DELAY_MS = 400;

export interface NameCheck {
  /** The name passes the rules and the server check has not answered for it yet. */
  checking: boolean;
  /** The server's message when the name is taken ('Bucket with same name exist'), else null. */
  takenMessage: string | null;
}

/**
 * GET /cloud_accounts/{id}/storages/exists, once the name passes every rule and typing paused. A failed check
 * blocks nothing: the create call checks again.
 */
export function useBucketNameCheck(accountId: string, provider: ProviderName, name: string): NameCheck {
  const settled = useDebouncedValue(name, NAME_CHECK_DELAY_MS);
  const valid = bucketNameErrors(name).length === 0;
  const check = useQuery({
    queryKey: queryKeys.bucketExists(accountId, settled),
    queryFn: async ({ signal }) =>
      bucketExistsAnswer.parse(
        await api.get(`/cloud_accounts/${accountId}/storages/exists`, {
          query: { bucket_name: settled, account_type: provider },
          silent: true,
          signal,
        }),
      ),
    enabled: settled === name && valid,
    staleTime: 10_000,
  });
  if (!valid) return { checking: false, takenMessage: null };
  if (settled !== name || check.isFetching || (check.isPending && !check.isError)) {
    return { checking: true, takenMessage: null };
  }
  const taken = check.data?.exists === true;
  return { checking: false, takenMessage: taken ? (check.data?.message ?? bucketNameMessages.taken) : null };
}

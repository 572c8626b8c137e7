import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiKeyList, createdApiKey, messageAnswer, type CreatedApiKey } from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** GET /apikey/ListApiKey: the member's own keys, without secrets. */
export function useApiKeys() {
  return useQuery({
    queryKey: queryKeys.apiKeys,
    queryFn: async () => apiKeyList.parse(await api.get('/apikey/ListApiKey')),
  });
}

function useRefreshKeys() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys });
}

/** POST /apikey/CreateKey: the answer is the only place the secret ever appears. */
export function useCreateApiKey() {
  const refresh = useRefreshKeys();
  return useMutation({
    mutationFn: async (): Promise<CreatedApiKey> =>
      createdApiKey.parse(await api.post('/apikey/CreateKey', undefined, { silent: true })),
    onSuccess: refresh,
  });
}

export function useDeleteApiKey() {
  const refresh = useRefreshKeys();
  return useMutation({
    mutationFn: async (id: string) =>
      messageAnswer.parse(
        await api.delete(`/apikey/DeleteApiKey?id=${encodeURIComponent(id)}`, { silent: true }),
      ),
    onSuccess: refresh,
  });
}

export function useSetApiKeyActive() {
  const refresh = useRefreshKeys();
  return useMutation({
    mutationFn: ({ id, active }: { id: string; active: boolean }) =>
      api.put(`/apikey/UpdateApiKey?id=${encodeURIComponent(id)}`, { active }, { silent: true }),
    onSuccess: refresh,
  });
}

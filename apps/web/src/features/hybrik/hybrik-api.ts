import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  HYBRIK_POLL_MS,
  HYBRIK_PROFILE_MAX_BYTES,
  hybrikCreateJobAnswer,
  hybrikJobs,
  hybrikMessages,
  hybrikProfileAnswer,
  hybrikProfiles,
  hybrikSettings,
  type HybrikCreateJobBody,
  type HybrikJobStatus,
  type HybrikSettingsBody,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** The Hybrik calls (spec 001 §7 "hybrik …"), one hook each; writes are silent, the page shows the spec's texts. */

/** GET /hybrik/jobs?filter=: one tab's jobs, refreshed every second while the tab is shown (spec 001 §4). */
export const useHybrikJobs = (filter: HybrikJobStatus, enabled = true) =>
  useQuery({
    queryKey: queryKeys.hybrikJobs(filter),
    enabled,
    refetchInterval: HYBRIK_POLL_MS,
    queryFn: async ({ signal }) =>
      hybrikJobs.parse(await api.get('/hybrik/jobs', { signal, query: { filter } })),
  });

export const useHybrikSettings = (enabled = true) =>
  useQuery({
    queryKey: queryKeys.hybrikSettings,
    enabled,
    queryFn: async ({ signal }) => hybrikSettings.parse(await api.get('/hybrik/settings', { signal })),
  });

export const useHybrikProfiles = (enabled = true) =>
  useQuery({
    queryKey: queryKeys.hybrikProfiles,
    enabled,
    queryFn: async ({ signal }) => hybrikProfiles.parse(await api.get('/hybrik/profiles', { signal })),
  });

function useHybrikWrite<A, R>(call: (argument: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.hybrik }),
  });
}

/** PUT /hybrik/settings ("update user hybrik_profiles_bucket"). */
export const useSaveHybrikSettings = () =>
  useHybrikWrite((body: HybrikSettingsBody) => api.put('/hybrik/settings', body, { silent: true }));

/** POST /hybrik/profiles: multipart `source` and `json_file`. */
export const useUploadProfile = () =>
  useHybrikWrite(async (file: File) => {
    const form = new FormData();
    form.set('source', '');
    form.set('json_file', file);
    return hybrikProfileAnswer.parse(await api.post('/hybrik/profiles', form, { silent: true }));
  });

export const useDeleteProfile = () =>
  useHybrikWrite((id: string) => api.delete(`/hybrik/profiles/${id}`, { silent: true }));

/** POST /hybrik/jobs ("createJob"). */
export const useCreateHybrikJob = () =>
  useHybrikWrite(async (body: HybrikCreateJobBody) =>
    hybrikCreateJobAnswer.parse(await api.post('/hybrik/jobs', body, { silent: true })),
  );

/** POST /hybrik/jobs/{id}/cancel. */
export const useCancelHybrikJob = () =>
  useHybrikWrite((id: string) => api.post(`/hybrik/jobs/${id}/cancel`, undefined, { silent: true }));

/** The browser's own check of a profile file before sending it (spec 001 §5): the message, or null when fine. */
export function profileFileProblem(file: { name: string; type: string; size: number }): string | null {
  if (!file.name.toLowerCase().endsWith('.json') && file.type !== 'application/json')
    return hybrikMessages.jsonOnly;
  if (file.size >= HYBRIK_PROFILE_MAX_BYTES) return hybrikMessages.tooLarge;
  return null;
}

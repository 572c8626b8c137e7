import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  ENCODING_EVENTS,
  ENCODING_POLL_MS,
  encodeAnswer,
  encodingJob,
  encodingJobs,
  encodingPresets,
  messageAnswer,
  type EncodeBody,
  type EncodingJob,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useRealtimeMessage } from '../../api/realtime.ts';

/** The encoding calls (spec 001 §7 "encoding.presets", encode, jobs, cancel; issue 26), one hook each. */

/** GET /encoding/presets: categories of named presets. */
export const useEncodingPresets = (enabled = true) =>
  useQuery({
    queryKey: queryKeys.encodingPresets,
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async ({ signal }) => encodingPresets.parse(await api.get('/encoding/presets', { signal })),
  });

/** A job's `encoding.job` change put into the list held, in its place; a job not held yet goes first. */
function upsertEncodingJob(list: EncodingJob[] | undefined, job: EncodingJob): EncodingJob[] | undefined {
  if (!list) return list;
  const index = list.findIndex((held) => held.id === job.id);
  if (index === -1) return [job, ...list];
  return list.map((held) => (held.id === job.id ? job : held));
}

function applyJobMessage(client: QueryClient, data: unknown) {
  const parsed = encodingJob.safeParse(data);
  if (!parsed.success) return;
  client.setQueryData<EncodingJob[]>(queryKeys.encodingJobs, (list) => upsertEncodingJob(list, parsed.data));
}

/**
 * GET /encoding/jobs every ENCODING_POLL_MS (spec 001 §4, §9), with the hub's `encoding.job` messages applied
 * between two reads, so progress moves as soon as the worker reports it.
 */
export function useEncodingJobs() {
  const client = useQueryClient();
  useRealtimeMessage(ENCODING_EVENTS.job, (data) => applyJobMessage(client, data));
  return useQuery({
    queryKey: queryKeys.encodingJobs,
    refetchInterval: ENCODING_POLL_MS,
    queryFn: async ({ signal }) => encodingJobs.parse(await api.get('/encoding/jobs', { signal })),
  });
}

function useJobWrite<A, R>(call: (argument: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.encodingJobs }),
  });
}

/** POST /encoding/encode (silent: the dialog shows a refusal itself, a quota one in the quota modal). */
export const useEncode = () =>
  useJobWrite(async (body: EncodeBody) =>
    encodeAnswer.parse(await api.post('/encoding/encode', body, { silent: true })),
  );

/** POST /encoding/cancel/{id}. */
export const useCancelEncodingJob = () =>
  useJobWrite(async (id: string) =>
    messageAnswer.parse(
      await api.post(`/encoding/cancel/${encodeURIComponent(id)}`, undefined, { silent: true }),
    ),
  );

/** DELETE /encoding/jobs/{id}: an ended job leaves the list (its outputs stay in the bucket). */
export const useRemoveEncodingJob = () =>
  useJobWrite(async (id: string) =>
    messageAnswer.parse(await api.delete(`/encoding/jobs/${encodeURIComponent(id)}`, { silent: true })),
  );

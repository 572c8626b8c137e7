import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  SYNC_EVENTS,
  messageAnswer,
  syncCycle,
  syncCycleList,
  syncCycleStarted,
  syncJobList,
  syncJobSaved,
  type SyncCycle,
  type SyncInsertBody,
  type SyncJob,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { readAgain } from '../../api/query-client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { MISSED_MESSAGE_POLL_MS, useRealtimeMessage } from '../../api/realtime.ts';

// The screens show every failure of these calls themselves (toasts), so none opens the shared 400 modal.

export type SyncKind = 'sync' | 'replication';

async function fetchSyncJobs(kind?: SyncKind): Promise<SyncJob[]> {
  return syncJobList.parse(await api.get('/sync/get_jobs', { query: { kind } })).data;
}

/** GET /sync/get_jobs[?kind]: the organisation's jobs, newest first; without a kind, every job (dashboard). */
export function useSyncJobs(kind?: SyncKind) {
  return useQuery({
    queryKey: queryKeys.syncJobs(kind ?? 'all'),
    queryFn: () => fetchSyncJobs(kind),
    enabled: getStoredToken() !== null,
    refetchInterval: (query) =>
      query.state.data?.some((job) => job.liveCycle !== null) ? MISSED_MESSAGE_POLL_MS : false,
  });
}

/** GET /sync/cycles?id: one job's cycles, newest first (at most 50). */
export function useSyncCycles(syncJobId: string, options: { pollWhileRunning?: boolean } = {}) {
  return useQuery({
    queryKey: queryKeys.syncCycles(syncJobId),
    queryFn: async () =>
      syncCycleList.parse(await api.get('/sync/cycles', { query: { id: syncJobId } })).data,
    refetchInterval: (query) =>
      options.pollWhileRunning && query.state.data?.some((cycle) => cycle.phase !== 'finished')
        ? MISSED_MESSAGE_POLL_MS
        : false,
  });
}

function useInvalidateSync() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.syncJobLists });
  };
}

/** POST /sync/insert with the saveSync (/Sync) or saveSyncWasabi (/replication) payload. */
export function useCreateSync() {
  const invalidate = useInvalidateSync();
  return useMutation({
    mutationFn: async (body: SyncInsertBody) =>
      syncJobSaved.parse(await api.post('/sync/insert', body, { silent: true })),
    onSuccess: invalidate,
  });
}

/** POST /sync/activate {id, active}. */
export function useActivateSync() {
  const invalidate = useInvalidateSync();
  return useMutation({
    mutationFn: async (change: { id: string; active: boolean }) =>
      messageAnswer.parse(await api.post('/sync/activate', change, { silent: true })),
    onSuccess: invalidate,
  });
}

/** DELETE /sync/delete?id: removes the job from the product only. */
export function useDeleteSync() {
  const invalidate = useInvalidateSync();
  return useMutation({
    mutationFn: async (id: string) =>
      messageAnswer.parse(await api.delete('/sync/delete', { query: { id }, silent: true })),
    onSuccess: invalidate,
  });
}

/** A cycle the server just started: it goes into its job's cycles at once, before any /rm message. */
function rememberCycle(queryClient: QueryClient, cycle: SyncCycle) {
  queryClient.setQueryData<SyncCycle[]>(queryKeys.syncCycles(cycle.syncJobId), (list) =>
    upsertCycle(list, cycle),
  );
}

/** POST sync/TriggerWasabiSync?syncInfoId (run now); 409 when a cycle runs already or the job is inactive. */
export function useRunSync() {
  const queryClient = useQueryClient();
  const invalidate = useInvalidateSync();
  return useMutation({
    mutationFn: async (syncInfoId: string) =>
      syncCycleStarted.parse(
        await api.post('/sync/TriggerWasabiSync', undefined, { query: { syncInfoId }, silent: true }),
      ),
    onSuccess: (answer) => {
      rememberCycle(queryClient, answer.cycle);
      invalidate();
    },
  });
}

/** POST /sync/dry_run?id: a cycle that lists both sides and changes nothing. */
export function useDryRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) =>
      syncCycleStarted.parse(await api.post('/sync/dry_run', undefined, { query: { id }, silent: true })),
    onSuccess: (answer) => rememberCycle(queryClient, answer.cycle),
  });
}

/** POST /sync/decide {cycleId, approve}: Owner or Admin only. */
export function useDecideSync() {
  const queryClient = useQueryClient();
  const invalidate = useInvalidateSync();
  return useMutation({
    mutationFn: async (decision: { cycleId: string; approve: boolean }) =>
      syncCycleStarted.parse(await api.post('/sync/decide', decision, { silent: true })),
    onSuccess: (answer) => {
      rememberCycle(queryClient, answer.cycle);
      invalidate();
    },
  });
}

/** PUT /sync/options: the guardrail and quarantine options of a job (Owner or Admin only). */
export function useSaveSyncOptions() {
  const invalidate = useInvalidateSync();
  return useMutation({
    mutationFn: async (options: {
      id: string;
      quarantineDays: number | null;
      deleteThresholdCount: number;
      deleteThresholdPercent: number;
    }) => syncJobSaved.parse(await api.put('/sync/options', options, { silent: true })),
    onSuccess: invalidate,
  });
}

/** Adds or replaces one cycle in a newest-first list. */
function upsertCycle(list: readonly SyncCycle[] | undefined, cycle: SyncCycle): SyncCycle[] {
  const current = [...(list ?? [])];
  const index = current.findIndex((held) => held.id === cycle.id);
  if (index === -1) return [cycle, ...current];
  current[index] = cycle;
  return current;
}

/** A real cycle's change applied to its job: live while unfinished, the job's last cycle once finished. */
function applyCycleToJobs(jobs: SyncJob[] | undefined, cycle: SyncCycle): SyncJob[] | undefined {
  if (!jobs || cycle.dryRun) return jobs;
  return jobs.map((job) => {
    if (job.info.id !== cycle.syncJobId) return job;
    if (cycle.phase !== 'finished') return { ...job, liveCycle: cycle };
    return {
      ...job,
      liveCycle: job.liveCycle?.id === cycle.id ? null : job.liveCycle,
      lastCycle: { id: cycle.id, date: cycle.finishedAt ?? cycle.startedAt, status: cycle.status },
      lastError: cycle.error,
    };
  });
}

/**
 * Keeps the job lists and cycles current from the /rm hub while a sync list is on screen: every `sync.cycle`
 * message updates its job's live cycle and its cycle list; a finished cycle makes the lists read the server again.
 */
export function useLiveSyncFeed(): void {
  const queryClient = useQueryClient();
  useRealtimeMessage(SYNC_EVENTS.cycle, (data) => {
    const parsed = syncCycle.safeParse(data);
    if (!parsed.success) return;
    const cycle = parsed.data;
    rememberCycle(queryClient, cycle);
    queryClient.setQueriesData<SyncJob[]>({ queryKey: queryKeys.syncJobLists }, (jobs) =>
      applyCycleToJobs(jobs, cycle),
    );
    if (cycle.phase === 'finished' && !cycle.dryRun) {
      void readAgain(queryClient, queryKeys.syncJobLists);
    }
  });
}

import { useEffect, useRef } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  BATCH_STATUS,
  TRANSFER_EVENTS,
  migrationProgress,
  ongoingTransfers,
  storageIdOf,
  transferBatch,
  type MigrationProgress,
  type MigrationStatus,
  type TransferBatch,
  type TransferProviderFilter,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { readAgain } from '../../api/query-client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { MISSED_MESSAGE_POLL_MS, useRealtimeMessage } from '../../api/realtime.ts';
import { useProfile } from '../profile/useProfile.ts';
import { useInvalidateTransferHistory } from './transfers-api.ts';

/** The live status a finished batch code stands for; other codes leave the live status to progress messages. */
const FINAL_STATUS: Partial<Record<number, MigrationStatus>> = {
  [BATCH_STATUS.completed]: 'Succeeded',
  [BATCH_STATUS.canceled]: 'Canceled',
  [BATCH_STATUS.failed]: 'Failed',
};

/** Adds or replaces one batch's live state; a message older than the state held is dropped. */
function upsertMigration(
  list: readonly MigrationProgress[] | undefined,
  progress: MigrationProgress,
): MigrationProgress[] {
  const current = [...(list ?? [])];
  const index = current.findIndex((migration) => migration.id === progress.id);
  const held = current[index];
  if (!held) return [...current, progress];
  if (Date.parse(held.updated) > Date.parse(progress.updated)) return current;
  current[index] = progress;
  return current;
}

/** A `transfer.batch` status change applied to the live state it concerns (finished, canceled, failed). */
function applyBatchChange(
  list: MigrationProgress[] | undefined,
  batch: TransferBatch,
): MigrationProgress[] | undefined {
  const status = FINAL_STATUS[batch.transferStatus];
  if (!list || !status) return list;
  return list.map((migration) =>
    migration.id === batch.id
      ? {
          ...migration,
          status,
          percent: status === 'Succeeded' ? 100 : migration.percent,
          updated: batch.finishedAt ?? migration.updated,
        }
      : migration,
  );
}

/**
 * The bucket listings a batch that ended changed: its destination's, and its source's when it moved. The panels
 * and browsers read them with no staleness (the feed keeps them current), so without this a copied file kept its
 * optimistic "Transferring" tag until the user reopened the folder.
 */
function listingsChangedBy(batch: TransferBatch): string[][] {
  if (!FINAL_STATUS[batch.transferStatus]) return [];
  const sides = [{ accountId: batch.destinationCloudAccount.id, bucket: batch.destinationBucket }];
  if (batch.operation === 'move')
    sides.push({ accountId: batch.sourceCloudAccount.id, bucket: batch.sourceBucket });
  // An account removed since has no listing left to refresh.
  return sides.flatMap(({ accountId, bucket }) =>
    accountId === null ? [] : [['storage-content', storageIdOf(accountId, bucket)]],
  );
}

/** Still queued or copying on the server. */
export function isInFlight(migration: MigrationProgress): boolean {
  return (
    migration.status === 'Enqueued' || migration.status === 'Started' || migration.status === 'Processing'
  );
}

/** Live states the user cleared from the list (finished or failed ones): they stay cleared for the session. */
const dismissedByClient = new WeakMap<QueryClient, Set<string>>();

function dismissedIds(queryClient: QueryClient): Set<string> {
  let ids = dismissedByClient.get(queryClient);
  if (!ids) {
    ids = new Set();
    dismissedByClient.set(queryClient, ids);
  }
  return ids;
}

async function fetchOngoingTransfers(filter: TransferProviderFilter = {}): Promise<MigrationProgress[]> {
  return ongoingTransfers.parse(await api.get('/transfer/ongoing', { query: { ...filter } })).items;
}

/** The organisation's live batches: GET /transfer/ongoing, then kept current by `useLiveTransferFeed`. */
export function useOngoingTransfers() {
  const queryClient = useQueryClient();
  // A member whose transfers are off is refused every transfer call: the header does not ask for them.
  const transfersOff = useProfile().data?.acl.services.transfers === false;
  return useQuery({
    queryKey: queryKeys.transfersOngoing,
    queryFn: async () => {
      const dismissed = dismissedIds(queryClient);
      return (await fetchOngoingTransfers()).filter((migration) => !dismissed.has(migration.id));
    },
    enabled: getStoredToken() !== null && !transfersOff,
    // The /rm feed keeps this current; re-reading it on every page would only repeat what the feed said.
    staleTime: Infinity,
    // A slow re-read while something is in flight covers messages missed while the socket was reconnecting.
    refetchInterval: (query) => (query.state.data?.some(isInFlight) ? MISSED_MESSAGE_POLL_MS : false),
  });
}

/**
 * The live batches of `migrations` that the server keeps under `filter` (GET /transfer/ongoing with its provider
 * parameters; the progress messages do not say which providers a batch joins). The feed keeps their states current;
 * a batch the feed brings that the last answer did not list makes it ask once more, as does a new batch's message
 * (it invalidates the ['transfer', 'ongoing'] prefix). Without a filter, `migrations` as they are.
 */
export function useOngoingIn(
  filter: TransferProviderFilter | undefined,
  migrations: readonly MigrationProgress[],
): { migrations: MigrationProgress[]; isPending: boolean } {
  const scoped = useQuery({
    queryKey: queryKeys.transfersOngoingIn(filter ?? {}),
    queryFn: async () => (await fetchOngoingTransfers(filter)).map((migration) => migration.id),
    enabled: filter !== undefined && getStoredToken() !== null,
    staleTime: Infinity,
  });
  const asked = useRef(new Set<string>());
  const { data: scopedIds, isFetching, refetch } = scoped;
  const liveIds = migrations.map((migration) => migration.id).join(' ');
  useEffect(() => {
    if (filter === undefined || scopedIds === undefined || isFetching) return;
    const known = new Set(scopedIds);
    const unknown = liveIds.split(' ').filter((id) => id !== '' && !known.has(id) && !asked.current.has(id));
    if (unknown.length === 0) return;
    for (const id of unknown) asked.current.add(id);
    void refetch();
  }, [filter, scopedIds, liveIds, isFetching, refetch]);
  if (filter === undefined) return { migrations: [...migrations], isPending: false };
  const kept = new Set(scopedIds ?? []);
  return {
    migrations: migrations.filter((migration) => kept.has(migration.id)),
    isPending: scoped.isPending,
  };
}

/** Clears a live state from this browser's list (spec 001 §4: cancel of a row that is not running). */
export function useDismissTransfer() {
  const queryClient = useQueryClient();
  return (batchId: string) => {
    dismissedIds(queryClient).add(batchId);
    queryClient.setQueryData<MigrationProgress[]>(queryKeys.transfersOngoing, (list) =>
      list?.filter((migration) => migration.id !== batchId),
    );
  };
}

/**
 * Feeds the live list from the /rm hub for as long as the signed-in layout is mounted: `transfer.progress`
 * replaces one batch's live state, `transfer.batch` marks it finished and refreshes the history lists and the
 * listings of the buckets it changed.
 */
export function useLiveTransferFeed(): void {
  const queryClient = useQueryClient();
  const invalidateHistory = useInvalidateTransferHistory();

  useRealtimeMessage(TRANSFER_EVENTS.progress, (data) => {
    const parsed = migrationProgress.safeParse(data);
    if (!parsed.success || dismissedIds(queryClient).has(parsed.data.id)) return;
    queryClient.setQueryData<MigrationProgress[]>(queryKeys.transfersOngoing, (list) =>
      upsertMigration(list, parsed.data),
    );
  });

  useRealtimeMessage(TRANSFER_EVENTS.batch, (data) => {
    const parsed = transferBatch.safeParse(data);
    if (!parsed.success) return;
    const batch = parsed.data;
    const list = queryClient.getQueryData<MigrationProgress[]>(queryKeys.transfersOngoing);
    if (
      batch.transferStatus === BATCH_STATUS.ongoing &&
      !list?.some((migration) => migration.id === batch.id)
    ) {
      void readAgain(queryClient, queryKeys.transfersOngoing);
    } else {
      queryClient.setQueryData<MigrationProgress[]>(queryKeys.transfersOngoing, (held) =>
        applyBatchChange(held, batch),
      );
    }
    for (const queryKey of listingsChangedBy(batch)) void readAgain(queryClient, queryKey);
    invalidateHistory();
  });
}

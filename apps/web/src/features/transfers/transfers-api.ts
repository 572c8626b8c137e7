import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  BATCH_STATUS,
  TRANSFER_HISTORY_PAGE_SIZE,
  c2cHistory,
  messageAnswer,
  transferList,
  transferStarted,
  type TransferList,
  type TransferProviderFilter,
  type TransferStarted,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { readAgain } from '../../api/query-client.ts';
import { MISSED_MESSAGE_POLL_MS } from '../../api/realtime.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { saveTextFile } from './save-text-file.ts';

interface TransferListQuery {
  /** 1 migration, 2 replication (spec 001 §4). */
  type: number;
  pagesize: number;
  page: number;
  /** Only batches out of or into a provider's accounts (/wbrstatus, /awstboard); the server filters and counts. */
  filter?: TransferProviderFilter;
}

async function fetchTransferList({ filter, ...query }: TransferListQuery): Promise<TransferList> {
  return transferList.parse(await api.get('/transfer/get_all', { query: { ...query, ...filter } }));
}

/** Ongoing or Canceling: the batch's end is still to come. */
const isLive = (status: number) => status === BATCH_STATUS.ongoing || status === BATCH_STATUS.canceling;

/**
 * One page of the batch history, newest first (GET /transfer/get_all?type&pagesize&page). A `transfer.batch`
 * message re-reads it; while a row is live it also re-reads itself now and then, so a batch that ended while the
 * page was loading does not stay Ongoing.
 */
export function useTransferList(
  type: number,
  page: number,
  pagesize: number = TRANSFER_HISTORY_PAGE_SIZE,
  filter: TransferProviderFilter = {},
) {
  return useQuery({
    queryKey: queryKeys.transferList(type, pagesize, page, filter),
    queryFn: () => fetchTransferList({ type, pagesize, page, filter }),
    // The pager keeps showing the page it leaves until the next one arrives.
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      query.state.data?.items.some((batch) => isLive(batch.transferStatus)) ? MISSED_MESSAGE_POLL_MS : false,
  });
}

/** The Today / Yesterday / This Week lists (GET /c2c/history), of the batches `filter` keeps. */
export function useC2cHistory(filter: TransferProviderFilter = {}) {
  return useQuery({
    queryKey: queryKeys.c2cHistoryIn(filter),
    queryFn: async () =>
      c2cHistory.parse(
        await api.get('/c2c/history', {
          // Today and Yesterday are the user's days, not UTC's: the offset east of UTC in minutes.
          query: {
            order: 'desc',
            skip: 0,
            take: TRANSFER_HISTORY_PAGE_SIZE,
            tz: -new Date().getTimezoneOffset(),
            ...filter,
          },
        }),
      ),
    enabled: getStoredToken() !== null,
    refetchInterval: (query) => {
      const lists = query.state.data;
      const entries = lists ? [...lists.today, ...lists.yesterday, ...lists.thisWeek] : [];
      return entries.some((entry) => isLive(entry.status)) ? MISSED_MESSAGE_POLL_MS : false;
    },
  });
}

/** A batch changed: every history list and the dashboard's recent transfers read it again. */
export function useInvalidateTransferHistory() {
  const queryClient = useQueryClient();
  return () => {
    void readAgain(queryClient, queryKeys.transferLists);
    void readAgain(queryClient, queryKeys.c2cHistory);
  };
}

/** POST /transfer/cancel_transfer {Id}: the batch goes Canceling, then Canceled. */
export function useCancelTransfer() {
  const invalidate = useInvalidateTransferHistory();
  return useMutation({
    mutationFn: async (batchId: string) =>
      messageAnswer.parse(await api.post('/transfer/cancel_transfer', { Id: batchId }, { silent: true })),
    onSuccess: invalidate,
  });
}

/** POST /transfer/retry_transfer {Id}: a new batch copies only the failed files; the old one reads Retried. */
export function useRetryTransfer() {
  const invalidate = useInvalidateTransferHistory();
  return useMutation({
    mutationFn: async (batchId: string): Promise<TransferStarted> =>
      transferStarted.parse(await api.post('/transfer/retry_transfer', { Id: batchId }, { silent: true })),
    onSuccess: invalidate,
  });
}

/** The file name the browser saves the failed files of a batch under. */
const failedFilesName = (batchId: string) => `failed-files-${batchId}.csv`;

/** POST /transfer/download_failed_files {Id}: the answer is a CSV (key,size,error), saved as a file. */
export function useDownloadFailedFiles() {
  return useMutation({
    mutationFn: async (batchId: string) => {
      const csv = await api.post('/transfer/download_failed_files', { Id: batchId }, { silent: true });
      saveTextFile(failedFilesName(batchId), typeof csv === 'string' ? csv : '', 'text/csv');
    },
  });
}

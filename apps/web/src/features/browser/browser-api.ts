import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import {
  BROWSER_PAGE_SIZE,
  createFolderAnswer,
  deleteObjectsAnswer,
  downloadUrlAnswer,
  listingAnswer,
  searchAnswer,
  storageIdOf,
  type DownloadLink,
  type FS_FILE_TYPE,
  type SearchRequest,
} from '@cumulo/contract';
import { api, apiRequest } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** A row of the browser: a listing item or a search result, in the fields both have. */
export interface BrowserRow {
  key: string;
  name: string;
  size: number;
  type: (typeof FS_FILE_TYPE)[keyof typeof FS_FILE_TYPE];
  last_modified: string | null;
}

export interface BrowserPage {
  rows: BrowserRow[];
  next: { token: string; lastFile: string | null } | null;
  truncated: boolean;
}

type PageParam = BrowserPage['next'];

/**
 * The pages of one folder (GET /storage/{id}/content), 30 rows each (spec 001 §9). Pages are only added, never
 * re-read in the background: refetching 3 000 loaded pages on a window focus would cost 3 000 calls.
 */
export function useFolderContent(
  accountId: string,
  bucket: string,
  path: string,
  enabled: boolean,
  match: 'folder' | 'prefix' = 'folder',
) {
  const storageId = storageIdOf(accountId, bucket);
  return useInfiniteQuery({
    // Under the folder's key, so that what refreshes a bucket's listings refreshes a prefix's too.
    queryKey:
      match === 'prefix'
        ? [...queryKeys.folderContent(storageId, path), 'prefix']
        : queryKeys.folderContent(storageId, path),
    enabled,
    initialPageParam: null as PageParam,
    queryFn: async ({ pageParam, signal }): Promise<BrowserPage> => {
      const answer = listingAnswer.parse(
        await api.get(`/storage/${encodeURIComponent(storageId)}/content`, {
          signal,
          query: {
            limit: BROWSER_PAGE_SIZE,
            path,
            match: match === 'prefix' ? match : undefined,
            continuationToken: pageParam?.token,
            last_file: pageParam?.lastFile ?? undefined,
          },
        }),
      );
      return {
        rows: answer.items,
        next: answer.continuation_token
          ? { token: answer.continuation_token, lastFile: answer.last_file }
          : null,
        truncated: false,
      };
    },
    getNextPageParam: (last) => last.next,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

/** Name search within the folder and below it (POST /search in one bucket), paged by its continuation token. */
export function useFolderSearch(accountId: string, bucket: string, path: string, keyword: string) {
  const storageId = storageIdOf(accountId, bucket);
  return useInfiniteQuery({
    queryKey: queryKeys.objectSearch(storageId, path, keyword),
    enabled: keyword.length > 0,
    initialPageParam: null as PageParam,
    queryFn: async ({ pageParam, signal }): Promise<BrowserPage> => {
      const body: SearchRequest = {
        keyword,
        config: {
          bucket,
          cloud_accounts: [accountId],
          path,
          limit: BROWSER_PAGE_SIZE,
          ...(pageParam ? { continuation_token: pageParam.token } : {}),
        },
      };
      const answer = searchAnswer.parse(await api.post('/search', body, { signal }));
      return {
        rows: answer.results,
        next: answer.continuation_token ? { token: answer.continuation_token, lastFile: null } : null,
        truncated: answer.truncated,
      };
    },
    getNextPageParam: (last) => last.next,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

/** Drops every loaded page of the bucket's folders, so the open one restarts from its first page. */
export function useResetBucket() {
  const queryClient = useQueryClient();
  return (accountId: string, bucket: string) =>
    queryClient.resetQueries({ queryKey: ['storage-content', storageIdOf(accountId, bucket)] });
}

export function useCreateFolder() {
  return useMutation({
    mutationFn: async (input: { accountId: string; bucket: string; path: string }) =>
      createFolderAnswer.parse(
        await api.put(
          '/transfers/create_folder',
          { cloud_account_id: input.accountId, bucket_name: input.bucket, path: input.path },
          { silent: true },
        ),
      ),
  });
}

export function useDeleteObjects() {
  return useMutation({
    mutationFn: async (input: { accountId: string; bucket: string; paths: string[] }) =>
      deleteObjectsAnswer.parse(
        await apiRequest('/transfers/delete_object', {
          method: 'DELETE',
          silent: true,
          body: { cloud_account_id: input.accountId, bucket_name: input.bucket, paths: input.paths },
        }),
      ),
  });
}

/** Signed download links (GET /transfers/download_url), one per file. */
export async function fetchDownloadLinks(
  accountId: string,
  bucket: string,
  paths: string[],
): Promise<DownloadLink[]> {
  const query = new URLSearchParams({ cloud_account_id: accountId, bucket_name: bucket });
  for (const path of paths) query.append('paths', path);
  return downloadUrlAnswer.parse(
    await api.get(`/transfers/download_url?${query.toString()}`, { silent: true }),
  );
}

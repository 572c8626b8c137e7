import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  MEDIA_SEARCH_LIMIT_DEFAULT,
  mediaPlayback,
  mediaSearchAnswer,
  mediaSearchStatement,
  type MediaLocation,
  type MediaPlayback,
  type MediaSearchAnswer,
  type MediaSearchComparator,
  type MediaSearchRequest,
  type MediaSearchResult,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** How the keyword is used: over names, or over locations (the whole key inside the cloud and bucket asked). */
export type SearchBy = 'name' | 'location';

/** An advanced filter row as the member types it. */
export interface FilterDraft {
  id: number;
  key: string;
  comparator: MediaSearchComparator | '';
  value: string;
}

/** What the screen's controls hold, the keyword and filters as they stand after the debounce. */
export interface SearchState {
  keyword: string;
  by: SearchBy;
  accounts: string[];
  /** By location: the bucket searched in ('' any). */
  bucket: string;
  limit: number;
  filters: FilterDraft[];
}

export const initialSearch: SearchState = {
  keyword: '',
  by: 'name',
  accounts: [],
  bucket: '',
  limit: MEDIA_SEARCH_LIMIT_DEFAULT,
  filters: [],
};

/**
 * The request body of POST /media/search (spec 001 §3 "Search request"): only complete filters travel (spec 001 §5),
 * no account picked means every account, and a bucket narrows a search by location.
 */
export function searchRequestOf(state: SearchState): MediaSearchRequest {
  const filters = state.filters.flatMap((draft) => {
    const statement = mediaSearchStatement(draft);
    return statement ? [statement] : [];
  });
  return {
    keyword: state.keyword.trim(),
    config: {
      limit: state.limit,
      query_type: state.by,
      ...(state.accounts.length > 0 ? { cloud_accounts: state.accounts } : {}),
      ...(state.by === 'location' && state.bucket !== '' ? { bucket_name: state.bucket } : {}),
    },
    context: { filters },
  };
}

/** POST /media/search; the answer stays on screen while the next one loads. Silent: the page shows refusals. */
export function useMediaSearch(body: MediaSearchRequest) {
  return useQuery({
    queryKey: queryKeys.mediaSearch(body),
    queryFn: async ({ signal }): Promise<MediaSearchAnswer> =>
      mediaSearchAnswer.parse(await api.post('/media/search', body, { signal, silent: true })),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

/** One result's identity: the same key may be in several buckets and accounts. */
export const resultId = (result: MediaSearchResult) =>
  `${result.cloud_account_id}|${result.bucket_name}|${result.key}`;

/** GET /media/play: a short-lived signed URL of the object and how to play it. */
export async function fetchPlayback(location: MediaLocation): Promise<MediaPlayback> {
  return mediaPlayback.parse(await api.get('/media/play', { query: { ...location }, silent: true }));
}

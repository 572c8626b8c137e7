import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { ApiError } from './client.ts';

const MAX_RETRIES = 2;

/** Client errors (4xx) are answers, not hiccups: they are not retried. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < MAX_RETRIES;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}

/**
 * The server's data under `queryKey` changed (a hub message said so): every query under it reads it again, the
 * active ones at once. An invalidation alone misses a query whose first read is still on its way: TanStack Query
 * joins the refetch to that read (it has no data to keep meanwhile), and the read may have been answered from
 * before the change; the page then showed the old state until its next poll. Such a read is cancelled first, so that
 * a new one starts.
 */
export async function readAgain(queryClient: QueryClient, queryKey: QueryKey): Promise<void> {
  await queryClient.cancelQueries({
    queryKey,
    predicate: (query) => query.state.data === undefined && query.state.fetchStatus === 'fetching',
  });
  await queryClient.invalidateQueries({ queryKey });
}

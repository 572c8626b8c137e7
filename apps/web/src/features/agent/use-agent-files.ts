import { useInfiniteQuery } from '@tanstack/react-query';
import { agentClient } from './agent-client.ts';
import { agentKeys } from './agent-api.ts';

/** Rows per call of the agent's listing (spec 001 §7 ftx.files(path, skip, limit)). */
const AGENT_FILES_PAGE = 100;

/**
 * A local folder through the agent, a page of AGENT_FILES_PAGE at a time ("Load more"); with `search`, only the
 * names that contain it. '/' lists the folders added to the agent. Not retried: a failed listing means the agent
 * stopped (spec 001 §4), which the page shows.
 */
export function useAgentFiles(key: string | null, path: string, search = '') {
  return useInfiniteQuery({
    // Under the folder's key, so resetting the folder resets its searches too.
    queryKey: [...agentKeys.files(key, path), { search }],
    enabled: key !== null,
    initialPageParam: 0,
    queryFn: ({ pageParam }) => agentClient.files(key ?? '', path, pageParam, AGENT_FILES_PAGE, search),
    getNextPageParam: (last, pages) => {
      const loaded = pages.reduce((sum, page) => sum + page.items.length, 0);
      return loaded < last.total && last.items.length > 0 ? loaded : undefined;
    },
    retry: false,
    refetchOnWindowFocus: false,
  });
}

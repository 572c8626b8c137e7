import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { auditFilters, auditPage, type AuditEntity, type AuditPage } from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** What the /logs filters ask for: GET /audits and its export take the same query. */
export interface AuditSelection {
  entities: AuditEntity[];
  users: string[];
  from?: string;
}

/** The query string of a selection: lists comma-separated, empty ones left out. */
function auditQueryOf(selection: AuditSelection) {
  return {
    entities: selection.entities.join(',') || undefined,
    users: selection.users.join(',') || undefined,
    from: selection.from,
  };
}

/** GET /audits/filters: the entities and authors the caller's trail holds. */
export function useAuditFilters() {
  return useQuery({
    queryKey: queryKeys.auditFilters,
    queryFn: async () => auditFilters.parse(await api.get('/audits/filters')),
  });
}

/** GET /audits by pages of the server's limit (20), newest first, until `total`. */
export function useAuditPages(selection: AuditSelection) {
  return useInfiniteQuery({
    queryKey: queryKeys.auditPages(selection),
    initialPageParam: 0,
    queryFn: async ({ pageParam, signal }): Promise<AuditPage> =>
      auditPage.parse(
        await api.get('/audits', {
          signal,
          silent: true,
          query: { ...auditQueryOf(selection), offset: pageParam },
        }),
      ),
    getNextPageParam: (last) => {
      const next = last.offset + last.audits.length;
      return last.audits.length > 0 && next < last.total ? next : undefined;
    },
  });
}

/** GET /audits/export with the bearer: the CSV file, for the browser to save. */
export async function fetchAuditCsv(selection: AuditSelection): Promise<string> {
  const body = await api.get('/audits/export', { silent: true, query: auditQueryOf(selection) });
  // Reading the answer as text drops the server's byte order mark; spreadsheets need it to read UTF-8.
  return `\uFEFF${typeof body === 'string' ? body.replace(/^\uFEFF/, '') : ''}`;
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  DASHBOARD_WIDGET_IDS,
  dashboardChanged,
  dashboardLayout,
  type DashboardLayout,
  type DashboardWidgetId,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { getStoredToken } from '../../api/auth-token.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** What a member sees before their layout answers, or when it cannot be read: every widget, default order. */
export const DEFAULT_LAYOUT: DashboardLayout = {
  widgets: DASHBOARD_WIDGET_IDS.map((id, position) => ({ id, position })),
  customised: false,
};

async function fetchDashboard(): Promise<DashboardLayout> {
  return dashboardLayout.parse(await api.get('/dashboard'));
}

/** The signed-in member's widgets in order (GET /dashboard). */
export function useDashboardLayout() {
  return useQuery({
    queryKey: queryKeys.dashboard,
    queryFn: fetchDashboard,
    enabled: getStoredToken() !== null,
  });
}

/** One change of the layout, as the three changing calls express it. */
export type DashboardChange =
  | { kind: 'add'; id: DashboardWidgetId }
  | { kind: 'remove'; id: DashboardWidgetId }
  | { kind: 'order'; ids: DashboardWidgetId[] };

/** The layout a change leads to, shown at once while the call is on its way. */
function applyChange(ids: readonly DashboardWidgetId[], change: DashboardChange): DashboardWidgetId[] {
  if (change.kind === 'add') return [...ids.filter((id) => id !== change.id), change.id];
  if (change.kind === 'remove') return ids.filter((id) => id !== change.id);
  return [...change.ids];
}

async function sendChange(change: DashboardChange) {
  const answer =
    change.kind === 'add'
      ? await api.put('/dashboard/create', { id: change.id }, { silent: true })
      : change.kind === 'remove'
        ? await api.delete(`/dashboard?id=${encodeURIComponent(change.id)}`, { silent: true })
        : await api.put('/dashboard/createAll', { widgets: change.ids }, { silent: true });
  return dashboardChanged.parse(answer);
}

/**
 * PUT /dashboard/create, DELETE /dashboard?id and PUT /dashboard/createAll (reordering). The new layout shows at
 * once; the server's answer replaces it, and a refused change puts back what the server holds.
 */
export function useChangeDashboard() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: queryKeys.dashboard,
    mutationFn: sendChange,
    onMutate: async (change) => {
      await queryClient.cancelQueries({ queryKey: queryKeys.dashboard });
      const current = queryClient.getQueryData<DashboardLayout>(queryKeys.dashboard) ?? DEFAULT_LAYOUT;
      const ids = applyChange(
        current.widgets.map((widget) => widget.id),
        change,
      );
      queryClient.setQueryData<DashboardLayout>(queryKeys.dashboard, {
        widgets: ids.map((id, position) => ({ id, position })),
        customised: true,
      });
    },
    onSuccess: ({ widgets, customised }) => {
      // A later change still on its way already shows its own layout; its answer will settle the page.
      if (queryClient.isMutating({ mutationKey: queryKeys.dashboard }) > 1) return;
      queryClient.setQueryData<DashboardLayout>(queryKeys.dashboard, { widgets, customised });
    },
    onError: () => queryClient.invalidateQueries({ queryKey: queryKeys.dashboard }),
  });
}

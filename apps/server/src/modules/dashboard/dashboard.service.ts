import {
  DASHBOARD_WIDGETS,
  DASHBOARD_WIDGET_IDS,
  dashboardMessages,
  type CreateAllDashboardBody,
  type CreateDashboardWidgetBody,
  type DashboardChanged,
  type DashboardLayout,
  type DashboardWidgetId,
} from '@cumulo/contract';
import type { Principal } from '../../authz/principal.ts';
import { notFound } from '../../errors.ts';
import type { DashboardRepo } from './dashboard.repo.ts';

const isWidget = (id: string): id is DashboardWidgetId => id in DASHBOARD_WIDGETS;

/** Known ids only: a widget retired from the product quietly leaves saved layouts. */
const known = (ids: readonly string[]): DashboardWidgetId[] => ids.filter(isWidget);

const layoutOf = (ids: readonly DashboardWidgetId[], customised: boolean): DashboardLayout => ({
  widgets: ids.map((id, position) => ({ id, position })),
  customised,
});

/**
 * The dashboard's widgets per member (spec 000 §7 "Dashboard widgets"). Each call acts on the caller's own layout
 * only — no call names another member — so, like a profile, it needs no role (README "Authorization").
 */
export class DashboardService {
  constructor(private readonly repo: DashboardRepo) {}

  /** GET /dashboard: the saved layout, or every widget in the default order for a member who never saved one. */
  async layout(principal: Principal): Promise<DashboardLayout> {
    const saved = await this.repo.layout(principal.organizationId, principal.userId);
    return saved === null ? layoutOf(DASHBOARD_WIDGET_IDS, false) : layoutOf(known(saved), true);
  }

  /** PUT /dashboard/create: adds a widget at `position` (last when absent); one already there moves there. */
  async add(principal: Principal, body: CreateDashboardWidgetBody): Promise<DashboardChanged> {
    const saved = await this.repo.change(principal.organizationId, principal.userId, (current) => {
      const others = known(current ?? DASHBOARD_WIDGET_IDS).filter((id) => id !== body.id);
      const at = Math.min(body.position ?? others.length, others.length);
      return [...others.slice(0, at), body.id, ...others.slice(at)];
    });
    return { message: dashboardMessages.added(DASHBOARD_WIDGETS[body.id]), ...layoutOf(known(saved), true) };
  }

  /** PUT /dashboard/createAll: the whole layout in the given order (add, remove and reorder in one call). */
  async replace(principal: Principal, body: CreateAllDashboardBody): Promise<DashboardChanged> {
    const saved = await this.repo.change(principal.organizationId, principal.userId, () => body.widgets);
    return { message: dashboardMessages.saved, ...layoutOf(known(saved), true) };
  }

  /** DELETE /dashboard?id: takes one widget off; 404 (and nothing saved) when it is not on the caller's dashboard. */
  async remove(principal: Principal, id: DashboardWidgetId): Promise<DashboardChanged> {
    const saved = await this.repo.change(principal.organizationId, principal.userId, (current) => {
      const ids = known(current ?? DASHBOARD_WIDGET_IDS);
      // Thrown inside the transaction, so it rolls back: a refused removal saves no layout.
      if (!ids.includes(id)) throw notFound(dashboardMessages.notOnDashboard(DASHBOARD_WIDGETS[id]));
      return ids.filter((widget) => widget !== id);
    });
    return { message: dashboardMessages.removed(DASHBOARD_WIDGETS[id]), ...layoutOf(known(saved), true) };
  }
}

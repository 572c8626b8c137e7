import { z } from 'zod';

/**
 * The dashboard's widgets (spec 000 §2 "Dashboard", §7 "Dashboard widgets"), in the default order a member
 * without a saved layout sees. The key is the widget's id in the dashboard calls.
 */
export const DASHBOARD_WIDGETS = {
  accounts: 'Active Cloud Providers',
  usage: 'Usage',
  sync_jobs: 'Sync Jobs',
  recent_transfers: 'Recent Transfers',
  alerts: 'Alerts',
  /** Spec 000 §3 "Analytics items shown on the dashboard": this month's costliest items (Analytics package). */
  analytics: 'Analytics',
} as const;
export type DashboardWidgetId = keyof typeof DASHBOARD_WIDGETS;
export const DASHBOARD_WIDGET_IDS = Object.keys(DASHBOARD_WIDGETS) as [
  DashboardWidgetId,
  ...DashboardWidgetId[],
];

export const dashboardMessages = {
  unknownWidget: `Choose one of the dashboard widgets: ${DASHBOARD_WIDGET_IDS.join(', ')}.`,
  repeatedWidget: 'Each widget can be on the dashboard once.',
  added: (title: string) => `${title} added to your dashboard.`,
  removed: (title: string) => `${title} removed from your dashboard.`,
  notOnDashboard: (title: string) => `${title} is not on your dashboard.`,
  saved: 'Your dashboard layout is saved.',
} as const;

/** A widget id in a request: one of the known ones (an enum, so no free text reaches the database). */
const widgetId = z.enum(DASHBOARD_WIDGET_IDS, { error: dashboardMessages.unknownWidget });

/** One widget of a member's dashboard, at its place (0 = first). */
export const dashboardWidget = z.object({ id: z.enum(DASHBOARD_WIDGET_IDS), position: z.number() });
export type DashboardWidget = z.infer<typeof dashboardWidget>;

/** GET /dashboard: the caller's widgets in order; `customised` false while they have not saved a layout. */
export const dashboardLayout = z.object({
  widgets: z.array(dashboardWidget),
  customised: z.boolean(),
});
export type DashboardLayout = z.infer<typeof dashboardLayout>;

/** PUT /dashboard/create: adds one widget, at `position` (0-based) or last. */
export const createDashboardWidgetBody = z.object({
  id: widgetId,
  position: z.number().int().min(0).max(DASHBOARD_WIDGET_IDS.length).optional(),
});
export type CreateDashboardWidgetBody = z.infer<typeof createDashboardWidgetBody>;

/** PUT /dashboard/createAll: the whole layout in order (also how widgets are reordered). */
export const createAllDashboardBody = z.object({
  widgets: z
    .array(widgetId)
    .max(DASHBOARD_WIDGET_IDS.length)
    .refine((ids) => new Set(ids).size === ids.length, { message: dashboardMessages.repeatedWidget }),
});
export type CreateAllDashboardBody = z.infer<typeof createAllDashboardBody>;

/** DELETE /dashboard?id: removes one widget. */
export const deleteDashboardWidgetQuery = z.object({ id: widgetId });

/** The answer of the three changing calls: the message and the layout as saved. */
export const dashboardChanged = dashboardLayout.extend({ message: z.string() });
export type DashboardChanged = z.infer<typeof dashboardChanged>;

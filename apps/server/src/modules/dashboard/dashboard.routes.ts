import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  createAllDashboardBody,
  createDashboardWidgetBody,
  dashboardChanged,
  dashboardLayout,
  deleteDashboardWidgetQuery,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { DashboardService } from './dashboard.service.ts';

/** The dashboard widget calls of spec 000 §7 / 002 §7 at the spec's paths under /api. */
export function dashboardRoutes(service: DashboardService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['dashboard'];
    // Every member arranges their own dashboard; no call reaches another member's.
    const member = { preHandler: auth.requireAuth };

    app.get(
      '/dashboard',
      {
        ...member,
        schema: {
          tags,
          description:
            "The caller's widgets in order; every widget, in the default order, until they save one.",
          response: { 200: dashboardLayout },
        },
      },
      async (request) => service.layout(principalOf(request)),
    );

    app.put(
      '/dashboard/create',
      {
        ...member,
        schema: { tags, body: createDashboardWidgetBody, response: { 200: dashboardChanged } },
      },
      async (request) => service.add(principalOf(request), request.body),
    );

    app.put(
      '/dashboard/createAll',
      { ...member, schema: { tags, body: createAllDashboardBody, response: { 200: dashboardChanged } } },
      async (request) => service.replace(principalOf(request), request.body),
    );

    app.delete(
      '/dashboard',
      {
        ...member,
        schema: { tags, querystring: deleteDashboardWidgetQuery, response: { 200: dashboardChanged } },
      },
      async (request) => service.remove(principalOf(request), request.query.id),
    );
  };
}

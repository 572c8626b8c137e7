import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { analyticsRefreshBody, analyticsRunView, analyticsRunsQuery, messageAnswer } from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { AnalyticsService } from './analytics.service.ts';

/** The ingestion calls of issue 24 (the analytics read calls come with the screens). */
export function analyticsRoutes(service: AnalyticsService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['analytics'];
    const member = { preHandler: auth.requireAuth };

    app.post(
      '/analytics/refresh',
      {
        ...member,
        schema: {
          tags,
          description: "Reads the account's billing reports again now (Owner, Admin).",
          body: analyticsRefreshBody,
          response: { 202: messageAnswer },
        },
      },
      async (request, reply) =>
        reply.status(202).send(await service.refresh(principalOf(request), request.body.cloudId)),
    );

    app.get(
      '/analytics/runs',
      {
        ...member,
        schema: {
          tags,
          description:
            "The account's billing-report ingestion runs, newest first, with their errors in words.",
          querystring: analyticsRunsQuery,
          response: { 200: z.array(analyticsRunView) },
        },
      },
      async (request) => service.runs(principalOf(request), request.query.cloudId),
    );
  };
}

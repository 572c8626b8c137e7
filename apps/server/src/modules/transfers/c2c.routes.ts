import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  c2cHistory,
  c2cHistoryQuery,
  c2cMoveBody,
  c2cUsage,
  c2cUsageQuery,
  messageAnswer,
  transferStarted,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { C2cService } from './c2c.service.ts';

/** The spec's c2c calls (spec 001 §7, spec 002 §7 "Cloud-to-cloud") at their paths under /api. */
export function c2cRoutes(service: C2cService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['transfers'];
    const member = { preHandler: auth.requireAuth };
    const move = {
      ...member,
      schema: {
        tags,
        description:
          'Copies (type 1 or "copy") or moves (type 0 or "move") the selected keys and folders (ending in "/") of ' +
          'one bucket of account cloud_id into destination; they land in destination.path as selected.',
        body: c2cMoveBody,
        response: { 200: transferStarted },
      },
    };

    app.post('/c2c/moveaws', move, async (request) => service.move(principalOf(request), request.body));
    // The Wasabi screen's variant: the same transfer, whatever the destination's provider.
    app.post('/c2c/moveWasabi', move, async (request) => service.move(principalOf(request), request.body));

    app.get(
      '/c2c/history',
      {
        ...member,
        schema: {
          tags,
          description:
            'Migrations of the last seven days grouped Today, Yesterday and This Week (the five days before), ' +
            'counted in the `tz` offset (minutes east of UTC; UTC when absent).',
          querystring: c2cHistoryQuery,
          response: { 200: c2cHistory },
        },
      },
      async (request) => service.history(principalOf(request), request.query),
    );

    app.get(
      '/c2c/usage',
      {
        ...member,
        schema: {
          tags,
          description:
            'Completed transfers that finished in [from, to): count, bytes copied and the $0.15/GB transfer ' +
            'charge (GB = 1073741824 bytes), to 5 decimals.',
          querystring: c2cUsageQuery,
          response: { 200: c2cUsage },
        },
      },
      async (request) => service.usage(principalOf(request), request.query),
    );

    app.post(
      '/c2c/cancel',
      {
        ...member,
        schema: {
          tags,
          querystring: z.object({ migrationId: z.uuid({ message: 'Unknown transfer.' }) }),
          response: { 200: messageAnswer },
        },
      },
      async (request) => service.cancel(principalOf(request), request.query.migrationId),
    );
  };
}

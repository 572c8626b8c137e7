import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { auditFilters, auditPage, auditQuery } from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { AuditService } from './audit.service.ts';

/** The audit calls of spec 002 §7 under /api: reads only, the trail is append-only. */
export function auditRoutes(service: AuditService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['audits'];
    const guarded = { preHandler: auth.requireAuth };
    const who =
      'Owners and Admins read the whole organisation’s trail; a User reads only the entries they authored.';

    app.get(
      '/audits/filters',
      {
        ...guarded,
        schema: {
          tags,
          description: `The entities and authors present in the trail the caller reads. ${who}`,
          response: { 200: auditFilters },
        },
      },
      async (request) => service.filters(principalOf(request)),
    );

    app.get(
      '/audits',
      {
        ...guarded,
        schema: {
          tags,
          description:
            'One page of audit entries, newest first. from/to: ISO dates or times (a date alone covers that ' +
            `UTC day); entities and users: comma-separated or repeated. ${who}`,
          querystring: auditQuery,
          response: { 200: auditPage },
        },
      },
      async (request) => service.page(principalOf(request), request.query),
    );

    app.get(
      '/audits/export',
      {
        ...guarded,
        schema: {
          tags,
          description:
            'The entries of GET /audits with the same filters as a CSV attachment, one line per changed ' +
            'property: time, author, entity, resource, type, property, initial, value.',
          querystring: auditQuery.omit({ offset: true, limit: true }),
        },
      },
      async (request, reply) => {
        const lines = service.exportCsv(principalOf(request), request.query);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="audits.csv"')
          .send(Readable.from(lines));
      },
    );
  };
}

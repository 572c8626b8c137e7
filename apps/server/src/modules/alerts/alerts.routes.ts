import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  alertView,
  createAlertBody,
  markReadQuery,
  messageAnswer,
  notificationItem,
  text,
  unreadCountAnswer,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { AlertsService } from './alerts.service.ts';

/** The alert and notification calls of spec 000 §7 at the spec's paths under /api. */
export function alertsRoutes(service: AlertsService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['alerts'];
    // Setting and removing alerts is for Owners and Admins, like the accounts they watch (the service checks it).
    const member = { preHandler: auth.requireAuth };

    app.get(
      '/cloud_accounts/:id/notifications',
      {
        ...member,
        schema: {
          tags,
          params: z.object({ id: z.uuid() }),
          querystring: z.object({ bucket_name: text({ max: 255 }).optional() }),
          response: { 200: z.array(alertView) },
        },
      },
      async (request) =>
        service.listForAccount(principalOf(request), request.params.id, request.query.bucket_name),
    );

    app.get(
      '/storages/:id/notifications',
      {
        ...member,
        schema: {
          tags,
          description:
            'Alerts of one bucket; the id is the storage id "{cloudAccountId}/{bucketName}", URL-encoded.',
          params: z.object({ id: text({ max: 400 }) }),
          response: { 200: z.array(alertView) },
        },
      },
      async (request) => service.listForStorage(principalOf(request), request.params.id),
    );

    app.post(
      '/notifications/',
      { ...member, schema: { tags, body: createAlertBody, response: { 201: alertView } } },
      async (request, reply) =>
        reply.status(201).send(await service.create(principalOf(request), request.body)),
    );

    app.delete(
      '/notifications/:id',
      { ...member, schema: { tags, params: z.object({ id: z.uuid() }), response: { 200: messageAnswer } } },
      async (request) => service.remove(principalOf(request), request.params.id),
    );

    app.get(
      '/notifications',
      { ...member, schema: { tags, response: { 200: z.array(notificationItem) } } },
      async (request) => service.notifications(principalOf(request), false),
    );

    app.get(
      '/notifications/all',
      { ...member, schema: { tags, response: { 200: z.array(notificationItem) } } },
      async (request) => service.notifications(principalOf(request), true),
    );

    app.get(
      '/notifications/unread_count',
      { ...member, schema: { tags, response: { 200: unreadCountAnswer } } },
      async (request) => service.unreadCount(principalOf(request)),
    );

    app.put(
      '/notifications/read_all',
      { ...member, schema: { tags, response: { 200: messageAnswer } } },
      async (request) => service.markAllRead(principalOf(request)),
    );

    app.put(
      '/notifications/read',
      { ...member, schema: { tags, querystring: markReadQuery, response: { 200: messageAnswer } } },
      async (request) => service.markRead(principalOf(request), request.query.ids),
    );
  };
}

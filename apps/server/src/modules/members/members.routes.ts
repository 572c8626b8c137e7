import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { inviteBody, memberCards, messageAnswer, pendingInvitations, roleChangeBody } from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { MembersService } from './members.service.ts';

/** Spec 002 §7 users calls; GET /users/{id} (a member's profile) is identity's. */
export function membersRoutes(service: MembersService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['users'];
    const guarded = { preHandler: auth.requireAuth };
    const params = z.object({ id: z.uuid() });

    app.get('/users', { ...guarded, schema: { tags, response: { 200: memberCards } } }, async (request) =>
      service.list(principalOf(request)),
    );

    app.post(
      '/users/invite',
      {
        ...guarded,
        schema: {
          tags,
          description:
            'Invites the rows whose first name, last name, email and role are all filled (never as Owner); ' +
            'refused with 403 while the organisation has no card.',
          body: inviteBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) => service.invite(principalOf(request), request.body),
    );

    app.get(
      '/users/invitations',
      { ...guarded, schema: { tags, response: { 200: pendingInvitations } } },
      async (request) => service.pendingInvitations(principalOf(request)),
    );

    app.post(
      '/users/invitations/:id/resend',
      {
        ...guarded,
        schema: {
          tags,
          description: 'Mails the invitation again with a new link; the earlier link stops working.',
          params,
          response: { 200: messageAnswer },
        },
      },
      async (request) => service.resendInvitation(principalOf(request), request.params.id),
    );

    app.delete(
      '/users/invitations/:id',
      { ...guarded, schema: { tags, params, response: { 200: messageAnswer } } },
      async (request) => service.cancelInvitation(principalOf(request), request.params.id),
    );

    app.put(
      '/users/:id',
      { ...guarded, schema: { tags, params, body: roleChangeBody, response: { 200: messageAnswer } } },
      async (request) => service.changeRole(principalOf(request), request.params.id, request.body.role_id),
    );

    for (const [path, active] of [
      ['/users/:id/activate', true],
      ['/users/:id/deactivate', false],
    ] as const) {
      app.put(
        path,
        { ...guarded, schema: { tags, params, response: { 200: messageAnswer } } },
        async (request) => service.setActive(principalOf(request), request.params.id, active),
      );
    }
  };
}

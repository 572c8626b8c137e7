import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { organizationFlags, organizationFlagsBody } from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { OrganizationsService } from './organizations.service.ts';

/** The caller's organisation (spec 001 §7 "Confirmed flags"); the chat webhook lives with sharing. */
export function organizationsRoutes(service: OrganizationsService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['organizations'];

    app.put(
      '/organizations/_me',
      {
        // The Owner check is the service's, so the refusal carries the spec's reason rather than a generic 403.
        preHandler: auth.requireAuth,
        schema: {
          tags,
          description: 'Confirms the cloud to cloud, ftX or Wasabi charge for the organisation (Owner only).',
          body: organizationFlagsBody,
          response: { 200: organizationFlags },
        },
      },
      async (request) => service.confirm(principalOf(request), request.body),
    );
  };
}

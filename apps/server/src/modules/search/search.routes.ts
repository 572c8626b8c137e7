import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { mediaSearchAnswer, mediaSearchBody } from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { SearchService } from './search.service.ts';

/**
 * Media search under /api. POST /search is the file browser's bucket walk (modules/objects), so the index's search
 * of spec 001 §7 ("Media search: … Method/path not shown") answers at /media/search.
 */
export function searchRoutes(service: SearchService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/media/search',
      {
        preHandler: auth.requireAuth,
        schema: {
          tags: ['media'],
          description:
            'Objects of the organisation by name (default) or location, with advanced filters; count is every match.',
          body: mediaSearchBody,
          response: { 200: mediaSearchAnswer },
        },
      },
      async (request) => service.search(principalOf(request), request.body),
    );
  };
}

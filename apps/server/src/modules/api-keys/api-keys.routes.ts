import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  apiKeyIdQuery,
  apiKeyList,
  apiKeyView,
  createdApiKey,
  messageAnswer,
  updateApiKeyBody,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { ApiKeysService } from './api-keys.service.ts';

/** The API key calls of spec 002 §7 at the spec's paths under /api. */
export function apiKeysRoutes(service: ApiKeysService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['api keys'];
    // Only a sign-in session changes keys: a leaked key cannot make or keep itself more keys.
    const session = { preHandler: auth.requireSession };

    app.get(
      '/apikey/ListApiKey',
      {
        preHandler: auth.requireAuth,
        schema: {
          tags,
          description: "The caller's own keys, newest first. Secrets are never listed.",
          response: { 200: apiKeyList },
        },
      },
      async (request) => service.list(principalOf(request)),
    );

    app.post(
      '/apikey/CreateKey',
      {
        ...session,
        schema: {
          tags,
          description: 'A new key for the caller. secret_key is in this answer only: it is stored as a hash.',
          response: { 201: createdApiKey },
        },
      },
      async (request, reply) => reply.status(201).send(await service.create(principalOf(request))),
    );

    app.put(
      '/apikey/UpdateApiKey',
      {
        ...session,
        schema: {
          tags,
          description:
            "Not in the spec: turns one of the caller's keys off (it is refused at once) or on again.",
          querystring: apiKeyIdQuery,
          body: updateApiKeyBody,
          response: { 200: z.object({ message: z.string(), key: apiKeyView }) },
        },
      },
      async (request) => service.setActive(principalOf(request), request.query.id, request.body.active),
    );

    app.delete(
      '/apikey/DeleteApiKey',
      { ...session, schema: { tags, querystring: apiKeyIdQuery, response: { 200: messageAnswer } } },
      async (request) => service.remove(principalOf(request), request.query.id),
    );
  };
}

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  encodeAnswer,
  encodeBody,
  encodingJob,
  encodingJobs,
  encodingPresets,
  messageAnswer,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { EncodingService } from './encoding.service.ts';

const jobId = z.object({ id: z.uuid() });

/** The Encoding page's calls (spec 001 §7 "encoding.presets", "encode", "cancel by id", the job list) under /api. */
export function encodingRoutes(service: EncodingService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['encoding'];
    const member = { preHandler: auth.requireAuth };

    app.get(
      '/encoding/presets',
      { ...member, schema: { tags, response: { 200: encodingPresets } } },
      async (request) => service.presets(principalOf(request)),
    );

    app.post(
      '/encoding/encode',
      { ...member, schema: { tags, body: encodeBody, response: { 200: encodeAnswer } } },
      async (request) => service.encode(principalOf(request), request.body),
    );

    app.get(
      '/encoding/jobs',
      { ...member, schema: { tags, response: { 200: encodingJobs } } },
      async (request) => service.list(principalOf(request)),
    );

    app.get(
      '/encoding/jobs/:id',
      { ...member, schema: { tags, params: jobId, response: { 200: encodingJob } } },
      async (request) => service.find(principalOf(request), request.params.id),
    );

    app.post(
      '/encoding/cancel/:id',
      { ...member, schema: { tags, params: jobId, response: { 200: messageAnswer } } },
      async (request) => service.cancel(principalOf(request), request.params.id),
    );

    app.delete(
      '/encoding/jobs/:id',
      { ...member, schema: { tags, params: jobId, response: { 200: messageAnswer } } },
      async (request) => service.remove(principalOf(request), request.params.id),
    );
  };
}

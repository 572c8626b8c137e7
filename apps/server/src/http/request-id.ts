import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requestIdFrom, runInContext, type RunContext } from '../runtime/request-context.ts';

/** Fastify's `genReqId`: the caller's X-Request-Id when it is a sane short token, else a new UUID. */
export function requestIdOf(request: { headers: Record<string, string | string[] | undefined> }): string {
  return requestIdFrom(request.headers['x-request-id']);
}

/**
 * Answers every request with its id (`x-request-id`) and runs its handler inside its context, so that the jobs it
 * sends carry the id (runtime/request-context.ts). The context is entered twice: a request's body is parsed in
 * the stream's own callbacks, which leave it, so preValidation enters it again for the hooks and the handler.
 */
export function carryRequestId(app: FastifyInstance) {
  const contexts = new WeakMap<FastifyRequest, RunContext>();
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    const context: RunContext = { requestId: request.id };
    contexts.set(request, context);
    runInContext(context, done);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const context = contexts.get(request);
    if (context) runInContext(context, done);
    else done();
  });
}

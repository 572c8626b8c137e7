import type { FastifyInstance } from 'fastify';
import { messages } from '@cumulo/contract';
import type { Metrics } from './metrics.ts';
import { metricsAccess, metricsDenied } from './metrics-access.ts';

/** The label of requests no route matched (unknown paths, the web app's deep links): never the raw URL. */
const UNMATCHED = 'unmatched';

/**
 * GET /metrics (at the root, where Prometheus scrapes): the process's registry in the text format, for the
 * bearer of METRICS_TOKEN; 404 when no token is configured. Not in the API's OpenAPI document.
 */
export function metricsRoutes(metrics: Metrics, token: string | undefined) {
  return async (app: FastifyInstance) => {
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      const access = metricsAccess(token, request.headers.authorization);
      if (access === 'off') return reply.status(404).send({ message: messages.notFound });
      if (access === 'denied')
        return reply.status(401).header('www-authenticate', 'Bearer').send({ message: metricsDenied });
      const body = await metrics.registry.metrics();
      return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(body);
    });
  };
}

/** The status of a request whose client closed the connection before any answer was sent (nginx's 499). */
const CLIENT_CLOSED = '499';

/**
 * Times every request into the latency histogram, labelled by the route's pattern (`/api/transfer/:id`), never by
 * its URL: ids and tokens would make a series per request. Timed when its response closes, which always happens:
 * Fastify's onResponse waits for a 'finish' that Node never emits when the client leaves while the answer is
 * written (an agent stopped just after it reported), and such requests went uncounted. One whose client left
 * before any answer counts as 499.
 */
export function observeRequests(app: FastifyInstance, metrics: Metrics) {
  app.addHook('onRequest', async (request, reply) => {
    // A WebSocket (the /rm hub) is a connection, not a request to time.
    if (request.headers.upgrade) return;
    reply.raw.once('close', () => {
      metrics.httpDuration.observe(
        {
          method: request.method,
          route: request.routeOptions.url ?? UNMATCHED,
          status_code: reply.raw.headersSent ? String(reply.statusCode) : CLIENT_CLOSED,
        },
        reply.elapsedTime / 1000,
      );
    });
  });
}

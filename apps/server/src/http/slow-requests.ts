import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { maskUrl, type Logger } from '../logger.ts';

/** A request still unanswered after this long is logged while it hangs, and again when it ends. */
const SLOW_REQUEST_MS = 15_000;

/**
 * Logs API requests that take longer than `afterMs`: once while they are still running (so a request that never
 * ends leaves a trace) and once when they end, with the API pool's state (busy, idle, waiting callers), since a
 * hang behind an exhausted pool or a held lock looks exactly like a slow handler from the browser.
 * Paths are logged without their query, which may carry a token.
 */
export function watchSlowRequests(
  app: FastifyInstance,
  pool: pg.Pool,
  log: Logger,
  afterMs = SLOW_REQUEST_MS,
) {
  const describe = (request: FastifyRequest) => ({
    method: request.method,
    // A share link's path is its token.
    path: maskUrl(request.url.split('?')[0] ?? ''),
    pool: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount },
  });
  app.addHook('onRequest', async (request, reply) => {
    // A WebSocket (the /rm hub) stays open by design.
    if (request.headers.upgrade) return;
    const started = performance.now();
    const timer = setTimeout(() => {
      log.warn({ ...describe(request), afterMs }, 'request still running');
    }, afterMs);
    timer.unref();
    // The response's 'close' always comes: after the answer, after a client that left before it, and after one
    // that left while it was being written (an agent stopped just after it reported), where Node never emits
    // 'finish' and Fastify runs neither onResponse nor onRequestAbort.
    reply.raw.once('close', () => {
      clearTimeout(timer);
      const ms = Math.round(performance.now() - started);
      if (ms < afterMs) return;
      if (reply.raw.headersSent)
        log.warn({ ...describe(request), ms, status: reply.statusCode }, 'slow request');
      else log.warn({ ...describe(request), ms }, 'slow request aborted by the client');
    });
  });
}

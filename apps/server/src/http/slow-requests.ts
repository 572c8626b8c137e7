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
  const timers = new WeakMap<FastifyRequest, { timer: ReturnType<typeof setTimeout>; started: number }>();
  const describe = (request: FastifyRequest) => ({
    method: request.method,
    // A share link's path is its token.
    path: maskUrl(request.url.split('?')[0] ?? ''),
    pool: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount },
  });
  /** Stops watching; how long the request ran, in ms (0 when it was not watched). */
  const clear = (request: FastifyRequest) => {
    const watch = timers.get(request);
    if (!watch) return 0;
    clearTimeout(watch.timer);
    timers.delete(request);
    return performance.now() - watch.started;
  };

  app.addHook('onRequest', async (request, reply) => {
    // A WebSocket (the /rm hub) stays open by design.
    if (request.headers.upgrade) return;
    const timer = setTimeout(() => {
      log.warn({ ...describe(request), afterMs }, 'request still running');
    }, afterMs);
    timer.unref();
    timers.set(request, { timer, started: performance.now() });
    // A client that leaves while its answer is being written (an agent stopped just after it reported) gets
    // neither Fastify's onResponse, which waits for a 'finish' that never comes, nor onRequestAbort, whose request
    // was whole: the response's 'close', which always comes, ends the watch. After onResponse it finds none.
    reply.raw.once('close', () => {
      const ms = clear(request);
      if (ms >= afterMs)
        log.warn(
          { ...describe(request), ms: Math.round(ms), status: reply.statusCode },
          'slow request, its client gone before the answer was delivered',
        );
    });
  });
  app.addHook('onResponse', async (request, reply) => {
    const ms = clear(request);
    if (ms >= afterMs)
      log.warn({ ...describe(request), ms: Math.round(ms), status: reply.statusCode }, 'slow request');
  });
  app.addHook('onRequestAbort', async (request) => {
    const ms = clear(request);
    if (ms >= afterMs)
      log.warn({ ...describe(request), ms: Math.round(ms) }, 'slow request aborted by the client');
  });
}

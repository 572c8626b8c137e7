import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import { healthAnswer, livenessAnswer } from '@cumulo/contract';
import { QUEUES } from '../../jobs/boss.ts';
import type { Lifecycle } from '../../runtime/lifecycle.ts';

const VERSION = process.env.npm_package_version ?? '0.1.0';

/** A dependency that does not answer within this long counts as down: readiness must answer, not hang. */
const READY_CHECK_MS = 2000;

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * GET /api/health is liveness: 200 as long as the process answers (no database call, so a database outage does
 * not get every process restarted). GET /api/ready is readiness: database and job queue reachable and the process
 * not draining, else 503 (load balancers send traffic by it).
 */
export function healthRoutes(pool: pg.Pool, boss: PgBoss, lifecycle: Lifecycle): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/health', { schema: { tags: ['health'], response: { 200: livenessAnswer } } }, async () => ({
      status: 'ok' as const,
    }));
    app.get(
      '/ready',
      { schema: { tags: ['health'], response: { 200: healthAnswer, 503: healthAnswer } } },
      async (_request, reply) => {
        const [database, jobQueue] = await Promise.all([
          within(pool.query('select 1'), READY_CHECK_MS)
            .then(() => 'up' as const)
            .catch(() => 'down' as const),
          within(boss.getQueue(QUEUES.purgeExpiredIdentity), READY_CHECK_MS)
            .then((q) => (q ? ('up' as const) : ('down' as const)))
            .catch(() => 'down' as const),
        ]);
        const status = lifecycle.draining
          ? 'draining'
          : database === 'up' && jobQueue === 'up'
            ? 'ok'
            : 'degraded';
        return reply
          .status(status === 'ok' ? 200 : 503)
          .send({ status, database, jobQueue, version: VERSION });
      },
    );
  };
}

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import { healthAnswer } from '@cumulo/contract';
import { QUEUES } from '../../jobs/boss.ts';

const VERSION = process.env.npm_package_version ?? '0.1.0';

/** GET /api/health: database and job-queue status; 503 when either is down (load balancers read the status). */
export function healthRoutes(pool: pg.Pool, boss: PgBoss): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      { schema: { tags: ['health'], response: { 200: healthAnswer, 503: healthAnswer } } },
      async (_request, reply) => {
        const database = await pool
          .query('select 1')
          .then(() => 'up' as const)
          .catch(() => 'down' as const);
        const jobQueue = await boss
          .getQueue(QUEUES.purgeExpiredIdentity)
          .then((q) => (q ? ('up' as const) : ('down' as const)))
          .catch(() => 'down' as const);
        const status = database === 'up' && jobQueue === 'up' ? 'ok' : 'degraded';
        return reply
          .status(status === 'ok' ? 200 : 503)
          .send({ status, database, jobQueue, version: VERSION });
      },
    );
  };
}

import type { PgBoss } from 'pg-boss';
import type { Logger } from '../logger.ts';
import { runInContext } from '../runtime/request-context.ts';

interface ContextJob {
  id: string;
  data?: unknown;
}
type Handler = (jobs: ContextJob[], ...rest: unknown[]) => Promise<unknown>;

/**
 * The job queue as the handlers' modules see it: each handler runs inside its job's context (queue, job id, and
 * the `requestId` the job was sent with), so every log line it writes names them (logger.ts `mixin`), and the jobs
 * it sends carry the request id on. A handler given several jobs at once runs in the first one's context.
 */
export function withJobContext(boss: PgBoss, log: Logger): PgBoss {
  const work = (name: string, ...rest: unknown[]) => {
    const handler = rest.pop() as Handler;
    const traced: Handler = (jobs, ...more) => {
      const first = jobs[0];
      const data = first?.data;
      const requestId =
        typeof data === 'object' && data !== null && 'requestId' in data && typeof data.requestId === 'string'
          ? data.requestId
          : undefined;
      return runInContext({ requestId, job: name, jobId: first?.id }, async () => {
        const started = performance.now();
        log.debug('job started');
        try {
          const result = await handler(jobs, ...more);
          log.debug({ ms: Math.round(performance.now() - started) }, 'job finished');
          return result;
        } catch (error) {
          log.warn({ err: error, ms: Math.round(performance.now() - started) }, 'job failed');
          throw error;
        }
      });
    };
    return (boss.work as (...args: unknown[]) => Promise<string>)(name, ...rest, traced);
  };
  return new Proxy(boss, {
    get(target, property) {
      if (property === 'work') return work;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { PgBoss } from 'pg-boss';

/**
 * What the code running now was started by: an HTTP request (its id), or a job (its queue, its id, and the id of
 * the request that sent it). Set by the request hooks (http/request-id.ts) and by the job handlers' wrapper
 * (jobs/register.ts); read when a job is sent, so that it carries the request id, and by the logger, so that
 * every line a job writes carries it too.
 */
export interface RunContext {
  requestId?: string;
  job?: string;
  jobId?: string;
}

const storage = new AsyncLocalStorage<RunContext>();

export function runInContext<T>(context: RunContext, work: () => T): T {
  return storage.run(context, work);
}

/**
 * Runs `work` outside any context: for a timer shared by every job of the process (a timer keeps the context it
 * was created in, and its lines would otherwise name the job that happened to start it).
 */
export function outsideContext<T>(work: () => T): T {
  return storage.exit(work);
}

/**
 * The fields a log line gets from its context. Only a job's: a request's lines already carry its id through
 * Fastify's request logger, and adding it here too would write the key twice.
 */
export function jobLogFields(): RunContext {
  const context = storage.getStore();
  if (!context?.job) return {};
  return context.requestId
    ? { requestId: context.requestId, job: context.job, jobId: context.jobId }
    : { job: context.job, jobId: context.jobId };
}

/** A client's X-Request-Id is kept when it is a short plain token (it lands in logs and job data as is). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && SANE_REQUEST_ID.test(value) ? value : randomUUID();
}

/**
 * Makes every `boss.send(name, data, options)` of the process add the current request id to the job's data
 * (`requestId`), unless the data names one already. A job sent by a job carries on the request id of its own.
 */
export function carryRequestIds(boss: PgBoss): void {
  const send = boss.send.bind(boss) as (...args: unknown[]) => Promise<string | null>;
  const traced = (...args: unknown[]) => {
    const requestId = storage.getStore()?.requestId;
    const [name, data] = args;
    if (requestId && typeof name === 'string' && isPlainData(data) && !('requestId' in data))
      args[1] = { ...data, requestId };
    return send(...args);
  };
  boss.send = traced as PgBoss['send'];
}

function isPlainData(data: unknown): data is Record<string, unknown> {
  return typeof data === 'object' && data !== null && !Array.isArray(data);
}

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SYNC_CYCLE_STATUS } from '@cumulo/contract';
import { QUEUES } from '../../jobs/boss.ts';
import type { QueueStat } from './queue-stats.repo.ts';

/** A scrape reads the queue's depth at most this often: a storm of scrapes costs the database one query. */
const QUEUE_STATS_CACHE_MS = 5000;

/** Source and destination provider of a transfer (provider names only: a bounded set of label values). */
export interface TransferLabels {
  source: string;
  destination: string;
}

export type TransferMetrics = Pick<
  Metrics,
  'transferBytes' | 'transferObjects' | 'transferErrors' | 'transferRetries'
>;

const CYCLE_OUTCOME: Record<number, string> = {
  [SYNC_CYCLE_STATUS.completed]: 'completed',
  [SYNC_CYCLE_STATUS.cancelled]: 'cancelled',
  [SYNC_CYCLE_STATUS.faulted]: 'faulted',
  [SYNC_CYCLE_STATUS.noChange]: 'no_change',
};

/**
 * The process's Prometheus metrics, in one registry built once per process (services.ts). Counters count what
 * this process did; the queue gauges are read from the shared database, so every process shows the same values.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'cumulo_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status code, by time to answer.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly transferBytes = new Counter({
    name: 'cumulo_transfer_bytes_total',
    help: 'Bytes of the objects the transfer engine copied and verified, by source and destination provider.',
    labelNames: ['source', 'destination'] as const,
    registers: [this.registry],
  });

  readonly transferObjects = new Counter({
    name: 'cumulo_transfer_objects_total',
    help: 'Objects the transfer engine copied and verified, by source and destination provider.',
    labelNames: ['source', 'destination'] as const,
    registers: [this.registry],
  });

  readonly transferErrors = new Counter({
    name: 'cumulo_transfer_errors_total',
    help: 'Objects the transfer engine failed (after their retries), by source and destination provider.',
    labelNames: ['source', 'destination'] as const,
    registers: [this.registry],
  });

  readonly transferRetries = new Counter({
    name: 'cumulo_transfer_retries_total',
    help: 'Copies of an object tried again after a retryable error, by source and destination provider.',
    labelNames: ['source', 'destination'] as const,
    registers: [this.registry],
  });

  readonly syncCycles = new Counter({
    name: 'cumulo_sync_cycles_total',
    help: 'Sync cycles ended, by outcome (completed, no_change, cancelled, faulted).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly ingestRuns = new Counter({
    name: 'cumulo_ingest_runs_total',
    help: 'Billing report ingestion runs ended, by outcome (succeeded, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(queueStats: () => Promise<QueueStat[]>) {
    // Unprefixed (process_*, nodejs_*), as the usual Node.js dashboards expect them.
    collectDefaultMetrics({ register: this.registry });
    let cached: { at: number; stats: Promise<QueueStat[]> } | null = null;
    const read = () => {
      if (!cached || Date.now() - cached.at > QUEUE_STATS_CACHE_MS) {
        const stats = queueStats();
        cached = { at: Date.now(), stats };
        // A failed read is not kept: the next scrape tries again.
        stats.catch(() => {
          if (cached?.stats === stats) cached = null;
        });
      }
      return cached.stats;
    };
    // Every queue is listed, an empty one at 0, so that an alert on a missing series cannot be silenced by it.
    const byQueue = async (pick: (stat: QueueStat) => number) => {
      const stats = new Map((await read()).map((stat) => [stat.queue, stat]));
      return Object.values(QUEUES).map((queue) => {
        const stat = stats.get(queue);
        return { queue, value: stat ? pick(stat) : 0 };
      });
    };
    new Gauge({
      name: 'cumulo_job_queue_depth',
      help: 'Jobs waiting for a worker, by queue (read from the shared database).',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        for (const { queue, value } of await byQueue((stat) => stat.queued)) this.set({ queue }, value);
      },
    });
    new Gauge({
      name: 'cumulo_job_queue_oldest_seconds',
      help: 'Seconds the oldest due waiting job has waited, by queue (read from the shared database).',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        for (const { queue, value } of await byQueue((stat) => stat.oldestSeconds))
          this.set({ queue }, value);
      },
    });
  }

  /** A sync cycle ended with `status` (a SYNC_CYCLE_STATUS). */
  syncCycleEnded(status: number) {
    this.syncCycles.inc({ outcome: CYCLE_OUTCOME[status] ?? 'other' });
  }
}

import { availableParallelism } from 'node:os';
import { aggregateLineItems } from './aggregate.ts';
import type { IngestEngine } from './ingest-run.ts';
import { DEFAULT_READ_THREADS } from '../../../config-defaults.ts';
import { aggregateFilesInThreads } from './read-pool.ts';
import { readLineItemBatches } from './read-report.ts';

/**
 * The engine ingestion runs with: the streaming reader (gzip, zip and plain CSV of both layouts, Parquet row
 * groups) and the in-memory aggregator, one row per distinct daily key (README "Engine" for why not DuckDB). A
 * period's gzip or plain CSV text is cut into pieces parsed by `min(cores, threads)` worker threads, zip and Parquet
 * files are read `min(files, cores, threads)` at a time (read-pool.ts); even a single
 * file is, since a thread's young generation is not the main thread's 2 MB (read-pool.ts THREAD_SEMI_SPACE_MB):
 * one file took 8.9 CPU-seconds in the main thread against ~4.5 in a thread, and the server's event loop stays free.
 */
export function createIngestEngine({ threads }: { threads: number }): IngestEngine {
  return {
    readLineItemBatches,
    aggregate: async (batches) => [...(await aggregateLineItems(batches)).rows()],
    aggregateFiles: (files, layout, open) =>
      aggregateFilesInThreads(files, layout, open, Math.min(availableParallelism(), threads)),
  };
}

export const ingestEngine = createIngestEngine({ threads: DEFAULT_READ_THREADS });

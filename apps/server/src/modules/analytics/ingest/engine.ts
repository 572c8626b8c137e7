import { availableParallelism } from 'node:os';
import { RollupAggregator, aggregateLineItems } from './aggregate.ts';
import type { IngestEngine } from './ingest-run.ts';
import { DEFAULT_READ_THREADS, aggregateFilesInThreads, type OpenReportFile } from './read-pool.ts';
import { readLineItemBatches } from './read-report.ts';
import type { ReportFile, ReportLayout, RollupRow } from './report-types.ts';

/** A period's files one after the other in this thread, into one aggregator. */
async function aggregateHere(
  files: readonly ReportFile[],
  layout: ReportLayout,
  open: OpenReportFile,
): Promise<RollupRow[]> {
  const aggregator = new RollupAggregator();
  for (const file of files) {
    const stream = await open(file);
    try {
      await aggregateLineItems(readLineItemBatches(stream, file, layout), aggregator);
    } finally {
      stream.destroy();
    }
  }
  return [...aggregator.rows()];
}

/**
 * The engine ingestion runs with: the streaming reader (gzip, zip and plain CSV of both layouts, Parquet row
 * groups) and the in-memory aggregator, one row per distinct daily key (README "Engine" for why not DuckDB). A
 * period of several files is read `min(files, cores, threads)` files at a time in worker threads (read-pool.ts);
 * a single file, or a single core, in this thread, where a thread would only add its start.
 */
export function createIngestEngine({ threads }: { threads: number }): IngestEngine {
  return {
    readLineItemBatches,
    aggregate: async (batches) => [...(await aggregateLineItems(batches)).rows()],
    aggregateFiles: (files, layout, open) => {
      const count = Math.min(files.length, availableParallelism(), threads);
      return count < 2
        ? aggregateHere(files, layout, open)
        : aggregateFilesInThreads(files, layout, open, count);
    },
  };
}

export const ingestEngine = createIngestEngine({ threads: DEFAULT_READ_THREADS });

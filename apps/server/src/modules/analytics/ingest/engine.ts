import { aggregateLineItems } from './aggregate.ts';
import type { IngestEngine } from './ingest-run.ts';
import { readLineItemBatches } from './read-report.ts';

/**
 * The engine ingestion runs with: the streaming reader (gzip, zip and plain CSV of both layouts, Parquet row
 * groups) and the in-memory aggregator, one row per distinct daily key (README "Engine" for why not DuckDB).
 */
export const ingestEngine: IngestEngine = {
  readLineItemBatches,
  aggregate: async (batches) => [...(await aggregateLineItems(batches)).rows()],
};

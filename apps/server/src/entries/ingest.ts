// `@cumulo/server/ingest`: the billing-report ingestion engine and the heap policy alone, for a process that
// measures the engine's own memory (bench/cur-read); it loads none of the services.
export { DEFAULT_READ_THREADS, HEAP_GROWING_PERCENT } from '../config-defaults.ts';
export { applyHeapPolicy } from '../runtime/heap.ts';
export { createIngestEngine } from '../modules/analytics/ingest/engine.ts';

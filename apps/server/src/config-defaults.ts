// The defaults of config.ts's settings that modules also read without a configuration (a worker thread, a bench, a
// test building an engine): defined once here, imported by config.ts and by the module, so config.ts imports no
// engine module and the two never disagree. Each setting's meaning is documented on its config.ts line.

/**
 * How far V8 lets the heap grow past what was live at the last full collection, in percent. V8's own policy lets a
 * heap reach up to four times its live data before collecting; a worker that streams a million-key listing
 * through short-lived objects then sits on a hundred megabytes of garbage. At 50 % a worker's resident memory
 * stays close to what it really uses, for a few more (concurrent) collections: planning a million keys took the
 * same time either way on the bench (bench/transfer (d)). It is a growth policy, not a ceiling: a heap whose live
 * data grows still grows with it.
 *
 * The young generation's size is a start-up flag (`--max-semi-space-size`; set from here it does nothing): the
 * processes run with `serverNodeFlags` of scripts/build-server.mjs. When the S3 calls still went through the
 * SDK's middleware (2026-11-24), the smaller young generation cost (a) 8 % of its time in extra scavenges and was
 * left out; with object requests sent directly, allocating far less, the cost is within the benchmark's noise.
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Files of one period read at once when the configuration does not say (ANALYTICS_READ_THREADS): two, the cores
 * the goal was measured on, and each thread adds ~70 MB to the process's peak (README "Engine").
 */
export const DEFAULT_READ_THREADS = 2;

/** `TRANSFER_MEMORY_MB`'s default: eight 8 MiB parts in flight per worker process. */
export const DEFAULT_TRANSFER_MEMORY_MB = 64;

/** How long a batch waits for an unreachable store before it fails (`TRANSFER_OUTAGE_SECONDS`). */
export const DEFAULT_OUTAGE_SECONDS = 900;

import v8 from 'node:v8';

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

/** Applies the heap policy to this process; 0 leaves V8's own. Call it before the process does real work. */
export function applyHeapPolicy(percent: number) {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

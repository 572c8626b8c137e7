import v8 from 'node:v8';

/**
 * How far V8 lets the heap grow past what was live at the last full collection, in percent. V8's own policy lets a
 * heap reach up to four times its live data before collecting; a worker that streams a million-key listing
 * through short-lived objects then sits on a hundred megabytes of garbage. At 50 % a worker's resident memory
 * stays close to what it really uses, for a few more (concurrent) collections: planning a million keys took the
 * same time either way on the bench (bench/transfer (d)). It is a growth policy, not a ceiling: a heap whose live
 * data grows still grows with it.
 */
export const HEAP_GROWING_PERCENT = 50;

/** Applies the heap policy to this process; 0 leaves V8's own. Call it before the process does real work. */
export function applyHeapPolicy(percent: number) {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

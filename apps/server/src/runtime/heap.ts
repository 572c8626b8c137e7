import v8 from 'node:v8';

/**
 * How far V8 lets the heap grow past what was live at the last full collection, in percent. V8's own policy lets a
 * heap reach up to four times its live data before collecting; a worker that streams a million-key listing
 * through short-lived objects then sits on a hundred megabytes of garbage. At 50 % a worker's resident memory
 * stays close to what it really uses, for a few more (concurrent) collections: planning a million keys took the
 * same time either way on the bench (bench/transfer (d)). It is a growth policy, not a ceiling: a heap whose live
 * data grows still grows with it.
 *
 * A smaller young generation (`node --max-semi-space-size=2`, a start-up flag: set from here it does nothing) was
 * tried for the worker: its peak RSS fell 15–20 % (bench/transfer (a) 181 → 149 MB, (b) 276 → 240 MB), but
 * 1000 small objects took 8 % longer (3.67 → 3.96 s, three runs each) for the extra scavenges. Left out.
 */
export const HEAP_GROWING_PERCENT = 50;

/** Applies the heap policy to this process; 0 leaves V8's own. Call it before the process does real work. */
export function applyHeapPolicy(percent: number) {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

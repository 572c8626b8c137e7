import v8 from 'node:v8';

export { HEAP_GROWING_PERCENT } from '../config-defaults.ts';

/** Applies the heap policy to this process; 0 leaves V8's own. Call it before the process does real work. */
export function applyHeapPolicy(percent: number) {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

// Imported first by every entry point (main.ts), so the heap policy also governs the burst of garbage that
// loading the modules leaves. HEAP_GROWING_PERCENT is read here, before the configuration is validated; an
// invalid value is left to loadConfig() to report.
import { applyHeapPolicy, HEAP_GROWING_PERCENT } from './heap.ts';

const configured = process.env.HEAP_GROWING_PERCENT;
const percent = configured === undefined || configured === '' ? HEAP_GROWING_PERCENT : Number(configured);
if (Number.isInteger(percent) && percent >= 0 && percent <= 400) applyHeapPolicy(percent);

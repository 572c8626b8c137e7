// bench/cur-read's (b) child: the server's ingestion engine (modules/analytics/ingest/engine.ts) over the month's
// files, bundled and run as the server is deployed (run.ts builds it with scripts/build-server.mjs), so its
// reading threads start from the bundle's `analytics-read-worker.js` and its peak RSS is a worker's.
//   node engine-child.js <threads> <file>…
import fs from 'node:fs';
import path from 'node:path';
import { createIngestEngine, HEAP_GROWING_PERCENT, applyHeapPolicy } from '@cumulo/server/ingest';

// The heap policy the server's processes apply at start (main.ts), before any thread starts.
applyHeapPolicy(HEAP_GROWING_PERCENT);

const [threads = '2', ...files] = process.argv.slice(2);
const engine = createIngestEngine({ threads: Number(threads) });
if (!engine.aggregateFiles) throw new Error('the engine reads no files itself');
const started = performance.now();
const rows = await engine.aggregateFiles(
  files.map((file) => ({ key: path.basename(file), format: 'csv.gz' as const })),
  'cur-legacy',
  async (file) => fs.createReadStream(path.join(path.dirname(files[0] ?? ''), file.key)),
);
let costNano = 0n;
for (const row of rows) costNano += row.costNano;
console.log(
  JSON.stringify({
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    rssMb: process.resourceUsage().maxRSS / 1024,
    rows: rows.length,
    costNano: String(costNano),
  }),
);

// bench/cur/generate: one month of a billing report (issue 24) written to local disk as split gzip CSV by the
// seeded generator the tests use (apps/server/test/cur/generator.ts), with the exact totals it wrote beside it as
// JSON. The ingestion benchmark reads these files; `gzip -dc` of the same files is its bound.
//
//   npm run cur:generate -w bench [-- --lines 5000000 --files 10 --layout cur-legacy --month 2026-10 --seed 1]
//
// Output: bench/.data/cur/<layout>-<lines>/ (the report's keys as paths) and expected-totals.json there. The
// generator streams: memory stays one chunk of lines and the totals, whatever the line count.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CurReportGenerator, directorySink, totalsJson } from '@cumulo/server/testing';
import { repoRoot } from '../inventory/s3rver-process.ts';

const { values: options } = parseArgs({
  options: {
    lines: { type: 'string', default: '5000000' },
    files: { type: 'string', default: '10' },
    layout: { type: 'string', default: 'cur-legacy' },
    month: { type: 'string', default: '2026-10' },
    seed: { type: 'string', default: '1' },
    level: { type: 'string', default: '6' },
    out: { type: 'string' },
  },
});
const lines = Number(options.lines);
const files = Number(options.files);
const level = Number(options.level);
const layout = options.layout;
if (!Number.isInteger(lines) || lines <= 0 || !Number.isInteger(files) || files <= 0)
  throw new Error('bad --lines/--files');
if (layout !== 'cur-legacy' && layout !== 'cur2') throw new Error('--layout is cur-legacy or cur2');
if (!/^\d{4}-\d{2}$/.test(options.month)) throw new Error('--month is YYYY-MM');

const out = options.out ?? path.join(repoRoot, 'bench/.data/cur', `${layout}-${lines}`);
await rm(out, { recursive: true, force: true });
const generator = new CurReportGenerator({
  seed: options.seed,
  layout,
  endMonth: options.month,
  months: 1,
  linesPerMonth: lines,
  filesPerPeriod: files,
  gzipLevel: level,
});
const started = performance.now();
const [delivery] = await generator.writeAll(directorySink(out));
const seconds = (performance.now() - started) / 1000;
if (!delivery) throw new Error('nothing written');
await writeFile(path.join(out, 'expected-totals.json'), totalsJson(generator.expected()));

const bytes = delivery.files.reduce((sum, f) => sum + f.bytes, 0);
const dollars = (nano: bigint) =>
  `${nano / 1_000_000_000n}.${(nano % 1_000_000_000n).toString().padStart(9, '0').slice(0, 2)}`;
console.log(
  `cur generate: ${layout}, ${options.month}, ${lines} lines in ${files} gzip CSV files under ${out}`,
);
console.log(
  `  ${seconds.toFixed(1)} s, ${Math.round(lines / seconds)} lines/s, ${(bytes / 1e6).toFixed(1)} MB compressed`,
);
console.log(`  manifest ${delivery.manifestKeys[0]}, total $${dollars(delivery.totals.costNano)}`);
console.log(`  peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

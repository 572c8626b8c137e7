// `npm run build:server`: the server as plain JavaScript in apps/server/dist, so that its roles run on Node alone
// (`node apps/server/dist/main.js worker`), not through tsx. A process that compiles its TypeScript as it loads
// holds the compiler and its caches for its whole life: about 36 MB more per worker, measured with the modules
// that plan a transfer (137 MB through tsx, 101 MB from the bundle).
//
// Only the workspace's own code is bundled (the server and @cumulo/*), and drizzle-orm (see bundledPackages); every
// other npm package stays an import that Node resolves from node_modules as before, so packages that read their own files (pg-boss, swagger-ui, the embedded
// PostgreSQL binaries) find them where they are. Dynamic imports become their own chunks, so a worker still loads
// none of the web role's modules. `npm start` calls `buildServerIfStale` before it starts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const serverDist = path.join(root, 'apps/server/dist');
export const serverEntry = path.join(serverDist, 'main.js');

/**
 * The Node flags a process of the built server runs with: README's deployment commands and the `start` scripts of
 * package.json and apps/server/package.json write them out, and the benchmark's and the fault tests' workers take
 * them from here. V8 fixes them when the process starts; set from the code (runtime/heap.ts) they do nothing.
 *
 * A young generation of at most 2 MB instead of V8's 16 MB. A copy streams its bytes through short-lived network
 * buffers, and V8 frees a buffer's memory only when it collects the young generation that holds the buffer's small
 * JavaScript object, which few such objects fill slowly. bench/transfer, 2026-11-25, three runs each: the
 * worker's peak RSS fell from 175–192 to 140–150 MB in (a) and from 275–276 to 240–248 MB in (b), for no time lost
 * in (a) beyond its noise and about 5 % more worker CPU in (b) (13.1–13.8 → 13.8–14.7 CPU-seconds). The planning
 * process of (d) fell from 143 to 102–108 MB.
 *
 * `--experimental-async-context-frame` (Node 22; the default from Node 24): AsyncLocalStorage, which carries each
 * request's and job's context (runtime/request-context.ts), kept in V8's continuation frames instead of async hooks.
 * With the hooks, every promise the process makes runs an init hook, and a copy makes several per request.
 * bench/transfer (a), 2026-11-28, three rounds each, same machine: the worker's CPU fell from 3.69–3.87 to
 * 3.33–3.41 CPU-seconds. The web role takes it too (its request ids ride the same storage).
 */
export const ASYNC_CONTEXT_FLAG = '--experimental-async-context-frame';
export const serverNodeFlags = ['--max-semi-space-size=2', ASYNC_CONTEXT_FLAG];

/**
 * The web role's flags, measured with bench/load (200 signed-in clients, 200 requests/s, 2 cores, BENCH_TRACE and
 * `--trace-gc` lining the slow requests up with the collections; bench/RESULTS.md "load", 2026-11-27 evening):
 *
 * - A young generation of 16 MB (V8's default), not the workers' 2 MB. A request's objects live across its awaits
 *   (the bearer's check, its queries); collected every ~20 ms, objects of requests still in flight were promoted,
 *   and the old generation filled in ~1.8 s. At 16 MB the young generation is collected every ~200 ms and a full
 *   collection comes every 4–7 s.
 * - `--no-concurrent-marking`: the full collection's marking runs in small steps between requests instead of on a
 *   helper thread. On 2 cores that thread competed with PostgreSQL and the web role itself for ~60–85 ms, and every
 *   request that arrived meanwhile waited: the slow requests of a run bunched at those moments, the no-op's too.
 *   A web role on a machine with idle cores may do without it.
 *
 * The all-in-one `npm start` keeps the workers' flags: it streams copies too.
 */
export const webNodeFlags = ['--max-semi-space-size=16', '--no-concurrent-marking', ASYNC_CONTEXT_FLAG];
const sources = [
  'apps/server/src',
  'packages/contract/src',
  'packages/storage/src',
  'scripts/build-server.mjs',
];

/**
 * npm packages compiled in like the workspace's own. drizzle-orm: Node's ES module loader reads a package's
 * package.json afresh for every file it resolves in it, and drizzle-orm's is 179 KB of `exports` spread over the ~850
 * files a worker loads: 90 MB allocated while a worker starts, of which 20–30 MB were still uncollected in the heap of
 * an idle worker (bench/worker-idle, Node 22, a heap sampling of the start-up). Compiled in, nothing of it is resolved
 * at run time. It reads none of its own files, so it needs no place in node_modules.
 */
const bundledPackages = ['drizzle-orm'];

/** npm packages stay external, but for bundledPackages; the workspace's packages (@cumulo/*) are compiled in. */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@cumulo/') ||
      bundledPackages.some((name) => args.path === name || args.path.startsWith(`${name}/`))
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

/**
 * The billing-report reading thread (modules/analytics/ingest/read-pool.ts) is an entry point of its own: a worker
 * thread starts from a file, which read-pool.ts finds as `analytics-read-worker.js` beside its own chunk.
 */
export const analyticsReadWorkerEntry = {
  in: path.join(root, 'apps/server/src/modules/analytics/ingest/read-worker.ts'),
  out: 'analytics-read-worker',
};

/**
 * Bundles `entryPoints` (default: the server's main.ts and the reading thread) into `outdir` (default:
 * apps/server/dist), ES modules split at dynamic imports, with source maps beside them.
 */
export async function bundleServer({
  entryPoints = [{ in: path.join(root, 'apps/server/src/main.ts'), out: 'main' }, analyticsReadWorkerEntry],
  outdir = serverDist,
} = {}) {
  fs.rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: 'linked',
    keepNames: true,
    logLevel: 'warning',
    plugins: [externalPackages],
  });
  // esbuild's service process would otherwise live (≈40 MB) as long as the process that built, e.g. `npm start`.
  await esbuild.stop();
}

/** The newest modification time under `target` (a file or a folder), tests left out: what a build depends on. */
export function newestMtime(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) {
    if (/\.spec\.tsx?$/.test(entry)) continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}

/** Builds apps/server/dist when it is missing or older than any source it is made of. */
export async function buildServerIfStale(log = console.log) {
  const builtAt = fs.statSync(serverEntry, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sourcesAt = Math.max(...sources.map((source) => newestMtime(path.join(root, source))));
  if (builtAt >= sourcesAt) return;
  log(builtAt ? 'Server sources changed: rebuilding…' : 'Building the server…');
  await bundleServer();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleServer();
  console.log(`Built ${path.relative(root, serverEntry)}`);
}

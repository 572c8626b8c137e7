// `npm run build:agent`: the transfer agent as ONE file, apps/agent/dist/cumulo-agent.mjs, that runs on Node 22 alone
// (no node_modules): everything it imports, zod and @cumulo/contract included, is bundled. The server zips it with
// the launcher of a platform (apps/agent/packaging/<platform>/) for the download on /desktop.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const agentBundle = path.join(root, 'apps/agent/dist/cumulo-agent.mjs');
/**
 * The Node flags the launchers of packaging/ start the agent with (V8 fixes them when the process starts).
 * - `--max-semi-space-size=2`: a young generation of 2 MB instead of 16 MB. A transfer streams its blocks through
 *   short-lived buffers that V8 frees only when it collects the young generation holding their small objects
 *   (scripts/build-server.mjs, serverNodeFlags).
 * - `--optimize-for-size`: V8 lets the old generation grow less before collecting it. Requests in flight outlive a
 *   few young collections and are promoted; without the flag that garbage piled up to 45 MB of heap during an
 *   upload of 2 000 small files, for a live set of about 18 MB.
 * Measured on 2 000 files of 64 KiB against s3rver (the agent as built, upload / download peak RSS): no flags
 * 144 / 114 MB; the first 117 / 92 MB; both 88 / 88 MB, for no time lost beyond the machine's noise.
 */
export const agentNodeFlags = ['--max-semi-space-size=2', '--optimize-for-size'];

/**
 * zod's `z` namespace re-exports every one of its 40-odd locales, which a bundle then carries and Node compiles;
 * the agent speaks English (zod's default `en`). Without them the file is about 40 % smaller and the agent starts
 * with less memory.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`)
        ? { path: args.importer, namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), '../locales/en.js'))};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

export async function bundleAgent({ outfile = agentBundle } = {}) {
  await esbuild.build({
    entryPoints: [path.join(root, 'apps/agent/src/main.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    banner: { js: '#!/usr/bin/env node' },
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [englishOnlyZod],
  });
  await esbuild.stop();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleAgent();
  console.log(`Built ${path.relative(root, agentBundle)}`);
}

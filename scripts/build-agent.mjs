// `npm run build:agent`: the transfer agent as ONE file, apps/agent/dist/cumulo-agent.mjs, that runs on Node 22 alone
// (no node_modules): everything it imports, zod and @cumulo/contract included, is bundled. The server zips it with
// the launcher of a platform (apps/agent/packaging/<platform>/) for the download on /desktop.
import { mkdir, writeFile } from 'node:fs/promises';
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
 * - `--initial-old-space-size=40`: V8 counts the bytes of buffers allocated since its last full collection (every
 *   64 KiB a socket reads) against the old generation's limit. The first two flags kept that limit a few MB above
 *   the agent's 11–12 MB of live objects, so a download at 300 MB/s ran a full collection every 40–50 ms (~200 in
 *   2 GiB, a third of the agent's CPU), whether the buffers had died young or not. A bare Node download loop with
 *   the same flags stayed below V8's 8 MB threshold for starting to mark and did 13. With a 40 MB limit the agent
 *   does about 12; its peak RSS moved by less than the run-to-run noise (bench/RESULTS.md "agent").
 * Measured on 2 000 files of 64 KiB against s3rver (the agent as built, upload / download peak RSS): no flags
 * 144 / 114 MB; the first 117 / 92 MB; the first two 88 / 88 MB, for no time lost beyond the machine's noise. The
 * packaging launchers carry the same list (agent-flags.spec.ts checks them).
 */
export const agentNodeFlags = [
  '--max-semi-space-size=2',
  '--optimize-for-size',
  '--initial-old-space-size=40',
];

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
  const result = await esbuild.build({
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
    write: false,
  });
  await esbuild.stop();
  // esbuild escapes every non-ASCII character of the code, but keeps some comments as written (an em dash, '§').
  // One such character makes V8 hold the whole 0.5 MB source in two bytes a character; escaped, it holds one.
  const [output] = result.outputFiles;
  // \uXXXX per UTF-16 unit: valid in a comment, and in a string, template or regular expression should one remain.
  const ascii = output.text.replace(
    /[\u0080-\uffff]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  await mkdir(path.dirname(outfile), { recursive: true });
  await writeFile(outfile, ascii);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleAgent();
  console.log(`Built ${path.relative(root, agentBundle)}`);
}

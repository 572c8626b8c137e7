// `npm run build:agent`: the transfer agent as ONE file, apps/agent/dist/cumulo-agent.mjs, that runs on Node 22 alone
// (no node_modules): everything it imports, zod and @cumulo/contract included, is bundled. The server zips it with
// the launcher of a platform (apps/agent/packaging/<platform>/) for the download on /desktop.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const agentBundle = path.join(root, 'apps/agent/dist/cumulo-agent.mjs');

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
  });
  await esbuild.stop();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleAgent();
  console.log(`Built ${path.relative(root, agentBundle)}`);
}

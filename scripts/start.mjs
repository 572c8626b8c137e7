// `npm start`: builds the web app and the server (scripts/build-server.mjs) when either is missing or older than
// its sources, then runs every role in this process (web + worker + scheduler) from the built server, with the
// embedded PostgreSQL unless DATABASE_URL is set.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { agentBundle, bundleAgent } from './build-agent.mjs';
import { buildServerIfStale, newestMtime, root, serverEntry } from './build-server.mjs';

const webIndex = path.join(root, 'apps/web/dist/index.html');
const sources = ['apps/web/src', 'apps/web/index.html', 'apps/web/vite.config.ts', 'packages/contract/src'];

const builtAt = fs.statSync(webIndex, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const sourcesAt = Math.max(...sources.map((s) => newestMtime(path.join(root, s))));
if (!process.env.WEB_DIST && builtAt < sourcesAt) {
  console.log(builtAt ? 'Web app sources changed: rebuilding…' : 'Building the web app (first start)…');
  const result = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

await buildServerIfStale();
// The agent's single-file build: /desktop's download serves it (GET /api/agent/download/:platform).
const agentSources = ['apps/agent/src', 'packages/contract/src'];
const agentBuiltAt = fs.statSync(agentBundle, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (agentBuiltAt < Math.max(...agentSources.map((s) => newestMtime(path.join(root, s))))) {
  console.log('Building the transfer agent…');
  await bundleAgent();
}
process.argv[2] ??= 'start';
await import(pathToFileURL(serverEntry).href);

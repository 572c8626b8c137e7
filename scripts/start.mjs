// `npm start`: builds the web app and the server (scripts/build-server.mjs) when either is missing or older than
// its sources, then runs every role in this process (web + worker + scheduler) from the built server, with the
// embedded PostgreSQL unless DATABASE_URL is set.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildServerIfStale, serverEntry } from './build-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webIndex = path.join(root, 'apps/web/dist/index.html');
const sources = ['apps/web/src', 'apps/web/index.html', 'apps/web/vite.config.ts', 'packages/contract/src'];

function newestMtime(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target))
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

const builtAt = fs.statSync(webIndex, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const sourcesAt = Math.max(...sources.map((s) => newestMtime(path.join(root, s))));
if (!process.env.WEB_DIST && builtAt < sourcesAt) {
  console.log(builtAt ? 'Web app sources changed: rebuilding…' : 'Building the web app (first start)…');
  const result = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

await buildServerIfStale();
process.argv[2] ??= 'start';
await import(pathToFileURL(serverEntry).href);

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/**
 * The server package's folder (apps/server), found by walking up from this module to the package.json of
 * @cumulo/server. It holds whether the code runs from its sources (apps/server/src/…, through tsx) or from the
 * built bundle (apps/server/dist/, `npm run build:server`), where import.meta.url names a chunk, not this file.
 * Looked up on first use, so a bundle built elsewhere (bench/transfer's planning process) loads without it.
 */
export function serverRoot(): string {
  found ??= findServerRoot(path.dirname(fileURLToPath(import.meta.url)));
  return found;
}

function findServerRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      const { name } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === '@cumulo/server') return dir;
    }
    if (path.dirname(dir) === dir) throw new Error(`no @cumulo/server package.json above ${from}`);
  }
}

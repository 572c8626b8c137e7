import fs from 'node:fs/promises';
import path from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import type { AgentPlatform } from '@cumulo/contract';
import { AppError } from '../../errors.ts';

/** The single-file build of apps/agent, relative to AGENT_DIST_DIR. */
const AGENT_BUNDLE = path.join('dist', 'cumulo-agent.mjs');
/** The folder every file of the zip sits in. */
const ZIP_ROOT = 'cumulo-agent';

export const agentPackageMessages = {
  notBuilt:
    'The transfer agent has not been built on this server yet. The operator builds it with `npm run build` ' +
    '(or points AGENT_DIST_DIR at a built apps/agent).',
} as const;

/**
 * GET /agent/download/:platform: the agent's bundle and its platform's packaging files (launcher, URL-scheme
 * registration) zipped under `cumulo-agent/`. Built once per bundle version and kept: the build only changes with
 * a deployment, and the zip is a few hundred kilobytes.
 */
export class AgentPackages {
  readonly #built = new Map<AgentPlatform, { stamp: string; zip: Uint8Array }>();

  constructor(private readonly agentDir: string) {}

  async zipFor(platform: AgentPlatform): Promise<Uint8Array> {
    const bundlePath = path.join(this.agentDir, AGENT_BUNDLE);
    const bundle = await fs.stat(bundlePath).catch(() => null);
    if (!bundle?.isFile()) throw new AppError(503, 'AGENT_NOT_BUILT', agentPackageMessages.notBuilt);
    const stamp = `${bundle.mtimeMs}:${bundle.size}`;
    const kept = this.#built.get(platform);
    if (kept?.stamp === stamp) return kept.zip;

    const files: Zippable = {};
    files[`${ZIP_ROOT}/cumulo-agent.mjs`] = [await fs.readFile(bundlePath), { attrs: unixMode(0o755) }];
    const packaging = path.join(this.agentDir, 'packaging', platform);
    for (const file of await filesUnder(packaging)) {
      const stat = await fs.stat(file);
      // Scripts keep their executable bit, so `./install.sh` runs after unzip on Linux and macOS.
      const mode = stat.mode & 0o111 ? 0o755 : 0o644;
      const name = path.relative(packaging, file).split(path.sep).join('/');
      files[`${ZIP_ROOT}/${name}`] = [await fs.readFile(file), { attrs: unixMode(mode) }];
    }
    const zip = zipSync(files, { level: 6, os: 3 });
    this.#built.set(platform, { stamp, zip });
    return zip;
  }
}

/** A zip entry's external attributes holding a Unix file mode (a regular file). */
const unixMode = (mode: number) => ((0o100000 | mode) << 16) >>> 0;

/** Every file under `dir`, recursively; none when it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(full)));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

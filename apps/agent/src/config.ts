import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENT_DEFAULT_PORT, type AgentPlatform } from '@cumulo/contract';
import agentPackage from '../package.json' with { type: 'json' };

export const AGENT_VERSION = agentPackage.version;
export const DEFAULT_SERVER = 'http://localhost:8080';

export function agentPlatform(): AgentPlatform {
  if (process.platform === 'win32') return 'windows';
  if (process.platform === 'darwin') return 'macos';
  return 'linux';
}

/** The device this agent acts as, once paired: the token is the only secret the agent holds. */
export interface PairedDevice {
  id: string;
  token: string;
  /** The server the token belongs to: a token is never sent to another server. */
  server: string;
  email: string;
  organization: string;
}

/** `config.json` in the agent's home: what `add`, `pair` and `unpair` change. */
export interface AgentConfig {
  server: string;
  folders: string[];
  device: PairedDevice | null;
}

/** How this run was started: flags first, then the environment, then the saved config. */
export interface RunOptions {
  home: string;
  port: number;
  server: string;
  origin: string;
}

export function defaultHome(): string {
  return process.env.CUMULO_AGENT_HOME || path.join(os.homedir(), '.cumulo-agent');
}

/** A server URL as typed: http(s) only, without a trailing slash. */
export function normaliseServer(value: string): string {
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Not an http(s) URL: ${value}`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export function parsePort(value: string | undefined): number {
  const port = Number(value ?? AGENT_DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`Not a port: ${value}`);
  return port;
}

const configPath = (home: string) => path.join(home, 'config.json');

/**
 * Writes `content` (a string, or chunks written one after another, so a large file need not be one string) to a
 * temporary file readable only by the owner, then renames it over `file`: a reader sees the old file or the whole
 * new one. A write that fails leaves no temporary file behind.
 */
export async function writePrivateFile(file: string, content: string | Iterable<string>): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function ensureHome(home: string): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  // mkdir keeps an existing folder's mode: the home holds the device token, so it is closed here too.
  if (process.platform !== 'win32') await chmod(home, 0o700);
}

export async function loadConfig(home: string): Promise<AgentConfig> {
  let saved: Partial<AgentConfig> = {};
  try {
    saved = JSON.parse(await readFile(configPath(home), 'utf8')) as Partial<AgentConfig>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return {
    server: typeof saved.server === 'string' ? saved.server : DEFAULT_SERVER,
    folders: Array.isArray(saved.folders) ? saved.folders.filter((f) => typeof f === 'string') : [],
    device: saved.device && typeof saved.device.token === 'string' ? saved.device : null,
  };
}

export async function saveConfig(home: string, config: AgentConfig): Promise<void> {
  await ensureHome(home);
  await writePrivateFile(configPath(home), `${JSON.stringify(config, null, 2)}\n`);
}

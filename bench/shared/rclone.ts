import { spawn } from 'node:child_process';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { repoRoot } from '../inventory/s3rver-process.ts';
import { settleDisk } from './settle.ts';

/** The RCLONE_CONFIG_* variables of one s3rver remote (rclone reads remotes from these; no config file). */
function remoteVariables(name: string, endpoint: string): Record<string, string> {
  return {
    [`RCLONE_CONFIG_${name}_TYPE`]: 's3',
    [`RCLONE_CONFIG_${name}_PROVIDER`]: 'Other',
    [`RCLONE_CONFIG_${name}_ENDPOINT`]: endpoint,
    [`RCLONE_CONFIG_${name}_REGION`]: 'us-east-1',
    [`RCLONE_CONFIG_${name}_ACCESS_KEY_ID`]: S3RVER_KEY,
    [`RCLONE_CONFIG_${name}_SECRET_ACCESS_KEY`]: S3RVER_KEY,
    [`RCLONE_CONFIG_${name}_FORCE_PATH_STYLE`]: 'true',
  };
}

/** The environment of an rclone run with the given remotes (name → s3rver endpoint), e.g. `{ SRC: …, DST: … }`. */
export function rcloneRemotesEnv(remotes: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, endpoint] of Object.entries(remotes)) Object.assign(env, remoteVariables(name, endpoint));
  // TESTING.md: rclone must run without AWS_CA_BUNDLE here (`env -u AWS_CA_BUNDLE rclone …`).
  delete env.AWS_CA_BUNDLE;
  return env;
}

/** The environment of an rclone run against an s3rver at `endpoint` as the remote `s3rver:`. */
export function rcloneEnv(endpoint: string): NodeJS.ProcessEnv {
  return rcloneRemotesEnv({ S3RVER: endpoint });
}

export interface PeerRun {
  seconds: number;
  peakRssMb: number;
  /** rclone's user + system CPU seconds. */
  cpuSeconds: number;
}

/** The figures of GNU time's last line (`-f '%M %U %S'`: peak RSS in KiB, user and system seconds) in `output`. */
export function gnuTimeFigures(output: string): Omit<PeerRun, 'seconds'> {
  const [rssKib, user, system] = (output.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  return { peakRssMb: Number(rssKib) / 1024, cpuSeconds: Number(user) + Number(system) };
}

/**
 * Runs `argv` under GNU time, from a settled disk: its wall time, peak RSS and CPU time. Rejects with its stderr
 * when it fails.
 */
export function timedProcess(
  argv: string[],
  options: { env?: NodeJS.ProcessEnv; label?: string } = {},
): Promise<PeerRun> {
  settleDisk();
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%M %U %S', ...argv], {
      cwd: repoRoot,
      env: options.env ?? process.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`${options.label ?? argv[0]} exited ${code}\n${stderr}`));
      resolve({ seconds, ...gnuTimeFigures(stderr) });
    });
  });
}

/** Runs `rclone …args` under GNU time (timedProcess). */
export function timedRclone(args: string[], env: NodeJS.ProcessEnv): Promise<PeerRun> {
  return timedProcess(['rclone', '--config', '/dev/null', ...args], { env, label: `rclone ${args[0]}` });
}

// rclone 1.60 (Debian) as the peer: `rclone copy` between two s3rver remotes, timed, with its peak RSS from
// GNU time. Tuned as the issue says: --transfers 64 --checkers 64 --s3-no-check-bucket --s3-no-head, plus
// --fast-list (see below).
import { spawn } from 'node:child_process';
import { S3RVER_KEY } from '@cumulo/storage/testing';
import { repoRoot } from '../inventory/s3rver-process.ts';

/** rclone's remotes `src:` and `dst:` from environment variables only (no config file read or written). */
/**
 * The tuned rclone of the issue (`--transfers 64 --checkers 64 --s3-no-check-bucket --s3-no-head`), plus
 * `--fast-list`: rclone 1.60's directory walk finds nothing at the root of an s3rver bucket (it copies "nothing to
 * transfer"); --fast-list lists the bucket in one recursive listing instead, which is also rclone's advice for S3
 * when the listing fits in memory, and the fastest setting for it.
 */
export const RCLONE_TUNING = [
  '--transfers',
  '64',
  '--checkers',
  '64',
  '--s3-no-check-bucket',
  '--s3-no-head',
  '--fast-list',
];

export function remotesEnv(source: string, destination: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, endpoint] of [
    ['SRC', source],
    ['DST', destination],
  ] as const) {
    Object.assign(env, {
      [`RCLONE_CONFIG_${name}_TYPE`]: 's3',
      [`RCLONE_CONFIG_${name}_PROVIDER`]: 'Other',
      [`RCLONE_CONFIG_${name}_ENDPOINT`]: endpoint,
      [`RCLONE_CONFIG_${name}_REGION`]: 'us-east-1',
      [`RCLONE_CONFIG_${name}_ACCESS_KEY_ID`]: S3RVER_KEY,
      [`RCLONE_CONFIG_${name}_SECRET_ACCESS_KEY`]: S3RVER_KEY,
      [`RCLONE_CONFIG_${name}_FORCE_PATH_STYLE`]: 'true',
    });
  }
  // TESTING.md: rclone must run without AWS_CA_BUNDLE here.
  delete env.AWS_CA_BUNDLE;
  return env;
}

export interface PeerRun {
  seconds: number;
  peakRssMb: number;
}

/**
 * `rclone copy src:<bucket> dst:<bucket>`; with `sameRemote` both ends are `src:` so rclone may copy server-side.
 */
export function rcloneCopy(
  source: { endpoint: string; bucket: string },
  destination: { endpoint: string; bucket: string },
  options: { sameRemote?: boolean } = {},
): Promise<PeerRun> {
  const target = options.sameRemote ? `src:${destination.bucket}` : `dst:${destination.bucket}`;
  const args = [
    '-f',
    '%M',
    'rclone',
    '--config',
    '/dev/null',
    'copy',
    `src:${source.bucket}`,
    target,
    ...RCLONE_TUNING,
  ];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', args, {
      cwd: repoRoot,
      env: remotesEnv(source.endpoint, destination.endpoint),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`rclone copy exited ${code}\n${stderr}`));
      // GNU time prints the peak RSS in KiB as the last line.
      const lastLine = stderr.trim().split('\n').at(-1) ?? '';
      resolve({ seconds, peakRssMb: Number(lastLine) / 1024 });
    });
  });
}

// rclone 1.60 (Debian) as the peer: `rclone sync --checksum src:<bucket> dst:<bucket>`, timed, with the tuning of
// bench/transfer's `rclone copy` (--transfers 64 --checkers 64 --s3-no-check-bucket --s3-no-head --fast-list).
// --checksum compares size and MD5 (the ETag of a single-part object), as Cumulo's diff does, instead of size and
// modification time.
import { spawn } from 'node:child_process';
import { repoRoot } from '../inventory/s3rver-process.ts';
import { remotesEnv, RCLONE_TUNING } from '../transfer/rclone-copy.ts';

export function rcloneSync(
  source: { endpoint: string; bucket: string },
  destination: { endpoint: string; bucket: string },
): Promise<{ seconds: number }> {
  const args = [
    '--config',
    '/dev/null',
    'sync',
    `src:${source.bucket}`,
    `dst:${destination.bucket}`,
    '--checksum',
    ...RCLONE_TUNING,
  ];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('rclone', args, {
      cwd: repoRoot,
      env: remotesEnv(source.endpoint, destination.endpoint),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`rclone sync exited ${code}\n${stderr}`));
      resolve({ seconds });
    });
  });
}

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');

export interface S3rverProcess {
  endpoint: string;
  /** The server's own process, whose CPU time a benchmark may account for. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Runs s3rver over an existing directory in its own process, so the server's work and memory never count
 * against the process being measured, and the parent's event loop may block without stalling the server.
 */
export async function startS3rverProcess(directory: string): Promise<S3rverProcess> {
  const child = spawn(
    process.execPath,
    [
      '--openssl-legacy-provider',
      // BENCH_S3RVER_FLAGS adds Node flags to the server, e.g. '--cpu-prof --cpu-prof-dir=/tmp/s3rver' to see
      // where the server's own CPU goes.
      ...(process.env.BENCH_S3RVER_FLAGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      path.join(here, 'serve-s3rver.ts'),
      directory,
    ],
    { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`s3rver process exited (${code}) before listening`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

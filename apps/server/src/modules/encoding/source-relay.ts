import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from '@cumulo/storage';

/**
 * What ffmpeg and ffprobe read a job's source through: an HTTP server on 127.0.0.1 inside the worker, for one
 * object, at a path with 32 random bytes in it, open only while the job runs (encoding README "Reading the
 * source"). Each request ffmpeg makes (it seeks with ranged GETs, e.g. to an MP4's index at the end) becomes one
 * ranged read of the account's ObjectStore. So:
 * - no credential leaves the process: ffmpeg's command line holds a loopback address that is worthless once the
 *   job ends, not the account keys and not a signed URL of the provider;
 * - nothing expires under a long encode: every read is signed when it is made, however long the job runs;
 * - the reads go through the store's own connection, so the outbound address policy applies to them too (ffmpeg
 *   resolving a tenant's host itself would not be held by it).
 */
export interface SourceRelay {
  /** The address to give ffmpeg: `http://127.0.0.1:<port>/<token>/<file name>`. */
  url: string;
  /** The store's words for the last read that failed (the source deleted mid-job…), null while none did. */
  lastError(): string | null;
  /** Stops answering and ends the reads in flight. */
  close(): Promise<void>;
}

const RANGE = /^bytes=(\d*)-(\d*)$/;

/** The inclusive byte range a `Range` header asks of `size` bytes; null for the whole; 'invalid' if unsatisfiable. */
function rangeOf(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'invalid' {
  if (!header) return null;
  const match = RANGE.exec(header.trim());
  if (!match) return null; // Several ranges, or another unit: answer the whole object, as RFC 9110 allows.
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return 'invalid';
  if (first === '') {
    // A suffix: the last N bytes.
    const length = Math.min(Number(last), size);
    return length > 0 ? { start: size - length, end: size - 1 } : 'invalid';
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return start < size && start <= end ? { start, end } : 'invalid';
}

export async function openSourceRelay(
  store: ObjectStore,
  bucket: string,
  key: string,
  size: number,
): Promise<SourceRelay> {
  const token = randomBytes(32).toString('base64url');
  const name = encodeURIComponent(key.split('/').filter(Boolean).at(-1) ?? 'source');
  const prefix = `/${token}/`;
  let failure: string | null = null;
  const reads = new Set<AbortController>();

  const server = http.createServer((request, response) => {
    if (!request.url?.startsWith(prefix) || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404).end();
      return;
    }
    const range = rangeOf(request.headers.range, size);
    if (range === 'invalid') {
      response.writeHead(416, { 'content-range': `bytes */${size}` }).end();
      return;
    }
    const start = range?.start ?? 0;
    const end = range?.end ?? size - 1;
    const headers: http.OutgoingHttpHeaders = {
      'accept-ranges': 'bytes',
      'content-length': size === 0 ? 0 : end - start + 1,
      'content-type': 'application/octet-stream',
    };
    if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
    if (request.method === 'HEAD' || size === 0) {
      response.writeHead(range ? 206 : 200, headers).end();
      return;
    }
    const abort = new AbortController();
    reads.add(abort);
    // ffmpeg drops a connection when it seeks: the read behind it stops too.
    response.on('close', () => abort.abort());
    void store
      .read(bucket, key, { range: { start, end }, signal: abort.signal })
      .then(async (body) => {
        response.writeHead(range ? 206 : 200, headers);
        await pipeline(body, response);
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        failure = error instanceof Error ? error.message : String(error);
        if (response.headersSent) response.destroy();
        else response.writeHead(502, { 'content-type': 'text/plain' }).end(failure);
      })
      .finally(() => reads.delete(abort));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${prefix}${name}`,
    lastError: () => failure,
    close: async () => {
      for (const read of reads) read.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

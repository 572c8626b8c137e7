import type { Readable } from 'node:stream';

/**
 * Small helpers every adapter needs; provider logic stays in each adapter.
 */

/** Node, undici and SDK codes that mean no answer arrived at all (mapped to StorageError 'Network'). */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'REQUEST_SEND_ERROR',
]);

/** Reads a small stream whole (callers bound it by SINGLE_REQUEST_MAX) so an SDK can re-send it on retry. */
export async function bufferSmall(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** Runs `work` over `items` with at most `limit` in flight, keeping the input order in the result. */
export async function mapLimited<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

import type { Readable } from 'node:stream';
import type { ContentHeaders } from '../object-store.ts';

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
  // A connection the caller's agents refused (the server's outbound address policy, ConnectOptions).
  'EOUTBOUNDREFUSED',
]);

const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'it refused the connection',
  ECONNRESET: 'the connection was cut off',
  EPIPE: 'the connection was cut off',
  UND_ERR_SOCKET: 'the connection was cut off',
  ENOTFOUND: 'its address could not be found',
  EAI_AGAIN: 'its address could not be found',
  ETIMEDOUT: 'it did not answer in time',
  TimeoutError: 'it did not answer in time',
  EHOSTUNREACH: 'no network route leads to it',
  ENETUNREACH: 'no network route leads to it',
};

/**
 * The message of a 'Network' StorageError: what a user can act on, in words. The socket's own text
 * ("connect ECONNREFUSED 127.0.0.1:4568") ends up in transfer items, CSVs and API answers otherwise.
 */
export function networkMessage(code: string | undefined): string {
  const cause = code ? NETWORK_CAUSES[code] : undefined;
  return cause ? `The provider could not be reached: ${cause}` : 'The provider could not be reached';
}

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

/** Every content header by its field, for adapters that map them one by one. */
export const CONTENT_HEADER_FIELDS = [
  'cacheControl',
  'contentDisposition',
  'contentEncoding',
  'contentLanguage',
] as const satisfies ReadonlyArray<keyof ContentHeaders>;

/** The content headers an answer set: fields it left out, null or empty are not part of the object. */
export function presentHeaders(
  values: Partial<Record<keyof ContentHeaders, string | null | undefined>>,
): ContentHeaders {
  const headers: ContentHeaders = {};
  for (const field of CONTENT_HEADER_FIELDS) {
    const value = values[field];
    if (value) headers[field] = value;
  }
  return headers;
}

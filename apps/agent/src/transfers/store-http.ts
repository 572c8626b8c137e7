import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

/**
 * Requests straight to the object store (signed URLs), with node:http rather than fetch: a part is streamed from
 * disk with its exact Content-Length (stores refuse chunked PUTs), so no block is ever held whole in memory.
 */

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export interface StoreAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's text, cut at 64 KiB (error documents, GCS metadata). */
  text: string;
}

export interface StoreRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** A stream of exactly `length` bytes, or a buffer. */
  body?: { stream: Readable; length: number } | Buffer;
  signal?: AbortSignal;
}

/** Stores that stop answering are given up on after this long without a byte. */
const IDLE_MS = 120_000;

function open(request: StoreRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const client = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { ...request.headers };
    const body = request.body;
    if (body !== undefined) {
      headers['content-length'] = String(Buffer.isBuffer(body) ? body.length : body.length);
    } else if (request.method === 'PUT' || request.method === 'POST') {
      headers['content-length'] = '0';
    }
    const outgoing = client.request(url, {
      method: request.method,
      headers,
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      signal: request.signal,
      timeout: IDLE_MS,
    });
    outgoing.once('timeout', () => outgoing.destroy(new Error('The object store stopped answering.')));
    outgoing.once('error', (error) => {
      if (body && !Buffer.isBuffer(body)) body.stream.destroy();
      reject(error);
    });
    outgoing.once('response', resolve);
    if (body === undefined) outgoing.end();
    else if (Buffer.isBuffer(body)) outgoing.end(body);
    else {
      body.stream.once('error', (error) => outgoing.destroy(error));
      body.stream.pipe(outgoing);
    }
  });
}

/** Sends a request and reads its (small) answer. */
export async function storeRequest(request: StoreRequest): Promise<StoreAnswer> {
  const response = await open(request);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (size < 65_536) chunks.push(chunk);
    size += chunk.length;
  }
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    text: Buffer.concat(chunks).toString('utf8'),
  };
}

/** A GET whose body the caller streams (downloads). */
export async function storeGet(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return open({ method: 'GET', url, headers, signal });
}

/** The ETag header without its quotes. */
export function etagOf(headers: IncomingHttpHeaders): string | null {
  const value = headers.etag;
  return typeof value === 'string' ? value.replace(/^W\//, '').replace(/"/g, '') : null;
}

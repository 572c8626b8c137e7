import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

/**
 * The agent's HTTP client, on node:http rather than fetch: a part is streamed from disk with its exact
 * Content-Length (stores refuse chunked PUTs), so no block is ever held whole in memory; and fetch's engine
 * (undici) alone would add about 11 MB to the agent's memory.
 */

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's text, cut at `maxText` bytes (64 KiB unless asked). */
  text: string;
}

export interface HttpRequestOptions {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** A stream of exactly `length` bytes, or a buffer. */
  body?: { stream: Readable; length: number } | Buffer;
  signal?: AbortSignal;
  /** Longest answer kept (bytes); a longer one is an error. */
  maxText?: number;
}

/** Stores that stop answering are given up on after this long without a byte. */
const IDLE_MS = 120_000;

function open(request: HttpRequestOptions): Promise<IncomingMessage> {
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

/** Sends a request and reads its answer (an error document, a store's metadata, a JSON answer). */
export async function httpRequest(request: HttpRequestOptions): Promise<HttpAnswer> {
  const response = await open(request);
  const chunks: Buffer[] = [];
  const limit = request.maxText ?? 65_536;
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (size < limit) chunks.push(chunk);
    size += chunk.length;
  }
  if (size > limit && request.maxText !== undefined) throw new Error('The answer is too large.');
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    text: Buffer.concat(chunks).toString('utf8'),
  };
}

/** A GET whose body the caller streams (downloads). */
export async function httpGet(
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

// The cheapest copy a client can make between the two s3rvers, as a yardstick for (a) and (b) (not one of the
// issue's targets): plain HTTP over keep-alive connections, each GET's body piped straight into its PUT, no
// signature (s3rver serves anonymous requests), no checksum, no retry, no database, at the concurrency Cumulo copies
// with. Whatever this loop needs is the servers' and the machine's share of a copy: no copying tool, rclone
// included, can go below it on this machine, so it says how far each goal is within reach here.
import http from 'node:http';
import { settleDisk } from '../shared/settle.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

function urlOf(endpoint: string, bucket: string, key: string, query = ''): URL {
  const path = key
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return new URL(`${endpoint}/${bucket}/${path}${query}`);
}

const failure = (what: string, status: number | undefined) =>
  new Error(`bare copy: ${what} answered HTTP ${status ?? '?'}`);

/** Sends a request with an optional body (a Buffer, or a response piped in) and reads its whole answer. */
function send(
  url: URL,
  method: string,
  options: { headers?: http.OutgoingHttpHeaders; body?: Buffer | http.IncomingMessage } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, agent, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    const { body } = options;
    if (body instanceof http.IncomingMessage) {
      body.on('error', reject);
      body.pipe(request);
    } else request.end(body);
  });
}

/** Opens a GET (whole, or a byte range) and answers the response stream with its length. */
function openRead(url: URL, range?: { start: number; end: number }): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      url,
      { agent, headers: range ? { range: `bytes=${range.start}-${range.end}` } : {} },
      (response) => {
        if (response.statusCode !== 200 && response.statusCode !== 206) {
          response.resume();
          reject(failure(`GET ${url.pathname}`, response.statusCode));
        } else resolve(response);
      },
    );
    request.on('error', reject);
  });
}

/** One GET piped into one PUT. */
async function copyWhole(source: Endpoint, destination: Endpoint, key: string): Promise<void> {
  const read = await openRead(urlOf(source.endpoint, source.bucket, key));
  const written = await send(urlOf(destination.endpoint, destination.bucket, key), 'PUT', {
    headers: { 'content-length': read.headers['content-length'] },
    body: read,
  });
  if (written.status !== 200) throw failure(`PUT ${key}`, written.status);
}

async function inParallel<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await run(items[next++] as T);
    }),
  );
}

export interface Endpoint {
  endpoint: string;
  bucket: string;
}

/** Seconds to copy every key whole, `concurrency` copies in flight. */
export async function bareCopies(
  source: Endpoint,
  destination: Endpoint,
  keys: string[],
  concurrency: number,
  options: { settle?: boolean } = {},
): Promise<number> {
  // `settle: false` when the caller settles the disk itself before a timed run of which this is one part.
  if (options.settle ?? true) settleDisk();
  const started = performance.now();
  await inParallel(keys, concurrency, (key) => copyWhole(source, destination, key));
  return (performance.now() - started) / 1000;
}

/** One object as a multipart upload: ranged GETs of `partSize` piped into UploadParts, `partsInFlight` at once. */
async function copyInParts(
  source: Endpoint,
  destination: Endpoint,
  key: string,
  partSize: number,
  partsInFlight: number,
): Promise<void> {
  const head = await send(urlOf(source.endpoint, source.bucket, key), 'HEAD');
  const size = Number(head.headers['content-length']);
  const target = (query: string) => urlOf(destination.endpoint, destination.bucket, key, query);
  const created = await send(target('?uploads'), 'POST');
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created.body.toString())?.[1];
  if (!uploadId) throw failure(`CreateMultipartUpload ${key}`, created.status);
  const parts = Array.from({ length: Math.ceil(size / partSize) }, (_, index) => index + 1);
  const etags: string[] = [];
  await inParallel(parts, partsInFlight, async (partNumber) => {
    const start = (partNumber - 1) * partSize;
    const end = Math.min(size, start + partSize) - 1;
    const read = await openRead(urlOf(source.endpoint, source.bucket, key), { start, end });
    const written = await send(target(`?partNumber=${partNumber}&uploadId=${uploadId}`), 'PUT', {
      headers: { 'content-length': end - start + 1 },
      body: read,
    });
    const etag = written.headers.etag;
    if (written.status !== 200 || !etag) throw failure(`UploadPart ${partNumber} of ${key}`, written.status);
    etags[partNumber - 1] = etag;
  });
  const completion =
    '<CompleteMultipartUpload>' +
    etags
      .map((etag, index) => `<Part><PartNumber>${index + 1}</PartNumber><ETag>${etag}</ETag></Part>`)
      .join('') +
    '</CompleteMultipartUpload>';
  const completed = await send(target(`?uploadId=${uploadId}`), 'POST', { body: Buffer.from(completion) });
  if (completed.status !== 200) throw failure(`CompleteMultipartUpload ${key}`, completed.status);
}

/** Seconds to copy every key in parts, all objects at once. */
export async function bareCopiesInParts(
  source: Endpoint,
  destination: Endpoint,
  keys: string[],
  partSize: number,
  partsInFlight: number,
): Promise<number> {
  settleDisk();
  const started = performance.now();
  await Promise.all(keys.map((key) => copyInParts(source, destination, key, partSize, partsInFlight)));
  return (performance.now() - started) / 1000;
}

/**
 * Seconds to copy every key within one endpoint, all at once, each with one bare CopyObject (a PUT naming
 * `x-amz-copy-source`, no signature): the server-side copy's floor, the s3rver's own work for it.
 */
export async function bareServerSideCopies(
  source: Endpoint,
  destination: Endpoint,
  keys: string[],
): Promise<number> {
  settleDisk();
  const started = performance.now();
  await Promise.all(
    keys.map(async (key) => {
      const copied = await send(urlOf(destination.endpoint, destination.bucket, key), 'PUT', {
        headers: { 'x-amz-copy-source': `/${source.bucket}/${key}`, 'content-length': 0 },
      });
      if (copied.status !== 200) throw failure(`CopyObject ${key}`, copied.status);
    }),
  );
  return (performance.now() - started) / 1000;
}

/** Seconds to delete every key with one bare DELETE each, `concurrency` in flight. */
export async function bareDeletes(
  destination: Endpoint,
  keys: string[],
  concurrency: number,
  options: { settle?: boolean } = {},
): Promise<number> {
  if (options.settle ?? true) settleDisk();
  const started = performance.now();
  await inParallel(keys, concurrency, async (key) => {
    const deleted = await send(urlOf(destination.endpoint, destination.bucket, key), 'DELETE');
    if (deleted.status !== 204 && deleted.status !== 200) throw failure(`DELETE ${key}`, deleted.status);
  });
  return (performance.now() - started) / 1000;
}

// A counting HTTP proxy in front of one S3 endpoint: every request is forwarded unchanged (method, path, query,
// headers, body; the client's signature stays valid because the Host header is kept) and counted by S3 operation,
// so a benchmark can say how many requests of each kind a tool made, not only how long it took.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The S3 operations the counts are kept by, in the order the tables print them. */
export const S3_OPERATIONS = [
  'ListObjectsV2',
  'ListObjects',
  'HeadObject',
  'GetObject',
  'PutObject',
  'CopyObject',
  'DeleteObject',
  'DeleteObjects',
  'CreateMultipartUpload',
  'UploadPart',
  'UploadPartCopy',
  'CompleteMultipartUpload',
  'AbortMultipartUpload',
  'ListParts',
  'ListMultipartUploads',
  'HeadBucket',
  'other',
] as const;
type S3Operation = (typeof S3_OPERATIONS)[number];
export type RequestCounts = Record<S3Operation, number>;

/** The operation of a path-style S3 request (`/bucket` or `/bucket/key`), from its method, path and query. */
function s3OperationOf(method: string, url: string, headers: http.IncomingHttpHeaders): S3Operation {
  const { pathname, searchParams } = new URL(url, 'http://proxy');
  // `/bucket` and `/bucket/` (the AWS SDK's path style) both name the bucket; `/bucket/key` an object.
  const path = pathname.replace(/^\/+/, '');
  const onObject = path.includes('/') && path.slice(path.indexOf('/') + 1) !== '';
  const has = (name: string) => searchParams.has(name);
  if (path === '') return 'other';
  if (!onObject) {
    if (method === 'GET' && has('uploads')) return 'ListMultipartUploads';
    if (method === 'GET' && searchParams.get('list-type') === '2') return 'ListObjectsV2';
    if (method === 'GET' && [...searchParams.keys()].every((k) => LIST_V1_PARAMS.has(k)))
      return 'ListObjects';
    if (method === 'POST' && has('delete')) return 'DeleteObjects';
    if (method === 'HEAD') return 'HeadBucket';
    return 'other';
  }
  switch (method) {
    case 'HEAD':
      return 'HeadObject';
    case 'GET':
      return has('uploadId') ? 'ListParts' : 'GetObject';
    case 'PUT':
      if (has('uploadId') && has('partNumber'))
        return headers['x-amz-copy-source'] ? 'UploadPartCopy' : 'UploadPart';
      return headers['x-amz-copy-source'] ? 'CopyObject' : 'PutObject';
    case 'POST':
      if (has('uploads')) return 'CreateMultipartUpload';
      if (has('uploadId')) return 'CompleteMultipartUpload';
      return 'other';
    case 'DELETE':
      return has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
    default:
      return 'other';
  }
}

/** A bucket GET carrying only these (or no) parameters is a ListObjects (v1); anything else (?location, …) is not. */
const LIST_V1_PARAMS = new Set(['prefix', 'delimiter', 'marker', 'max-keys', 'encoding-type']);

const noCounts = (): RequestCounts =>
  Object.fromEntries(S3_OPERATIONS.map((operation) => [operation, 0])) as RequestCounts;

export const totalOf = (counts: RequestCounts) => Object.values(counts).reduce((sum, n) => sum + n, 0);

/** When requests of one operation arrived: the first and the last, in `performance.now()` milliseconds. */
export type RequestWindows = Partial<Record<S3Operation, { first: number; last: number }>>;

export interface CountingProxy {
  /** The proxy's own endpoint, given to the tools instead of the server's. */
  endpoint: string;
  /** The counts since the start or the last reset. */
  counts(): RequestCounts;
  /** When each operation's requests arrived since the start or the last reset: where a run spent its time. */
  windows(): RequestWindows;
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let counts = noCounts();
  let windows: RequestWindows = {};
  const server = http.createServer((request, response) => {
    const operation = s3OperationOf(request.method ?? 'GET', request.url ?? '/', request.headers);
    counts[operation] += 1;
    const now = performance.now();
    const window = windows[operation];
    if (window) window.last = now;
    else windows[operation] = { first: now, last: now };
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
        agent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(response);
      },
    );
    forward.on('error', (error) => {
      if (!response.headersSent) response.writeHead(502);
      response.end(String(error));
    });
    request.pipe(forward);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts }),
    windows: () => structuredClone(windows),
    reset: () => {
      counts = noCounts();
      windows = {};
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

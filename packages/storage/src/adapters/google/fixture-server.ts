import { createHash, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CRC32C } from '@google-cloud/storage';

/** One recorded exchange of the GCS JSON API (or its OAuth token endpoint). */
export interface FixtureExchange {
  request: {
    method: string;
    path: string;
    /** Query parameters that must be present with these values. */
    query?: Record<string, string>;
    /** Headers that must match these regular expressions. */
    headers?: Record<string, string>;
  };
  response: {
    status: number;
    headers?: Record<string, string>;
    /** JSON bodies are objects; media bodies are strings, or Buffers for bytes that are not text. */
    body?: unknown;
  };
  /** Answer only once, so a later identical request takes the next exchange (a retry after a 503). */
  once?: boolean;
}

/** What the adapter sent, for assertions on request shapes. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** Reads a fixture file of this folder. */
export function loadFixture(name: string): FixtureExchange[] {
  return JSON.parse(
    readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'),
  ) as FixtureExchange[];
}

/**
 * A service-account key for the fixtures: the private key is generated for each run (never committed), and the
 * public key lets a test verify the signatures the adapter makes.
 */
export function buildServiceAccount(origin: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const key = {
    type: 'service_account',
    project_id: 'cumulo-fixtures',
    private_key_id: 'fixture-key-1',
    private_key: privateKey,
    client_email: 'cumulo@cumulo-fixtures.iam.gserviceaccount.com',
    client_id: '100000000000000000001',
    auth_uri: `${origin}/o/oauth2/auth`,
    token_uri: `${origin}/oauth2/v4/token`,
  };
  return { credentialsJson: JSON.stringify(key), publicKey, clientEmail: key.client_email };
}

/** Media bodies of uploads: the bytes after the JSON part of a multipart/related request, or the whole body. */
function mediaOf(request: RecordedRequest): Buffer {
  const type = request.headers['content-type'] ?? '';
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1];
  if (!type.startsWith('multipart/related') || !boundary) return request.body;
  const parts = request.body.toString('latin1').split(`--${boundary}`);
  const media = parts[2] ?? '';
  const start = media.indexOf('\r\n\r\n');
  return Buffer.from(media.slice(start + 4, media.length - 2), 'latin1');
}

/** The JSON part of a multipart/related upload: the object resource the adapter asked for. */
export function multipartResource(request: RecordedRequest): Record<string, unknown> {
  const type = request.headers['content-type'] ?? '';
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1] ?? '';
  const part = request.body.toString('utf8').split(`--${boundary}`)[1] ?? '';
  return JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4).trim()) as Record<string, unknown>;
}

/**
 * A local HTTP server on 127.0.0.1 that answers with recorded exchanges. Placeholders in recorded answers are
 * filled from the request, because some fields depend on the bytes sent: {{origin}}, {{size}}, {{md5Hash}},
 * {{crc32c}} (of all media received for the object so far) and {{rangeEnd}} (end of the bytes received).
 */
export async function startFixtureServer() {
  const requests: RecordedRequest[] = [];
  let exchanges: FixtureExchange[] = [];
  const used = new Set<FixtureExchange>();
  let media = Buffer.alloc(0);

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      const exchange = exchanges.find(
        (candidate) =>
          !used.has(candidate) &&
          candidate.request.method === recorded.method &&
          candidate.request.path === recorded.path &&
          Object.entries(candidate.request.query ?? {}).every(
            ([name, value]) => url.searchParams.get(name) === value,
          ) &&
          Object.entries(candidate.request.headers ?? {}).every(([name, pattern]) =>
            new RegExp(pattern).test(String(req.headers[name] ?? '')),
          ),
      );
      if (!exchange) {
        res.writeHead(501, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 501, message: `no fixture for ${req.method} ${req.url}` } }));
        return;
      }
      if (exchange.once) used.add(exchange);
      if (recorded.method === 'POST' && url.searchParams.get('uploadType') === 'resumable')
        media = Buffer.alloc(0);
      const carriesMedia =
        recorded.method === 'PUT' ||
        (recorded.method === 'POST' && url.searchParams.get('uploadType') === 'multipart');
      if (recorded.path.startsWith('/upload/') && carriesMedia) {
        media = Buffer.concat([media, mediaOf(recorded)]);
      }
      const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
      const fill = (text: string) =>
        text
          .replaceAll('{{origin}}', origin)
          .replaceAll('{{size}}', String(media.length))
          .replaceAll('{{rangeEnd}}', String(media.length - 1))
          .replaceAll('{{md5Hash}}', createHash('md5').update(media).digest('base64'))
          .replaceAll('{{crc32c}}', crc32cOf(media));
      const headers = Object.fromEntries(
        Object.entries(exchange.response.headers ?? {}).map(([name, value]) => [name, fill(value)]),
      );
      const { body } = exchange.response;
      if (typeof body === 'string' || Buffer.isBuffer(body)) {
        res.writeHead(exchange.response.status, { 'content-type': 'application/octet-stream', ...headers });
        res.end(body);
      } else if (body === undefined) {
        res.writeHead(exchange.response.status, headers);
        res.end();
      } else {
        res.writeHead(exchange.response.status, {
          'content-type': 'application/json; charset=UTF-8',
          ...headers,
        });
        res.end(fill(JSON.stringify(body)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    /** Serves these exchanges from now on and forgets earlier requests. */
    use(...sets: FixtureExchange[][]) {
      exchanges = sets.flat();
      used.clear();
      requests.length = 0;
      media = Buffer.alloc(0);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Base64 CRC32C, as GCS reports it in `crc32c` and `x-goog-hash`. */
export function crc32cOf(bytes: Buffer): string {
  const crc = new CRC32C();
  crc.update(bytes);
  return crc.toString();
}

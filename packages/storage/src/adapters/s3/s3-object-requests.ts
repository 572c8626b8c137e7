import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { S3RequestPresigner, getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest, HttpResponse, QueryParameterBag, SourceData } from '@smithy/types';
import { DEFAULT_RETRY, type RetryOptions } from '../../store-config.ts';
import { isNetworkError, isThrottlingCode } from './s3-errors.ts';
import { decodeText } from './s3-list-xml.ts';

/**
 * The object requests the transfer engine sends by the thousand — GetObject (whole or ranged), PutObject and
 * UploadPart — without the SDK's middleware stack.
 *
 * Through `S3Client.send` each of these costs about a millisecond of CPU before a byte moves: schema
 * serialization, endpoint rules evaluated per call, user agent, retry bookkeeping, response deserialization. For a
 * copy of many small objects that is most of the worker's time (bench/transfer (a): 1000 GET + PUT pairs cost
 * 2.3 s of CPU through the SDK against 0.5 s as direct requests, on the same servers). Here the request is
 * built by hand and everything that carries risk stays the SDK's own:
 *
 * - **Where**: the bucket's URL (addressing style, regional host, FIPS/dual-stack rules, the signing region)
 *   comes from the SDK itself, by presigning one GetObject per bucket (no request is sent) and keeping its host
 *   and path prefix. Nothing about endpoints is re-derived here.
 * - **Signing**: the SDK's `SignatureV4` (`@smithy/signature-v4`) with the client's own credential provider.
 * - **Transport**: the client's own `NodeHttpHandler`, so the same connection pool, connect timeout and idle
 *   timeout apply as for every other call of the account.
 * - **Retries**: the SDK's standard policy (exponential backoff with full jitter, 100 ms base, 500 ms for
 *   throttling answers, at most 20 s, `maxAttempts` in all) on network failures, 5xx, 429 and throttling codes.
 *
 * Anything this path does not expect — a redirect to another region (301, 307, or the 400 S3 answers a request
 * signed for the wrong region), a presign that fails — makes it answer `null`, and the caller sends the same call
 * through the SDK, which knows how to follow it. The bucket then stays on the SDK for the life of the store.
 */

export interface ObjectAnswer {
  /** Names lower-cased, as Node's HTTP client gives them. */
  headers: Record<string, string>;
  body: Readable;
}

interface BucketTarget {
  protocol: string;
  hostname: string;
  port: number | undefined;
  /** The escaped path up to the key: `/bucket/` for path style, `/` for virtual-hosted. */
  basePath: string;
  signer: SignatureV4;
  /** The SDK's own presigner for this region, made once (getSignedUrl makes one per URL). */
  presigner: S3RequestPresigner;
  /** What the SDK puts in a presigned GetObject's query besides the signature (x-id, x-amz-checksum-mode). */
  getQuery: Record<string, string>;
}

/** The SDK's standard retry policy (@smithy/util-retry): base delays and the cap. */
const RETRY_BASE_MS = 100;
const THROTTLE_RETRY_BASE_MS = 500;
const MAX_RETRY_DELAY_MS = 20_000;
const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const TRANSIENT_CODES = new Set(['RequestTimeout', 'InternalError']);
/** The SDK learns the clock offset from such an answer and corrects its signing date; it sends this call. */
const CLOCK_SKEW_CODES = new Set(['RequestTimeTooSkewed', 'RequestExpired']);
/** Answers that mean "this bucket lives elsewhere": the SDK's region redirect handling takes over. */
const REDIRECT_STATUS = new Set([301, 307]);
const WRONG_REGION_CODES = new Set(['AuthorizationHeaderMalformed', 'IllegalLocationConstraintException']);
/** An error answer is read for its code and message, never further. */
const ERROR_BODY_LIMIT = 64 * 1024;
/** Signing the payload with this value leaves the body out of the signature (it is bound by Content-MD5). */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
const PRESIGN_PROBE_KEY = 'k';

/** Node's crypto behind the Checksum interface SignatureV4 hashes and HMACs with. */
class NodeSha256 {
  readonly #hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.#hash.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.#hash.digest());
  }
}

function bytesOf(data: SourceData): string | Buffer {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** A key as S3 expects it in the path: each segment URI-encoded (RFC 3986, as the SDK does), '/' kept. */
export function encodeKeyPath(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
}

/** A query string as the SDK writes one (@smithy/querystring-builder): names sorted, each part RFC 3986-escaped. */
function queryString(query: QueryParameterBag = {}): string {
  const parts: string[] = [];
  for (const name of Object.keys(query).sort()) {
    const value = query[name];
    const values = Array.isArray(value) ? value : [value];
    for (const one of values)
      parts.push(
        one === null || one === undefined ? escapeUri(name) : `${escapeUri(name)}=${escapeUri(one)}`,
      );
  }
  return parts.join('&');
}

const escapeUri = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** An error shaped like the SDK's service exceptions, so `toStorageError` maps it the same way. */
export class S3RequestError extends Error {
  readonly $metadata: { httpStatusCode: number; attempts: number };
  /** InvalidObjectState's fields, named as the SDK's exception names them. */
  readonly StorageClass: string | undefined;
  readonly AccessTier: string | undefined;
  constructor(fields: ErrorFields, status: number, attempts: number) {
    super(fields.message ?? '');
    this.name = fields.code ?? 'UnknownError';
    this.$metadata = { httpStatusCode: status, attempts };
    this.StorageClass = fields.storageClass ?? undefined;
    this.AccessTier = fields.accessTier ?? undefined;
  }
}

interface ErrorFields {
  code: string | null;
  message: string | null;
  storageClass: string | null;
  accessTier: string | null;
}

/** `<Code>` and `<Message>` of an S3 error document, and where an archived object lies. */
export function errorFields(xml: string): ErrorFields {
  const field = (name: string) => {
    const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
    return match?.[1] === undefined ? null : (decodeText(match[1]) ?? match[1]);
  };
  return {
    code: field('Code'),
    message: field('Message'),
    storageClass: field('StorageClass'),
    accessTier: field('AccessTier'),
  };
}

async function readErrorBody(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= ERROR_BODY_LIMIT) break;
    }
  } catch {
    // A cut-short error document still has its status.
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortErrorOf(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortErrorOf(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The error of a call its caller aborted, shaped as the SDK's handler shapes it (an `AbortError` whose cause is the
 * signal's reason), so callers tell an abort from a failure the same way on either path.
 */
function abortErrorOf(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  const error = new Error(reason && !(reason instanceof Error) ? String(reason) : 'Request aborted', {
    ...(reason instanceof Error ? { cause: reason } : {}),
  });
  error.name = 'AbortError';
  return error;
}

const backoff = (attempt: number, throttled: boolean) =>
  Math.floor(
    Math.random() *
      Math.min(MAX_RETRY_DELAY_MS, (throttled ? THROTTLE_RETRY_BASE_MS : RETRY_BASE_MS) * 2 ** attempt),
  );

interface Transport {
  handle(request: HttpRequest, options?: { abortSignal?: AbortSignal }): Promise<{ response: HttpResponse }>;
}

export class S3ObjectRequests {
  readonly #targets = new Map<string, Promise<BucketTarget | null>>();
  /** Per signing region: the request signer and the SDK's presigner, made once each. */
  readonly #signing = new Map<string, { signer: SignatureV4; presigner: S3RequestPresigner }>();

  /**
   * `client` sends (its handler and credentials); `presigner` resolves each bucket's URL — the account's client
   * with checksums only when required, so the probe URL carries no checksum parameters.
   */
  constructor(
    private readonly client: S3Client,
    private readonly presigner: S3Client,
    private readonly retry: RetryOptions = DEFAULT_RETRY,
  ) {}

  /** Forgets a bucket's URL and sends its calls through the SDK from now on. */
  #useSdkFor(bucket: string): null {
    this.#targets.set(bucket, Promise.resolve(null));
    return null;
  }

  #target(bucket: string): Promise<BucketTarget | null> {
    let target = this.#targets.get(bucket);
    if (!target) {
      target = this.#resolve(bucket);
      this.#targets.set(bucket, target);
    }
    return target;
  }

  async #resolve(bucket: string): Promise<BucketTarget | null> {
    let url: URL;
    try {
      url = new URL(
        await getSignedUrl(this.presigner, new GetObjectCommand({ Bucket: bucket, Key: PRESIGN_PROBE_KEY }), {
          expiresIn: 60,
        }),
      );
    } catch {
      // The SDK refuses this bucket name or endpoint; its own call will say why.
      return null;
    }
    const credential = url.searchParams.get('X-Amz-Credential')?.split('/');
    const region = credential?.[2];
    if (!region || credential?.[3] !== 's3' || !url.pathname.endsWith(`/${PRESIGN_PROBE_KEY}`)) return null;
    let signing = this.#signing.get(region);
    if (!signing) {
      const options = {
        credentials: this.client.config.credentials,
        region,
        service: 's3',
        sha256: NodeSha256,
        // S3 signs the path exactly as sent; keys are escaped once, by encodeKeyPath.
        uriEscapePath: false,
        applyChecksum: false,
      };
      signing = { signer: new SignatureV4(options), presigner: new S3RequestPresigner(options) };
      this.#signing.set(region, signing);
    }
    return {
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      basePath: url.pathname.slice(0, -PRESIGN_PROBE_KEY.length),
      ...signing,
      // The signature's own parameters are all X-Amz-*; the presigner writes them afresh.
      getQuery: Object.fromEntries([...url.searchParams].filter(([name]) => !name.startsWith('X-Amz-'))),
    };
  }

  /**
   * A presigned GetObject URL, the same URL `getSignedUrl` makes (s3-object-requests.spec.ts compares them), made
   * by the SDK's own presigner without the middleware stack that getSignedUrl clones for every URL: about 0.4 ms
   * of CPU each, which the agent's download of a folder of 2 000 files paid on the server before its first byte.
   * `query` carries the response-* overrides. Null when this bucket's calls go through the SDK.
   */
  async presignGet(
    bucket: string,
    key: string,
    expiresInSeconds: number,
    query: Record<string, string> = {},
  ): Promise<string | null> {
    const target = await this.#target(bucket);
    if (!target) return null;
    const host = target.port === undefined ? target.hostname : `${target.hostname}:${target.port}`;
    const signed = await target.presigner.presign(
      {
        method: 'GET',
        protocol: target.protocol,
        hostname: target.hostname,
        ...(target.port === undefined ? {} : { port: target.port }),
        path: target.basePath + encodeKeyPath(key),
        query: { ...target.getQuery, ...query },
        headers: { host },
      },
      {
        expiresIn: expiresInSeconds,
        signingDate: new Date(Date.now() + (this.client.config.systemClockOffset ?? 0)),
      },
    );
    return `${signed.protocol}//${host}${signed.path}?${queryString(signed.query)}`;
  }

  /** Whether calls on this bucket go as direct requests (else the SDK sends them). */
  async sendsDirect(bucket: string): Promise<boolean> {
    return (await this.#target(bucket)) !== null;
  }

  /**
   * GetObject, whole or `bytes=start-end`. Answers the headers and body stream of a 200/206, throws an SDK-shaped
   * error for an error answer, or answers null when the SDK must send this call.
   */
  async get(
    bucket: string,
    key: string,
    options: { range?: string; signal?: AbortSignal },
  ): Promise<ObjectAnswer | null> {
    return this.#send(bucket, key, {
      method: 'GET',
      headers: options.range ? { range: options.range } : {},
      payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      signal: options.signal,
    });
  }

  /**
   * PutObject or UploadPart (`query` = partNumber and uploadId) of a body held in memory, so a retry can send it
   * again, or of a stream of `length` bytes, sent once (a failed attempt is the caller's to repeat with a fresh
   * stream). `payloadHash` is the body's SHA-256 or UNSIGNED_PAYLOAD when a signed Content-MD5 binds it, or when
   * the caller checks the answered ETag against its own MD5 of the streamed bytes.
   */
  async put(
    bucket: string,
    key: string,
    body: Buffer | { stream: Readable; length: number },
    options: {
      headers: Record<string, string>;
      payloadHash: string;
      query?: Record<string, string>;
      signal?: AbortSignal;
    },
  ): Promise<ObjectAnswer | null> {
    const streamed = !Buffer.isBuffer(body);
    return this.#send(bucket, key, {
      method: 'PUT',
      headers: { ...options.headers, 'content-length': String(body.length) },
      payloadHash: options.payloadHash,
      body: streamed ? body.stream : body,
      query: options.query,
      signal: options.signal,
      once: streamed,
    });
  }

  async #send(
    bucket: string,
    key: string,
    call: {
      method: string;
      headers: Record<string, string>;
      payloadHash: string;
      body?: Buffer | Readable;
      query?: Record<string, string>;
      signal?: AbortSignal;
      /** A streamed body cannot be sent twice. */
      once?: boolean;
    },
  ): Promise<ObjectAnswer | null> {
    const target = await this.#target(bucket);
    if (!target) return null;
    const transport = this.client.config.requestHandler as unknown as Transport;
    const host = target.port === undefined ? target.hostname : `${target.hostname}:${target.port}`;
    const maxAttempts = call.once ? 1 : Math.max(1, this.retry.maxAttempts);
    for (let attempt = 1; ; attempt++) {
      if (call.signal?.aborted) throw abortErrorOf(call.signal);
      // Signed afresh for every attempt: a retry after a long backoff must not carry a stale date.
      const request = (await target.signer.sign(
        {
          method: call.method,
          protocol: target.protocol,
          hostname: target.hostname,
          ...(target.port === undefined ? {} : { port: target.port }),
          path: target.basePath + encodeKeyPath(key),
          query: call.query ?? {},
          headers: { ...call.headers, host, 'x-amz-content-sha256': call.payloadHash },
          body: call.body,
        },
        { signingDate: new Date(Date.now() + (this.client.config.systemClockOffset ?? 0)) },
      )) as HttpRequest;
      let response: HttpResponse;
      try {
        ({ response } = await transport.handle(request, { abortSignal: call.signal }));
      } catch (error) {
        if (attempt < maxAttempts && isNetworkError(error) && !call.signal?.aborted) {
          await sleep(backoff(attempt, false), call.signal);
          continue;
        }
        throw error;
      }
      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        return { headers: response.headers, body: response.body as Readable };
      }
      if (REDIRECT_STATUS.has(status)) {
        await readErrorBody(response.body as Readable);
        return this.#useSdkFor(bucket);
      }
      const fields = errorFields(await readErrorBody(response.body as Readable));
      const { code } = fields;
      if (status === 400 && code && WRONG_REGION_CODES.has(code)) return this.#useSdkFor(bucket);
      if (code && CLOCK_SKEW_CODES.has(code)) return null;
      const throttled = status === 429 || (code !== null && isThrottlingCode(code));
      const transient =
        RETRYABLE_STATUS.has(status) || throttled || (code !== null && TRANSIENT_CODES.has(code));
      if (transient && attempt < maxAttempts) {
        await sleep(backoff(attempt, throttled || status === 503), call.signal);
        continue;
      }
      throw new S3RequestError(fields, status, attempt);
    }
  }
}

/** The user metadata of an object answer (`x-amz-meta-*`), names lower-cased as the SDK gives them. */
export function metadataOf(headers: Record<string, string>): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith('x-amz-meta-')) metadata[name.slice('x-amz-meta-'.length)] = value;
  }
  return metadata;
}

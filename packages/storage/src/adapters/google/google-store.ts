import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  IdempotencyStrategy,
  Storage,
  type Bucket,
  type BucketMetadata,
  type File,
  type FileMetadata,
  type LifecycleRule,
} from '@google-cloud/storage';
import {
  StorageError,
  type BucketInfo,
  type CorsRule,
  type DeleteResult,
  type ListOptions,
  type ListPage,
  type ObjectInfo,
  type ObjectStore,
  type ObjectStoreCapabilities,
  type ReadOptions,
  type ServerCopyOptions,
  type ServerCopyResult,
  type SignedUrlOptions,
  type StorageErrorCode,
  type WriteOptions,
  type WriteResult,
} from '../../object-store.ts';
import { SINGLE_REQUEST_MAX, partSizeFor } from '../../part-size.ts';
import { DEFAULT_RETRY, type GoogleStoreConfig, type RetryOptions } from '../../store-config.ts';
import { NETWORK_ERROR_CODES, bufferSmall, mapLimited, presentHeaders } from '../shared.ts';
import { googleDirectUpload } from './google-direct-upload.ts';

/** The JSON API's maximum `maxResults` for objects.list and buckets.list. */
const MAX_PAGE_SIZE = 1000;
/** Deletes in flight for deleteMany: the JSON batch endpoint is not in this library, so keys go one by one. */
const DELETE_CONCURRENCY = 16;
/** The lifecycle action GCS applies to incomplete XML-API multipart uploads. */
const ABORT_UPLOADS_ACTION = 'AbortIncompleteMultipartUpload';

/** The fields of a service-account key the adapter needs; the rest is handed to the library as pasted. */
interface ServiceAccountKey {
  project_id: string;
  client_email: string;
  private_key: string;
  [field: string]: unknown;
}

/** What the library's errors carry: ApiError (JSON API), GaxiosError (uploads, OAuth), FetchError (network). */
interface GoogleErrorShape {
  message: string;
  code?: number | string;
  status?: number;
  errors?: Array<{ reason?: string; message?: string }>;
  response?: { status?: number; statusCode?: number };
}

/** Which resource an operation is about, so a bare 404 names the right missing thing. */
type Subject = 'bucket' | 'object';

/** Parses the pasted service-account JSON; anything unusable is the user's key, so InvalidCredentials. */
function parseServiceAccount(credentialsJson: string): ServiceAccountKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(credentialsJson);
  } catch {
    throw new StorageError(
      'InvalidCredentials',
      'The service-account key is not valid JSON: paste the whole key file downloaded from Google Cloud',
      'google',
    );
  }
  const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const missing = ['project_id', 'client_email', 'private_key'].filter(
    (field) => typeof fields[field] !== 'string' || fields[field] === '',
  );
  if (missing.length > 0) {
    throw new StorageError(
      'InvalidCredentials',
      `The service-account key is missing ${missing.join(', ')}: paste the whole key file downloaded from Google Cloud`,
      'google',
    );
  }
  return fields as ServiceAccountKey;
}

function statusOf(error: GoogleErrorShape): number | null {
  if (typeof error.code === 'number') return error.code;
  if (typeof error.status === 'number') return error.status;
  return error.response?.status ?? error.response?.statusCode ?? null;
}

/**
 * A failed download replaces the error message with the raw JSON body, and OAuth failures put their reason in
 * `error`/`error_description`: the message a user can act on is inside.
 */
function apiMessage(message: string): string {
  const trimmed = message.trim();
  if (!trimmed.startsWith('{')) return trimmed;
  try {
    const body = JSON.parse(trimmed) as {
      error?: string | { message?: string };
      error_description?: string;
    };
    if (typeof body.error === 'object' && body.error?.message) return body.error.message;
    if (typeof body.error === 'string') {
      return body.error_description ? `${body.error}: ${body.error_description}` : body.error;
    }
  } catch {
    // Not JSON after all: the text itself is the message.
  }
  return trimmed;
}

function codeOf(error: GoogleErrorShape, status: number | null, message: string, subject: Subject) {
  const reason = error.errors?.[0]?.reason;
  if (/invalid_grant|invalid_client|unauthorized_client/i.test(message) || status === 401) {
    return 'InvalidCredentials';
  }
  if (status === 403) return 'AccessDenied';
  if (status === 404) {
    if (/bucket does not exist/i.test(message)) return 'BucketNotFound';
    return subject === 'bucket' ? 'BucketNotFound' : 'ObjectNotFound';
  }
  if (status === 409 && subject === 'bucket') return 'BucketAlreadyExists';
  if (status === 400 && (reason === 'invalid' || reason === 'invalidParameter') && /bucket/i.test(message)) {
    return 'InvalidBucketName';
  }
  if (status === 429 || status === 503) return 'Throttled';
  if (status === null && typeof error.code === 'string' && NETWORK_ERROR_CODES.has(error.code))
    return 'Network';
  if (status === null && /ECONNREFUSED|ENOTFOUND|socket hang up/i.test(message)) return 'Network';
  return 'Unknown';
}

/** Maps anything @google-cloud/storage throws to the one StorageError of the contract. */
export function toStorageError(error: unknown, subject: Subject = 'object'): StorageError {
  if (error instanceof StorageError) return error;
  if (!(error instanceof Error)) {
    return new StorageError('Unknown', String(error), 'google', null, { cause: error });
  }
  const shaped = error as GoogleErrorShape;
  const status = statusOf(shaped);
  const message = apiMessage(shaped.message) || `Google Cloud Storage answered HTTP ${status ?? 'error'}`;
  const code: StorageErrorCode = codeOf(shaped, status, message, subject);
  return new StorageError(code, message, 'google', status, { cause: error });
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** Cancellation is the caller's own doing, so it travels unchanged; every other failure becomes a StorageError. */
function rethrow(error: unknown, subject: Subject = 'object'): never {
  if (isAbortError(error)) throw error;
  throw toStorageError(error, subject);
}

/**
 * The caller's MD5 of a Buffer body as object metadata: GCS checks the bytes it received against it and refuses
 * the upload on a mismatch. A stream was never hashed by the caller, so it sends none.
 */
function md5HashOf(body: Readable | Buffer, options: WriteOptions): { md5Hash?: string } {
  return Buffer.isBuffer(body) && options.md5
    ? { md5Hash: Buffer.from(options.md5, 'hex').toString('base64') }
    : {};
}

/** GCS gives md5Hash in base64; the contract compares hex. */
function md5Hex(md5Hash: string | undefined): string | null {
  return md5Hash ? Buffer.from(md5Hash, 'base64').toString('hex') : null;
}

function objectInfo(key: string, metadata: FileMetadata): ObjectInfo {
  const userMetadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(metadata.metadata ?? {})) {
    // The API accepts null to remove a key; a listed key with no value has nothing to report.
    if (value !== null && value !== undefined) userMetadata[name.toLowerCase()] = String(value);
  }
  return {
    key,
    size: Number(metadata.size ?? 0),
    lastModified: metadata.updated ? new Date(metadata.updated) : null,
    etag: metadata.etag ?? null,
    md5: md5Hex(metadata.md5Hash),
    contentType: metadata.contentType ?? null,
    metadata: userMetadata,
    contentHeaders: presentHeaders(metadata),
  };
}

/** The `prefixes` of an objects.list answer (the library does not lift them out of the raw response). */
function prefixesOf(apiResponse: unknown): string[] {
  if (typeof apiResponse !== 'object' || apiResponse === null) return [];
  const prefixes = (apiResponse as { prefixes?: unknown }).prefixes;
  return Array.isArray(prefixes) ? prefixes.filter((p): p is string => typeof p === 'string') : [];
}

function pageTokenOf(nextQuery: unknown): string | null {
  if (typeof nextQuery !== 'object' || nextQuery === null) return null;
  const token = (nextQuery as { pageToken?: unknown }).pageToken;
  return typeof token === 'string' && token !== '' ? token : null;
}

/**
 * GCS keeps one `responseHeader` list per CORS entry, used both for the headers a preflight may send and for
 * those the browser may read; CorsRule's two lists therefore read back as the same list.
 */
function toCorsRule(entry: NonNullable<BucketMetadata['cors']>[number]): CorsRule {
  const headers = entry.responseHeader ?? [];
  return {
    allowedOrigins: entry.origin ?? [],
    allowedMethods: entry.method ?? [],
    allowedHeaders: headers,
    exposeHeaders: headers,
    maxAgeSeconds: entry.maxAgeSeconds ?? 0,
  };
}

function fromCorsRule(rule: CorsRule) {
  return {
    origin: rule.allowedOrigins,
    method: rule.allowedMethods,
    responseHeader: [...new Set([...rule.allowedHeaders, ...rule.exposeHeaders])],
    maxAgeSeconds: rule.maxAgeSeconds,
  };
}

/** `attachment` with an RFC 6266 file name that survives non-ASCII characters. */
function contentDispositionFor(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * Google Cloud Storage behind the ObjectStore contract, on the JSON API through @google-cloud/storage. One
 * Storage client (one auth client, one token cache, the library's own retry with backoff and jitter) per account.
 */
export class GoogleObjectStore implements ObjectStore {
  readonly provider = 'google' as const;
  readonly capabilities: ObjectStoreCapabilities;
  private readonly storage: Storage;

  constructor(config: GoogleStoreConfig, retry: RetryOptions = DEFAULT_RETRY) {
    const credentials = parseServiceAccount(config.credentialsJson);
    this.storage = new Storage({
      credentials,
      projectId: credentials.project_id,
      apiEndpoint: config.endpoint,
      // Without this the library sends no Authorization header to a custom endpoint (it assumes an emulator);
      // Cumulo's endpoint override is for tests and private deployments that still check the key.
      useAuthWithCustomEndpoint: true,
      retryOptions: {
        // The library reads maxRetries 0 as "use the default of 3", so a single attempt turns retries off.
        autoRetry: retry.maxAttempts > 1,
        maxRetries: Math.max(retry.maxAttempts - 1, 1),
        // Every write Cumulo makes sends the same bytes to the same name, so repeating one after a 503 or a
        // lost answer is harmless; the default (retry only with preconditions) would fail transfers instead.
        idempotencyStrategy: IdempotencyStrategy.RetryAlways,
      },
    });
    // No `parts`: a GCS resumable session takes its chunks in order, one after the other, so parts sent in any
    // order and in parallel (what `parts` promises) cannot be offered. The transfer engine streams GCS writes.
    this.capabilities = {
      // objects.list answers each object's whole resource (projection noAcl), user metadata included.
      metadataInListings: true,
      directUpload: googleDirectUpload(this.storage, rethrow),
      cors: {
        getCors: async (bucket) => (await this.bucketMetadata(bucket)).cors?.map(toCorsRule) ?? [],
        putCors: async (bucket, rules) => {
          await this.setBucketMetadata(bucket, { cors: rules.map(fromCorsRule) });
        },
      },
      versioning: {
        getVersioning: async (bucket) => {
          const versioning = (await this.bucketMetadata(bucket)).versioning;
          if (!versioning) return 'off';
          // GCS keeps `{ enabled: false }` once versioning has been turned off: the S3 notion of suspended.
          return versioning.enabled ? 'enabled' : 'suspended';
        },
        putVersioning: async (bucket, enabled) => {
          await this.setBucketMetadata(bucket, { versioning: { enabled } });
        },
      },
      lifecycle: {
        // The rule covers XML-API multipart uploads; the resumable sessions this adapter opens expire by
        // themselves a week after they start, and leave no object either way.
        putAbortIncompleteUploads: async (bucket, days) => {
          const current = (await this.bucketMetadata(bucket)).lifecycle?.rule ?? [];
          const others = current.filter((rule) => rule.action.type !== ABORT_UPLOADS_ACTION);
          const rule: LifecycleRule = { action: { type: ABORT_UPLOADS_ACTION }, condition: { age: days } };
          await this.setBucketMetadata(bucket, { lifecycle: { rule: [...others, rule] } });
        },
      },
      tags: {
        getBucketTags: async (bucket) => {
          const labels = (await this.bucketMetadata(bucket)).labels ?? {};
          return Object.fromEntries(
            Object.entries(labels).flatMap(([name, value]) => (value === null ? [] : [[name, value]])),
          );
        },
        putBucketTags: async (bucket, tags) => {
          // A metadata PATCH merges labels: the ones no longer wanted must be sent as null to go away.
          const current = (await this.bucketMetadata(bucket)).labels ?? {};
          const removed = Object.fromEntries(
            Object.keys(current)
              .filter((name) => !(name in tags))
              .map((name) => [name, null]),
          );
          await this.setBucketMetadata(bucket, { labels: { ...removed, ...tags } });
        },
      },
    };
  }

  private file(bucket: string, key: string): File {
    return this.storage.bucket(bucket).file(key);
  }

  private async bucketMetadata(bucket: string): Promise<BucketMetadata> {
    try {
      const [metadata] = await this.storage.bucket(bucket).getMetadata();
      return metadata;
    } catch (error) {
      return rethrow(error, 'bucket');
    }
  }

  private async setBucketMetadata(bucket: string, metadata: BucketMetadata): Promise<void> {
    try {
      await this.storage.bucket(bucket).setMetadata(metadata);
    } catch (error) {
      rethrow(error, 'bucket');
    }
  }

  async verify(): Promise<void> {
    // One page of one bucket: authenticated, cheap, and the call Cumulo needs to work anyway.
    try {
      await this.storage.getBuckets({ maxResults: 1, autoPaginate: false });
    } catch (error) {
      rethrow(error, 'bucket');
    }
  }

  async listBuckets(): Promise<BucketInfo[]> {
    const buckets: BucketInfo[] = [];
    let pageToken: string | undefined;
    try {
      do {
        const [page, nextQuery] = await this.storage.getBuckets({
          maxResults: MAX_PAGE_SIZE,
          pageToken,
          autoPaginate: false,
        });
        for (const bucket of page) buckets.push(this.bucketInfo(bucket));
        pageToken = pageTokenOf(nextQuery) ?? undefined;
      } while (pageToken);
    } catch (error) {
      rethrow(error, 'bucket');
    }
    return buckets;
  }

  private bucketInfo(bucket: Bucket): BucketInfo {
    const { location, timeCreated } = bucket.metadata;
    return {
      name: bucket.name,
      region: location ? location.toLowerCase() : null,
      createdAt: timeCreated ? new Date(timeCreated) : null,
    };
  }

  async createBucket(name: string, options: { region?: string } = {}): Promise<void> {
    try {
      await this.storage.createBucket(name, options.region ? { location: options.region } : {});
    } catch (error) {
      rethrow(error, 'bucket');
    }
  }

  async headBucket(name: string): Promise<{ region: string | null } | null> {
    try {
      const [metadata] = await this.storage.bucket(name).getMetadata();
      return { region: metadata.location ? metadata.location.toLowerCase() : null };
    } catch (error) {
      if (toStorageError(error, 'bucket').code === 'BucketNotFound') return null;
      return rethrow(error, 'bucket');
    }
  }

  async *list(bucket: string, options: ListOptions = {}): AsyncGenerator<ListPage> {
    const maxResults = Math.min(Math.max(options.pageSize ?? MAX_PAGE_SIZE, 1), MAX_PAGE_SIZE);
    let pageToken = options.continuationToken || undefined;
    do {
      let page: ListPage;
      try {
        const [files, nextQuery, apiResponse] = await this.storage.bucket(bucket).getFiles({
          prefix: options.prefix || undefined,
          delimiter: options.delimiter || undefined,
          maxResults,
          pageToken,
          autoPaginate: false,
        });
        page = {
          objects: files.map((file) => objectInfo(file.name, file.metadata)),
          prefixes: prefixesOf(apiResponse),
          continuationToken: pageTokenOf(nextQuery),
        };
      } catch (error) {
        return rethrow(error, 'bucket');
      }
      // Only the library's call is guarded above: errors thrown by the consumer must not be remapped.
      yield page;
      pageToken = page.continuationToken ?? undefined;
    } while (pageToken);
  }

  async stat(bucket: string, key: string): Promise<ObjectInfo | null> {
    try {
      const [metadata] = await this.file(bucket, key).getMetadata();
      return objectInfo(key, metadata);
    } catch (error) {
      if (toStorageError(error).code === 'ObjectNotFound') return null;
      return rethrow(error);
    }
  }

  async read(bucket: string, key: string, options: ReadOptions = {}): Promise<Readable> {
    options.signal?.throwIfAborted();
    // The stored bytes, as they are: the library would otherwise gunzip an object stored with Content-Encoding
    // gzip, whose size and MD5 then no longer match the object's (a copy would fail its check or, without one,
    // lose the encoding's bytes).
    const stream = this.file(bucket, key).createReadStream({
      decompress: false,
      ...(options.range ? { start: options.range.start, end: options.range.end } : {}),
    });
    const onAbort = () => stream.destroy(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    stream.once('close', () => options.signal?.removeEventListener('abort', onAbort));
    // The library sends the request only when the stream is first read; start it now and wait for the answer
    // so that a missing object rejects here rather than midway through the caller's pipeline.
    await new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        stream.off('error', onError);
        stream.off('response', onResponse);
      };
      const onError = (error: unknown) => {
        cleanup();
        reject(error);
      };
      const onResponse = (response: { statusCode?: number; status?: number }) => {
        const status = response.statusCode ?? response.status ?? 0;
        // An error status is followed by an 'error' carrying the API's message; wait for that one.
        if (status < 400) {
          cleanup();
          resolve();
        }
      };
      stream.on('error', onError);
      stream.on('response', onResponse);
      stream.read(0);
    }).catch((error: unknown) => rethrow(error));
    return stream;
  }

  async write(
    bucket: string,
    key: string,
    body: Readable | Buffer,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    options.signal?.throwIfAborted();
    const size = Buffer.isBuffer(body) ? body.length : options.size;
    if (size !== undefined && size <= SINGLE_REQUEST_MAX) {
      // Held in memory (at most SINGLE_REQUEST_MAX) so the library can re-send it when a retry is needed.
      const payload = Buffer.isBuffer(body) ? body : await bufferSmall(body);
      const file = this.file(bucket, key);
      try {
        await file.save(payload, {
          resumable: false,
          contentType: options.contentType,
          metadata: {
            metadata: options.metadata,
            ...options.contentHeaders,
            ...md5HashOf(body, options),
          },
          // The library compares its own MD5 of the payload with the stored object's, and deletes a mismatch.
          ...(Buffer.isBuffer(body) && options.md5 ? { validation: 'md5' as const } : {}),
        });
      } catch (error) {
        return rethrow(error);
      }
      options.onProgress?.(payload.length);
      return { etag: file.metadata.etag ?? null, size: payload.length };
    }
    return this.writeResumable(bucket, key, body, size, options);
  }

  /**
   * A resumable upload in chunks of partSizeFor('google') (256 KiB multiples). GCS creates the object only when
   * the last chunk arrives, so an aborted or failed upload leaves nothing behind; the session is also cancelled
   * with a DELETE on its URI so it does not linger for the week GCS would otherwise keep it.
   */
  private async writeResumable(
    bucket: string,
    key: string,
    source: Readable | Buffer,
    size: number | undefined,
    options: WriteOptions,
  ): Promise<WriteResult> {
    const body = Buffer.isBuffer(source) ? Readable.from([source]) : source;
    const file = this.file(bucket, key);
    const upload: Writable = file.createWriteStream({
      resumable: true,
      chunkSize: partSizeFor('google', size ?? 0),
      contentType: options.contentType,
      metadata: {
        contentType: options.contentType,
        metadata: options.metadata,
        ...options.contentHeaders,
        ...md5HashOf(source, options),
      },
    });
    let sessionUri: string | null = null;
    let written = 0;
    upload.on('uri', (uri: string) => {
      sessionUri = uri;
    });
    upload.on('progress', (progress: { bytesWritten?: number }) => {
      if (progress.bytesWritten === undefined || progress.bytesWritten <= written) return;
      written = progress.bytesWritten;
      options.onProgress?.(written);
    });
    try {
      await pipeline(body, upload, { signal: options.signal });
    } catch (error) {
      await this.cancelSession(sessionUri);
      return rethrow(error);
    }
    const total = Number(file.metadata.size ?? size ?? written);
    if (written !== total) options.onProgress?.(total);
    return { etag: file.metadata.etag ?? null, size: total };
  }

  private async cancelSession(sessionUri: string | null): Promise<void> {
    if (!sessionUri) return;
    try {
      // GCS answers 499 to a cancelled session, which the auth client reports as an error.
      await this.storage.authClient.request({ url: sessionUri, method: 'DELETE' });
    } catch {
      // The write already failed; its own error is the one the caller needs to see.
    }
  }

  async deleteMany(bucket: string, keys: string[]): Promise<DeleteResult> {
    const result: DeleteResult = { deleted: [], errors: [] };
    await mapLimited(keys, DELETE_CONCURRENCY, async (key) => {
      try {
        await this.file(bucket, key).delete({ ignoreNotFound: true });
        result.deleted.push(key);
      } catch (error) {
        result.errors.push({ key, message: toStorageError(error).message });
      }
    });
    return result;
  }

  async copy(
    source: { bucket: string; key: string },
    target: { bucket: string; key: string },
    options: ServerCopyOptions = {},
  ): Promise<ServerCopyResult> {
    // objects.rewrite: server side, and the library repeats it with the rewrite token until large copies finish.
    // GCS offers no ETag condition on the source (ServerCopyOptions.ifMatch): the copy's MD5 tells what was copied.
    try {
      const [copied] = await this.file(source.bucket, source.key).copy(this.file(target.bucket, target.key));
      let metadata = copied.metadata as { etag?: string; md5Hash?: string };
      // objects.patch merges user metadata key by key: the copy keeps the source's and gains these.
      if (options.addMetadata && Object.keys(options.addMetadata).length > 0) {
        [metadata] = await copied.setMetadata({ metadata: options.addMetadata });
      }
      return { etag: metadata.etag ?? null, md5: md5Hex(metadata.md5Hash) };
    } catch (error) {
      return rethrow(error);
    }
  }

  async signedUrl(bucket: string, key: string, options: SignedUrlOptions): Promise<string> {
    try {
      const [url] = await this.file(bucket, key).getSignedUrl({
        version: 'v4',
        action: options.method === 'GET' ? 'read' : 'write',
        expires: Date.now() + options.expiresInSeconds * 1000,
        contentType: options.method === 'PUT' ? options.contentType : undefined,
        responseDisposition:
          options.method === 'GET' && options.downloadName
            ? contentDispositionFor(options.downloadName)
            : undefined,
      });
      return url;
    } catch (error) {
      return rethrow(error);
    }
  }

  async close(): Promise<void> {
    // The client holds only Node's shared agents and a token cache; nothing to release, twice is fine.
  }
}

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  BlobSASPermissions,
  BlobServiceClient,
  RestError,
  StorageRetryPolicyType,
  StorageSharedKeyCredential,
  generateBlobSASQueryParameters,
  type BlobItem,
  type ContainerClient,
  type CorsRule as AzureCorsRule,
} from '@azure/storage-blob';
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
import { NETWORK_ERROR_CODES, networkMessage, presentHeaders } from '../shared.ts';
import { blobHeadersOf } from './azure-content-headers.ts';
import { azureDirectUpload } from './azure-direct-upload.ts';
import { azureParts } from './azure-parts.ts';
import { DEFAULT_PART_CONCURRENCY, SINGLE_REQUEST_MAX, partSizeFor } from '../../part-size.ts';
import { DEFAULT_RETRY, type AzureStoreConfig, type RetryOptions } from '../../store-config.ts';

/** Azure's maximum `maxresults` for List Blobs and List Containers. */
const MAX_PAGE_SIZE = 5000;
/** Azure's limit of sub-requests in one Blob Batch call. */
const BATCH_MAX = 256;
/** How long the SAS that lets the copy read its source stays valid. */
const COPY_SOURCE_SAS_SECONDS = 15 * 60;
/** Copies inside one account usually finish at once; when Azure answers "pending", poll at this pace. */
const COPY_POLL_INTERVAL_MS = 1000;
/** SAS tokens start in the past so that a client or server clock running slightly ahead does not refuse them. */
const CLOCK_SKEW_MS = 60_000;

const ERROR_CODES: Record<string, StorageErrorCode> = {
  AuthenticationFailed: 'InvalidCredentials',
  InvalidAuthenticationInfo: 'InvalidCredentials',
  AccountIsDisabled: 'AccessDenied',
  AuthorizationFailure: 'AccessDenied',
  AuthorizationPermissionMismatch: 'AccessDenied',
  AuthorizationResourceTypeMismatch: 'AccessDenied',
  AuthorizationServiceMismatch: 'AccessDenied',
  AuthorizationSourceIPMismatch: 'AccessDenied',
  AuthorizationProtocolMismatch: 'AccessDenied',
  InsufficientAccountPermissions: 'AccessDenied',
  ContainerNotFound: 'BucketNotFound',
  ContainerBeingDeleted: 'BucketNotFound',
  BlobNotFound: 'ObjectNotFound',
  ContainerAlreadyExists: 'BucketAlreadyExists',
  InvalidResourceName: 'InvalidBucketName',
  OutOfRangeInput: 'InvalidBucketName',
  ServerBusy: 'Throttled',
  OperationTimedOut: 'Throttled',
  BlobArchived: 'Archived',
  BlobBeingRehydrated: 'Archived',
};

/** Azure's own words ("This operation is not permitted on an archived blob.") do not say what to do. */
const ARCHIVED_MESSAGES: Record<string, string> = {
  BlobArchived:
    'The blob is in the Archive tier: rehydrate it to an online tier before reading or copying it',
  BlobBeingRehydrated: 'The blob is being rehydrated from the Archive tier: try again once it is online',
};

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** The service's error code: in the XML body for most calls, in `x-ms-error-code` for HEAD answers. */
function azureErrorCode(error: RestError): string | undefined {
  const code = error.response?.headers.get('x-ms-error-code') ?? error.code;
  // A copy whose source is archived: Azure names it by the copy ("the source could not be verified") and tells
  // the source's refusal only in words.
  if (code === 'CannotVerifyCopySource' && /archived blob/i.test(error.message)) return 'BlobArchived';
  return code;
}

/** Azure messages end with RequestId/Time lines; the first line is the part a user can act on. */
function firstLine(message: string): string {
  return message.split('\n')[0]?.trim() ?? '';
}

/** Maps anything the Azure SDK throws to the one StorageError of the contract. */
export function toStorageError(error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  if (error instanceof RestError) {
    const status = error.statusCode ?? null;
    const serviceCode = azureErrorCode(error);
    let code: StorageErrorCode = (serviceCode && ERROR_CODES[serviceCode]) || 'Unknown';
    // A wrong key is a signature mismatch; Azure says AuthenticationFailed, Azurite says AuthorizationFailure
    // with the same "failed to authenticate" text, which a genuine permission refusal never carries.
    if (status === 403 && /failed to authenticate/i.test(error.message)) code = 'InvalidCredentials';
    if (code === 'Unknown') {
      if (status === null && serviceCode && NETWORK_ERROR_CODES.has(serviceCode)) code = 'Network';
      else if (status === 403) code = 'AccessDenied';
      else if (status === 404) code = 'ObjectNotFound';
      else if (status === 429 || status === 503) code = 'Throttled';
    }
    // HEAD answers carry no body, so the SDK has no service message to give; say what the code means. No answer
    // at all: the socket's text ("connect ECONNREFUSED …") says nothing to a user.
    const message =
      code === 'Network'
        ? networkMessage(serviceCode)
        : (serviceCode && ARCHIVED_MESSAGES[serviceCode]) ||
          firstLine(error.message) ||
          serviceCode ||
          `Azure answered HTTP ${status ?? 'error'}`;
    return new StorageError(code, message, 'azure', status, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new StorageError('Unknown', message, 'azure', null, { cause: error });
}

/** Cancellation is the caller's own doing, so it travels unchanged; every other failure becomes a StorageError. */
function rethrow(error: unknown): never {
  if (isAbortError(error)) throw error;
  throw toStorageError(error);
}

/**
 * Azure metadata names must be C# identifiers, so `cumulo-sha256` or an S3 `x-amz-meta-content-language` cannot
 * be stored as is. Every other character becomes `_xHH_` (its UTF-8 bytes in hex), as does a leading digit and
 * an underscore that would read as the start of such an escape, so names written here come back unchanged and
 * names written by other tools (letters, digits, underscores) read as they are.
 */
export function encodeMetadataName(name: string): string {
  const escape = (text: string) =>
    Array.from(Buffer.from(text, 'utf8'), (byte) => `_x${byte.toString(16).padStart(2, '0')}_`).join('');
  return name
    .replace(/_(?=x[0-9a-f]{2}_)/g, escape)
    .replace(/[^A-Za-z0-9_]+/gu, escape)
    .replace(/^[0-9]/, escape);
}

/** The inverse of encodeMetadataName. */
export function decodeMetadataName(name: string): string {
  // Runs of escapes are decoded together: one character may span several UTF-8 bytes.
  return name.replace(/(?:_x[0-9a-f]{2}_)+/g, (run) =>
    Buffer.from(run.replace(/_x([0-9a-f]{2})_/g, '$1'), 'hex').toString('utf8'),
  );
}

function encodeMetadata(metadata: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!metadata) return undefined;
  return Object.fromEntries(
    Object.entries(metadata).map(([name, value]) => [encodeMetadataName(name), value]),
  );
}

function decodeMetadata(metadata: Record<string, string> | undefined): Record<string, string> {
  if (!metadata) return {};
  return Object.fromEntries(
    Object.entries(metadata).map(([name, value]) => [decodeMetadataName(name).toLowerCase(), value]),
  );
}

function stripQuotes(etag: string | undefined): string | null {
  return etag ? etag.replace(/^"|"$/g, '') : null;
}

function md5Hex(contentMD5: Uint8Array | undefined): string | null {
  return contentMD5 && contentMD5.length > 0 ? Buffer.from(contentMD5).toString('hex') : null;
}

function toCorsRule(rule: AzureCorsRule): CorsRule {
  const split = (value: string) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
  return {
    allowedOrigins: split(rule.allowedOrigins),
    allowedMethods: split(rule.allowedMethods),
    allowedHeaders: split(rule.allowedHeaders),
    exposeHeaders: split(rule.exposedHeaders),
    maxAgeSeconds: rule.maxAgeInSeconds,
  };
}

function fromCorsRule(rule: CorsRule): AzureCorsRule {
  return {
    allowedOrigins: rule.allowedOrigins.join(','),
    allowedMethods: rule.allowedMethods.join(','),
    allowedHeaders: rule.allowedHeaders.join(','),
    exposedHeaders: rule.exposeHeaders.join(','),
    maxAgeInSeconds: rule.maxAgeSeconds,
  };
}

/**
 * Azure Blob Storage behind the ObjectStore contract: containers are Cumulo's buckets. One BlobServiceClient
 * (one HTTP pipeline, one retry policy) per account for the instance's lifetime.
 */
export class AzureObjectStore implements ObjectStore {
  readonly provider = 'azure' as const;
  readonly capabilities: ObjectStoreCapabilities;
  private readonly credential: StorageSharedKeyCredential;
  private readonly service: BlobServiceClient;

  constructor(config: AzureStoreConfig, retry: RetryOptions = DEFAULT_RETRY) {
    this.credential = new StorageSharedKeyCredential(config.accountName, config.accountKey);
    const url = config.endpoint ?? `https://${config.accountName}.blob.core.windows.net`;
    // The SDK's own policy retries 500/503 (ServerBusy is how Blob Storage throttles) and network errors.
    this.service = new BlobServiceClient(url, this.credential, {
      retryOptions: { retryPolicyType: StorageRetryPolicyType.EXPONENTIAL, maxTries: retry.maxAttempts },
    });
    this.capabilities = {
      metadataInListings: true,
      // CORS on Azure Blob is a property of the whole account's blob service, not of one container: the bucket
      // argument only names where the user asked, and the rules apply to every container of the account.
      cors: {
        getCors: async () => {
          try {
            const properties = await this.service.getProperties();
            return (properties.cors ?? []).map(toCorsRule);
          } catch (error) {
            return rethrow(error);
          }
        },
        putCors: async (_bucket, rules) => {
          try {
            await this.service.setProperties({ cors: rules.map(fromCorsRule) });
          } catch (error) {
            rethrow(error);
          }
        },
      },
      directUpload: azureDirectUpload(
        this.service,
        (bucket, key, permissions, expiresInSeconds) => this.sas(bucket, key, permissions, expiresInSeconds),
        rethrow,
      ),
      parts: azureParts({
        service: this.service,
        sas: (bucket, key, permissions, expiresInSeconds) =>
          this.sas(bucket, key, permissions, expiresInSeconds),
        rethrow,
        encodeMetadata,
      }),
      // Blob index tags: up to 10, names of 1-128 and values of up to 256 characters out of letters, digits,
      // space and + - . / : = _ (stricter than S3's; Azure refuses others with 400 InvalidTag). Copy Blob does not
      // carry them: a copy inside one account keeps them only when it goes through blocks.
      objectTags: {
        get: async (bucket, key) => {
          try {
            return (await this.container(bucket).getBlobClient(key).getTags()).tags;
          } catch (error) {
            return rethrow(error);
          }
        },
      },
    };
  }

  private container(bucket: string): ContainerClient {
    return this.service.getContainerClient(bucket);
  }

  /** A blob SAS signed with the account key; starts in the past to absorb clock skew. */
  private sas(
    bucket: string,
    key: string,
    permissions: string,
    expiresInSeconds: number,
    contentDisposition?: string,
  ): string {
    const now = Date.now();
    return generateBlobSASQueryParameters(
      {
        containerName: bucket,
        blobName: key,
        permissions: BlobSASPermissions.parse(permissions),
        startsOn: new Date(now - CLOCK_SKEW_MS),
        expiresOn: new Date(now + expiresInSeconds * 1000),
        contentDisposition,
      },
      this.credential,
    ).toString();
  }

  async verify(): Promise<void> {
    try {
      await this.service.getAccountInfo();
    } catch (error) {
      rethrow(error);
    }
  }

  async listBuckets(): Promise<BucketInfo[]> {
    const buckets: BucketInfo[] = [];
    try {
      for await (const page of this.service.listContainers().byPage({ maxPageSize: MAX_PAGE_SIZE })) {
        for (const container of page.containerItems) {
          // Azure keeps no creation date for a container; its last-modified time is the closest it exposes
          // (it only moves when the container's metadata or properties change, not when blobs do).
          buckets.push({ name: container.name, region: null, createdAt: container.properties.lastModified });
        }
      }
    } catch (error) {
      rethrow(error);
    }
    return buckets;
  }

  async createBucket(name: string): Promise<void> {
    // An Azure account lives in one location chosen when it was made, so a region option has nothing to set.
    try {
      await this.container(name).create();
    } catch (error) {
      rethrow(error);
    }
  }

  async headBucket(name: string): Promise<{ region: string | null } | null> {
    try {
      await this.container(name).getProperties();
      return { region: null };
    } catch (error) {
      const mapped = toStorageError(error);
      if (mapped.code === 'BucketNotFound' || mapped.status === 404) return null;
      return rethrow(error);
    }
  }

  async *list(bucket: string, options: ListOptions = {}): AsyncGenerator<ListPage> {
    const pages = this.listingPages(this.container(bucket), options)[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<ListPage>;
      try {
        next = await pages.next();
      } catch (error) {
        return rethrow(error);
      }
      if (next.done) return;
      // Only the SDK's own calls are guarded above: errors thrown by the consumer must not be remapped.
      yield next.value;
    }
  }

  /** The SDK's pages in contract shape; one page in memory at a time. */
  private async *listingPages(container: ContainerClient, options: ListOptions): AsyncGenerator<ListPage> {
    const maxPageSize = Math.min(Math.max(options.pageSize ?? MAX_PAGE_SIZE, 1), MAX_PAGE_SIZE);
    const settings = { maxPageSize, continuationToken: options.continuationToken || undefined };
    const listOptions = { prefix: options.prefix || undefined, includeMetadata: true };
    if (options.delimiter) {
      const pages = container.listBlobsByHierarchy(options.delimiter, listOptions).byPage(settings);
      for await (const page of pages) {
        yield {
          objects: page.segment.blobItems.map((item) => this.blobItemInfo(item)),
          prefixes: (page.segment.blobPrefixes ?? []).map((prefix) => prefix.name),
          continuationToken: page.continuationToken || null,
        };
      }
      return;
    }
    for await (const page of container.listBlobsFlat(listOptions).byPage(settings)) {
      yield {
        objects: page.segment.blobItems.map((item) => this.blobItemInfo(item)),
        prefixes: [],
        continuationToken: page.continuationToken || null,
      };
    }
  }

  private blobItemInfo(item: BlobItem): ObjectInfo {
    return {
      key: item.name,
      size: item.properties.contentLength ?? 0,
      lastModified: item.properties.lastModified,
      etag: stripQuotes(item.properties.etag),
      md5: md5Hex(item.properties.contentMD5),
      contentType: item.properties.contentType ?? null,
      metadata: decodeMetadata(item.metadata),
      contentHeaders: presentHeaders(item.properties),
    };
  }

  async stat(bucket: string, key: string): Promise<ObjectInfo | null> {
    try {
      const properties = await this.container(bucket).getBlobClient(key).getProperties();
      return {
        key,
        size: properties.contentLength ?? 0,
        lastModified: properties.lastModified ?? null,
        etag: stripQuotes(properties.etag),
        md5: md5Hex(properties.contentMD5),
        contentType: properties.contentType ?? null,
        metadata: decodeMetadata(properties.metadata),
        contentHeaders: presentHeaders(properties),
        ...(properties.tagCount ? { tagCount: properties.tagCount } : {}),
      };
    } catch (error) {
      if (toStorageError(error).code === 'ObjectNotFound') return null;
      return rethrow(error);
    }
  }

  async read(bucket: string, key: string, options: ReadOptions = {}): Promise<Readable> {
    const offset = options.range?.start ?? 0;
    const end = options.range?.end;
    const count = end === undefined ? undefined : end - offset + 1;
    try {
      const response = await this.container(bucket)
        .getBlobClient(key)
        .download(offset, count, { abortSignal: options.signal });
      const body = response.readableStreamBody;
      if (!body) throw new StorageError('Unknown', 'Azure answered without a body', 'azure');
      if (options.onInfo && !options.range) {
        options.onInfo({
          key,
          size: response.contentLength ?? 0,
          lastModified: response.lastModified ?? null,
          etag: stripQuotes(response.etag),
          md5: md5Hex(response.blobContentMD5 ?? response.contentMD5),
          contentType: response.contentType ?? null,
          metadata: decodeMetadata(response.metadata),
          contentHeaders: presentHeaders(response),
          ...(response.tagCount ? { tagCount: response.tagCount } : {}),
        });
      }
      return body instanceof Readable ? body : Readable.from(body);
    } catch (error) {
      return rethrow(error);
    }
  }

  async write(
    bucket: string,
    key: string,
    body: Readable | Buffer,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    const blob = this.container(bucket).getBlockBlobClient(key);
    const metadata = encodeMetadata(options.metadata);
    const tags = options.tags && Object.keys(options.tags).length > 0 ? options.tags : undefined;
    try {
      if (Buffer.isBuffer(body)) {
        // The MD5 of a buffer is cheap and makes the object comparable later (Azure only computes one itself
        // for single-request uploads). The caller's MD5, when given, is the one its bytes had before they came
        // here: Put Blob checks the body against it, so damage on the way is refused.
        const blobHTTPHeaders = {
          ...blobHeadersOf(options.contentType, options.contentHeaders),
          blobContentMD5: options.md5
            ? Buffer.from(options.md5, 'hex')
            : createHash('md5').update(body).digest(),
        };
        if (body.length <= SINGLE_REQUEST_MAX) {
          const response = await blob.upload(body, body.length, {
            blobHTTPHeaders,
            metadata,
            tags,
            abortSignal: options.signal,
          });
          options.onProgress?.(body.length);
          return { etag: stripQuotes(response.etag), size: body.length };
        }
        const response = await blob.uploadData(body, {
          blockSize: partSizeFor('azure', body.length),
          maxSingleShotSize: SINGLE_REQUEST_MAX,
          concurrency: options.concurrency ?? DEFAULT_PART_CONCURRENCY,
          blobHTTPHeaders,
          metadata,
          tags,
          abortSignal: options.signal,
          onProgress: (progress) => options.onProgress?.(progress.loadedBytes),
        });
        return { etag: stripQuotes(response.etag), size: body.length };
      }
      // Staged blocks stay invisible until commitBlockList, so an aborted or failed stream leaves no blob.
      let written = 0;
      const response = await blob.uploadStream(
        body,
        partSizeFor('azure', options.size ?? 0),
        options.concurrency ?? DEFAULT_PART_CONCURRENCY,
        {
          abortSignal: options.signal,
          blobHTTPHeaders: blobHeadersOf(options.contentType, options.contentHeaders),
          metadata,
          tags,
          onProgress: (progress) => {
            written = progress.loadedBytes;
            options.onProgress?.(written);
          },
        },
      );
      // An empty stream stages no block, so the SDK never reports progress for it.
      if (written === 0) options.onProgress?.(0);
      return { etag: stripQuotes(response.etag), size: written };
    } catch (error) {
      return rethrow(error);
    }
  }

  async deleteMany(bucket: string, keys: string[]): Promise<DeleteResult> {
    const container = this.container(bucket);
    const batchClient = container.getBlobBatchClient();
    const result: DeleteResult = { deleted: [], errors: [] };
    for (let start = 0; start < keys.length; start += BATCH_MAX) {
      const chunk = keys.slice(start, start + BATCH_MAX);
      let response;
      try {
        response = await batchClient.deleteBlobs(chunk.map((key) => container.getBlobClient(key)));
      } catch (error) {
        return rethrow(error);
      }
      // Sub-responses come back in the order of the sub-requests (the SDK orders them by Content-ID).
      chunk.forEach((key, index) => {
        const sub = response.subResponses[index];
        if (!sub) {
          result.errors.push({ key, message: 'Azure returned no answer for this key in the batch' });
        } else if ((sub.status >= 200 && sub.status < 300) || sub.errorCode === 'BlobNotFound') {
          result.deleted.push(key);
        } else {
          result.errors.push({ key, message: sub.errorCode ?? sub.statusMessage });
        }
      });
    }
    return result;
  }

  async copy(
    source: { bucket: string; key: string },
    target: { bucket: string; key: string },
    options: ServerCopyOptions = {},
  ): Promise<ServerCopyResult> {
    const sourceUrl = this.container(source.bucket).getBlobClient(source.key).url;
    // Azurite lacks the synchronous Copy Blob From URL, and real Azure needs the source readable by the copy
    // engine: a short read SAS on the source works for both.
    const sas = this.sas(source.bucket, source.key, 'r', COPY_SOURCE_SAS_SECONDS);
    try {
      // Copy Blob keeps the source's metadata only when given none: metadata to add is sent with the source's.
      const added = encodeMetadata(options.addMetadata);
      const metadata =
        added && Object.keys(added).length > 0
          ? {
              ...(await this.container(source.bucket).getBlobClient(source.key).getProperties()).metadata,
              ...added,
            }
          : undefined;
      const poller = await this.container(target.bucket)
        .getBlobClient(target.key)
        .beginCopyFromURL(`${sourceUrl}?${sas}`, {
          intervalInMs: COPY_POLL_INTERVAL_MS,
          ...(metadata ? { metadata } : {}),
          // Azure refuses (412) a source whose ETag is no longer the listed one.
          ...(options.ifMatch ? { sourceConditions: { ifMatch: `"${options.ifMatch}"` } } : {}),
        });
      const done = await poller.pollUntilDone();
      if (done.copyStatus && done.copyStatus !== 'success') {
        throw new StorageError('Unknown', `Azure ended the copy as ${done.copyStatus}`, 'azure');
      }
      // The copy's answer carries no Content-MD5 (the blob keeps the source's): callers read it with a stat.
      return { etag: stripQuotes(done.etag), md5: null };
    } catch (error) {
      return rethrow(error);
    }
  }

  async signedUrl(bucket: string, key: string, options: SignedUrlOptions): Promise<string> {
    const blobUrl = this.container(bucket).getBlobClient(key).url;
    const sas =
      options.method === 'GET'
        ? this.sas(
            bucket,
            key,
            'r',
            options.expiresInSeconds,
            options.downloadName ? contentDispositionFor(options.downloadName) : undefined,
          )
        : this.sas(bucket, key, 'cw', options.expiresInSeconds);
    return `${blobUrl}?${sas}`;
  }

  async close(): Promise<void> {
    // The pipeline keeps no resources of its own beyond Node's shared agent; nothing to release, twice is fine.
  }
}

/** `attachment` with an RFC 6266 file name that survives non-ASCII characters. */
function contentDispositionFor(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

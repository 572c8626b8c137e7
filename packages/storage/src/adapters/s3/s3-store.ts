import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetBucketLocationCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCopyCommand,
  type BucketLocationConstraint,
  type CompletedPart,
  type GetObjectCommandOutput,
  type HeadObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  StorageError,
  type BucketInfo,
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
  type WriteOptions,
  type WriteResult,
} from '../../object-store.ts';
import { bufferSmall, mapLimited } from '../shared.ts';
import { DEFAULT_PART_CONCURRENCY, PART_LIMITS, SINGLE_REQUEST_MAX, partSizeFor } from '../../part-size.ts';
import {
  DEFAULT_RETRY,
  type ConnectOptions,
  type RetryOptions,
  type S3Provider,
  type S3StoreConfig,
} from '../../store-config.ts';
import { s3Capabilities } from './s3-capabilities.ts';
import { s3DirectUpload } from './s3-direct-upload.ts';
import { copySourceOf } from './s3-multipart.ts';
import { s3Parts, signWithPayloadHash, useContentMd5ForParts } from './s3-parts.ts';
import {
  contentHeadersOfHttp,
  contentHeadersOfSdk,
  httpHeadersOf,
  replacingMetadata,
  sdkFieldsOf,
  taggingOf,
  UNTYPED,
} from './s3-content-headers.ts';
import { S3ObjectRequests, UNSIGNED_PAYLOAD, metadataOf, type ObjectAnswer } from './s3-object-requests.ts';
import { s3ClientConfig } from './s3-client-config.ts';
import { listingOf, withLeanListing, type ListedEntry, type ParsedListing } from './s3-list-xml.ts';
import { httpStatusOf, isAbortError, toStorageError } from './s3-errors.ts';

const MAX_PAGE_SIZE = 1000;
const DELETE_BATCH = 1000;
/** Part size when the total is unknown: the S3 minimum keeps memory per part in flight small. */
const UNKNOWN_SIZE_PART = PART_LIMITS.s3.minPart;
/** Bucket-region look-ups in flight when ListBuckets does not tell the region itself. */
const REGION_LOOKUPS = 8;
const SINGLE_PART_MD5 = /^[0-9a-f]{32}$/i;

const stripQuotes = (etag: string | undefined): string | null => (etag ? etag.replace(/^"+|"+$/g, '') : null);
/**
 * The MD5 an S3 ETag tells, when it tells one: a single-part object's ETag is the MD5 of its bytes, unless the
 * object is encrypted with SSE-KMS (`aws:kms`, `aws:kms:dsse`) or a customer key (SSE-C), whose ETags are not
 * (AWS, "Checking object integrity"). A listing cannot tell encryption; a GET, HEAD or CopyObject answer can.
 */
function md5OfEtag(etag: string | null, encryption: ObjectEncryption = {}): string | null {
  if (encryption.SSECustomerAlgorithm || encryption.ServerSideEncryption?.startsWith('aws:kms')) return null;
  return etag && SINGLE_PART_MD5.test(etag) ? etag : null;
}

const PARTS_ETAG = /^([0-9a-f]{32})-(\d+)$/i;
/** Providers whose ETag of an object uploaded in parts is the MD5 of its parts' MD5s, as AWS's is. */
const PARTS_MD5_PROVIDERS: ReadonlySet<S3Provider> = new Set(['aws', 'wasabi', 'genericS3']);

/**
 * The MD5 of the part MD5s an S3 ETag of an object uploaded in parts tells, with the part count; not under SSE-KMS
 * or a customer key (whose ETags are no MD5s of anything), nor from a provider whose parts ETag is something else.
 */
function partsMd5Of(
  provider: S3Provider,
  etag: string | null,
  encryption: ObjectEncryption,
): Pick<ObjectInfo, 'partsMd5'> {
  if (encryption.SSECustomerAlgorithm || encryption.ServerSideEncryption?.startsWith('aws:kms')) return {};
  const match = PARTS_MD5_PROVIDERS.has(provider) && etag ? PARTS_ETAG.exec(etag) : null;
  return match?.[1] ? { partsMd5: { md5: match[1].toLowerCase(), parts: Number(match[2]) } } : {};
}

/** The encryption an object answer tells, in the SDK's names (GetObject, HeadObject and CopyObject outputs). */
interface ObjectEncryption {
  ServerSideEncryption?: string | undefined;
  SSECustomerAlgorithm?: string | undefined;
}

/** The object info of a HeadObject or GetObject answer of the SDK. */
function infoOfSdkAnswer(
  provider: S3Provider,
  key: string,
  answer: HeadObjectCommandOutput | GetObjectCommandOutput,
): ObjectInfo {
  const etag = stripQuotes(answer.ETag);
  return {
    ...partsMd5Of(provider, etag, answer),
    key,
    size: answer.ContentLength ?? 0,
    lastModified: answer.LastModified ?? null,
    etag,
    md5: md5OfEtag(etag, answer),
    contentType: answer.ContentType ?? null,
    metadata: Object.fromEntries(
      Object.entries(answer.Metadata ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    ),
    contentHeaders: contentHeadersOfSdk(answer),
    ...(answer.TagCount ? { tagCount: answer.TagCount } : {}),
  };
}

export { copySourceOf };

/** RFC 6266 Content-Disposition that keeps non-ASCII download names intact. */
function attachmentOf(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** GetBucketLocation answers '' for us-east-1 and the legacy 'EU' for eu-west-1. */
function regionOfLocation(location: BucketLocationConstraint | string | undefined): string {
  if (!location) return 'us-east-1';
  return location === 'EU' ? 'eu-west-1' : location;
}

/**
 * DeleteObjects must carry a checksum; the SDK now sends CRC32, which S3-compatible stores that predate it refuse
 * ("Missing required header for this request: Content-MD5"). This is the SDK's documented MD5 fallback
 * (aws-sdk-js-v3 supplemental-docs/MD5_FALLBACK.md), for non-AWS endpoints only.
 */
function useContentMd5ForDeletes(client: S3Client): void {
  client.middlewareStack.addRelativeTo(
    <Args extends { request: unknown }, Output>(
      next: (args: Args) => Promise<Output>,
      context: { commandName?: string },
    ) =>
      async (args: Args): Promise<Output> => {
        const request = args.request;
        if (context.commandName !== 'DeleteObjectsCommand' || !isHttpRequestWithBody(request))
          return next(args);
        for (const header of Object.keys(request.headers)) {
          if (/^x-amz-(sdk-)?checksum-/i.test(header)) delete request.headers[header];
        }
        request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
        return next(args);
      },
    // After the SDK's checksum middleware (build step) has added its CRC32, before the request is signed.
    { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'cumuloDeleteObjectsContentMd5' },
  );
}

function isHttpRequestWithBody(
  request: unknown,
): request is { headers: Record<string, string>; body: string | Uint8Array } {
  if (typeof request !== 'object' || request === null) return false;
  const { headers, body } = request as { headers?: unknown; body?: unknown };
  return (
    typeof headers === 'object' &&
    headers !== null &&
    (typeof body === 'string' || body instanceof Uint8Array)
  );
}

function listedObject(entry: ListedEntry): ObjectInfo {
  const etag = stripQuotes(entry.etag ?? undefined);
  return {
    key: entry.key,
    size: entry.size,
    lastModified: entry.lastModified,
    etag,
    md5: md5OfEtag(etag),
    contentType: null,
    metadata: {},
  };
}

/**
 * The ObjectStore of the S3 family (aws, wasabi, backblaze, filebase, generic S3) on the AWS SDK v3, with one
 * long-lived S3Client per account.
 */
export class S3ObjectStore implements ObjectStore {
  readonly provider: S3Provider;
  readonly capabilities: ObjectStoreCapabilities;
  /** The account's one client, reused by every call (exposed for tests of its resolved settings). */
  readonly client: S3Client;
  /**
   * Presigning on AWS needs checksums off: with the SDK default, a presigned PUT carries the CRC32 of an empty
   * body and real uploads are refused. Signing opens no sockets, so this is not a second connection pool.
   */
  private readonly signer: S3Client;
  private accelerateSigner: S3Client | undefined;
  private readonly config: S3StoreConfig;
  private readonly retry: RetryOptions;
  private readonly connect: ConnectOptions;
  /** GetObject, PutObject and UploadPart without the SDK's middleware stack (s3-object-requests.ts). */
  private readonly requests: S3ObjectRequests;
  /** Clients of other regions, made once each, only to create buckets there (see createBucket). */
  private readonly regionClients = new Map<string, S3Client>();

  constructor(config: S3StoreConfig, retry: RetryOptions = DEFAULT_RETRY, connect: ConnectOptions = {}) {
    const clientConfig = s3ClientConfig(config, retry, connect);
    this.config = config;
    this.retry = retry;
    this.connect = connect;
    this.provider = config.provider;
    this.client = new S3Client(clientConfig);
    if (clientConfig.requestChecksumCalculation === 'WHEN_REQUIRED') useContentMd5ForDeletes(this.client);
    else useContentMd5ForParts(this.client);
    this.signer =
      clientConfig.requestChecksumCalculation === 'WHEN_REQUIRED'
        ? this.client
        : new S3Client({ ...clientConfig, requestChecksumCalculation: 'WHEN_REQUIRED' });
    this.requests = new S3ObjectRequests(this.client, this.signer, retry);
    this.capabilities = {
      ...s3Capabilities(this.client, config.provider),
      directUpload: s3DirectUpload(
        { client: this.client, signer: (accelerate) => this.presigner(accelerate) },
        config.provider,
      ),
      parts: s3Parts(this.client, config.provider, this.requests),
      // Where the parts ETag is AWS's: the layout serves to check a copy against it.
      ...(PARTS_MD5_PROVIDERS.has(config.provider)
        ? { partLayout: { statPart: (bucket, key, partNumber) => this.statPart(bucket, key, partNumber) } }
        : {}),
    };
  }

  /**
   * The accelerate endpoint exists only on AWS itself; an overridden endpoint (s3rver, private gateways) keeps
   * its own URLs. Made once, on first use: signing opens no sockets.
   */
  private presigner(accelerate: boolean): S3Client {
    if (!accelerate || this.config.provider !== 'aws' || this.config.endpoint !== undefined)
      return this.signer;
    this.accelerateSigner ??= new S3Client({
      ...s3ClientConfig(this.config, this.retry),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      useAccelerateEndpoint: true,
    });
    return this.accelerateSigner;
  }

  private fail(error: unknown, onHead = false): never {
    if (isAbortError(error)) throw error;
    throw toStorageError(error, this.provider, onHead);
  }

  async verify(): Promise<void> {
    try {
      await this.client.send(new ListBucketsCommand({}));
    } catch (error) {
      // Backblaze and Filebase keys may be limited to one bucket and then may not list buckets. AccessDenied still
      // proves the key id exists and the signature matched (bad keys answer InvalidAccessKeyId or
      // SignatureDoesNotMatch), so the credentials are valid.
      const restrictedKey =
        (this.provider === 'backblaze' || this.provider === 'filebase') &&
        toStorageError(error, this.provider).code === 'AccessDenied';
      if (!restrictedKey) this.fail(error);
    }
  }

  async listBuckets(): Promise<BucketInfo[]> {
    const buckets: Array<{ name: string; createdAt: Date | null; region: string | null }> = [];
    try {
      let token: string | undefined;
      do {
        // AWS includes each bucket's region only when the request is paginated (MaxBuckets).
        const page = await this.client.send(
          new ListBucketsCommand(
            this.provider === 'aws' ? { MaxBuckets: 10_000, ContinuationToken: token } : {},
          ),
        );
        for (const bucket of page.Buckets ?? []) {
          if (!bucket.Name) continue;
          buckets.push({
            name: bucket.Name,
            createdAt: bucket.CreationDate ?? null,
            region: bucket.BucketRegion ?? null,
          });
        }
        token = this.provider === 'aws' ? page.ContinuationToken : undefined;
      } while (token);
    } catch (error) {
      this.fail(error);
    }
    return mapLimited(buckets, REGION_LOOKUPS, async (bucket) => ({
      ...bucket,
      region: bucket.region ?? (await this.regionOf(bucket.name)),
    }));
  }

  /** A bucket's region when ListBuckets did not say: asked for aws and wasabi, fixed by the key elsewhere. */
  private async regionOf(bucket: string): Promise<string | null> {
    if (this.provider === 'backblaze' || this.provider === 'filebase')
      return await this.client.config.region();
    if (this.provider === 'genericS3') return null;
    try {
      const answer = await this.client.send(new GetBucketLocationCommand({ Bucket: bucket }));
      return regionOfLocation(answer.LocationConstraint);
    } catch {
      // A bucket whose location these credentials may not read is still listed, without a region.
      return null;
    }
  }

  /**
   * AWS and Wasabi create a bucket in another region only through that region's endpoint (Wasabi) or refuse a
   * location constraint that differs from the endpoint's region (AWS, outside us-east-1).
   */
  private async clientForRegion(region: string): Promise<S3Client> {
    const regional = this.config.provider === 'aws' || this.config.provider === 'wasabi';
    if (!regional || this.config.endpoint !== undefined || region === (await this.client.config.region())) {
      return this.client;
    }
    let client = this.regionClients.get(region);
    if (!client) {
      client = new S3Client(s3ClientConfig({ ...this.config, region }, this.retry, this.connect));
      this.regionClients.set(region, client);
    }
    return client;
  }

  async createBucket(name: string, options: { region?: string } = {}): Promise<void> {
    const region = options.region ?? (await this.client.config.region());
    try {
      const client = await this.clientForRegion(region);
      await client.send(
        new CreateBucketCommand({
          Bucket: name,
          // us-east-1 is the default location and S3 refuses it as an explicit constraint.
          ...(region === 'us-east-1'
            ? {}
            : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }),
        }),
      );
    } catch (error) {
      this.fail(error);
    }
  }

  async headBucket(name: string): Promise<{ region: string | null } | null> {
    try {
      const answer = await this.client.send(new HeadBucketCommand({ Bucket: name }));
      return { region: answer.BucketRegion ?? null };
    } catch (error) {
      if (httpStatusOf(error) === 404) return null;
      this.fail(error);
    }
  }

  async *list(bucket: string, options: ListOptions = {}): AsyncGenerator<ListPage> {
    const maxKeys = Math.min(Math.max(1, options.pageSize ?? MAX_PAGE_SIZE), MAX_PAGE_SIZE);
    let token = options.continuationToken || undefined;
    do {
      const command = new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: options.prefix || undefined,
        Delimiter: options.delimiter || undefined,
        MaxKeys: maxKeys,
        ContinuationToken: token,
      });
      const lean = withLeanListing(command);
      let listing: ParsedListing;
      try {
        const answer = await this.client.send(command);
        listing = lean.listing ?? listingOf(answer);
      } catch (error) {
        this.fail(error);
      }
      token = (listing.isTruncated && listing.nextContinuationToken) || undefined;
      yield {
        objects: listing.contents.map(listedObject),
        prefixes: listing.prefixes,
        continuationToken: token ?? null,
      };
    } while (token);
  }

  private async head(bucket: string, key: string): Promise<HeadObjectCommandOutput | null> {
    try {
      return await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      if (
        httpStatusOf(error) === 404 &&
        toStorageError(error, this.provider, true).code === 'ObjectNotFound'
      ) {
        return null;
      }
      this.fail(error, true);
    }
  }

  async stat(bucket: string, key: string): Promise<ObjectInfo | null> {
    const answer = await this.head(bucket, key);
    return answer && infoOfSdkAnswer(this.provider, key, answer);
  }

  /** HeadObject of one part: where it lies, and the part count (absent for an object written whole). */
  private async statPart(bucket: string, key: string, partNumber: number) {
    let answer: HeadObjectCommandOutput;
    try {
      answer = await this.client.send(
        new HeadObjectCommand({ Bucket: bucket, Key: key, PartNumber: partNumber }),
      );
    } catch (error) {
      // 416: no such part, as for part 2 of an object written whole.
      if (httpStatusOf(error) === 416) return null;
      this.fail(error, true);
    }
    if (!answer.PartsCount) return null;
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(answer.ContentRange ?? '');
    if (!range && partNumber !== 1) return null;
    return {
      start: range ? Number(range[1]) : 0,
      size: answer.ContentLength ?? 0,
      parts: answer.PartsCount,
      etag: stripQuotes(answer.ETag),
    };
  }

  async read(bucket: string, key: string, options: ReadOptions = {}): Promise<Readable> {
    const range = options.range ? `bytes=${options.range.start}-${options.range.end ?? ''}` : undefined;
    let answer: ObjectAnswer | null;
    try {
      answer = await this.requests.get(bucket, key, { range, signal: options.signal });
    } catch (error) {
      this.fail(error);
    }
    if (answer) {
      try {
        if (options.onInfo && !range) options.onInfo(this.infoOfAnswer(key, answer.headers));
      } catch (error) {
        // Nobody will read this body: let its socket go.
        answer.body.destroy();
        throw error;
      }
      return answer.body;
    }
    return this.readThroughSdk(bucket, key, range, options);
  }

  private infoOfAnswer(key: string, headers: Record<string, string>): ObjectInfo {
    const etag = stripQuotes(headers.etag);
    const modified = headers['last-modified'];
    const encryption = {
      ServerSideEncryption: headers['x-amz-server-side-encryption'],
      SSECustomerAlgorithm: headers['x-amz-server-side-encryption-customer-algorithm'],
    };
    return {
      ...partsMd5Of(this.provider, etag, encryption),
      key,
      size: Number(headers['content-length'] ?? 0),
      lastModified: modified ? new Date(modified) : null,
      etag,
      md5: md5OfEtag(etag, encryption),
      contentType: headers['content-type'] ?? null,
      metadata: metadataOf(headers),
      contentHeaders: contentHeadersOfHttp(headers),
      ...(Number(headers['x-amz-tagging-count']) > 0
        ? { tagCount: Number(headers['x-amz-tagging-count']) }
        : {}),
    };
  }

  /** GetObject through the SDK: for a bucket the direct requests handed back (a region redirect). */
  private async readThroughSdk(
    bucket: string,
    key: string,
    range: string | undefined,
    options: ReadOptions,
  ): Promise<Readable> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }),
        {
          abortSignal: options.signal,
        },
      );
      if (!(answer.Body instanceof Readable)) {
        throw new StorageError('Unknown', 'The provider answered without a body', this.provider);
      }
      if (options.onInfo && !range) options.onInfo(infoOfSdkAnswer(this.provider, key, answer));
      return answer.Body;
    } catch (error) {
      this.fail(error);
    }
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
      // Held in memory (at most SINGLE_REQUEST_MAX) so a retry can send it again.
      const payload = Buffer.isBuffer(body) ? body : await bufferSmall(body);
      // Only for a Buffer body: a stream read here was never hashed by the caller.
      const callerMd5 = Buffer.isBuffer(body) ? options.md5 : undefined;
      const callerSha256 = Buffer.isBuffer(body) ? options.sha256 : undefined;
      // The store checks the body against it and refuses damaged bytes (BadDigest), which also binds the body to
      // the signature without a SHA-256 pass over it.
      const contentMd5 = Buffer.from(
        callerMd5 ?? createHash('md5').update(payload).digest('hex'),
        'hex',
      ).toString('base64');
      const tagging = taggingOf(options.tags);
      let answer: ObjectAnswer | null;
      try {
        answer = await this.requests.put(bucket, key, payload, {
          headers: {
            'content-md5': contentMd5,
            'content-type': options.contentType || UNTYPED,
            ...httpHeadersOf(options.contentHeaders),
            ...Object.fromEntries(
              Object.entries(options.metadata ?? {}).map(([name, value]) => [`x-amz-meta-${name}`, value]),
            ),
            ...(tagging ? { 'x-amz-tagging': tagging } : {}),
          },
          payloadHash: callerSha256 ?? UNSIGNED_PAYLOAD,
          signal: options.signal,
        });
      } catch (error) {
        this.fail(error);
      }
      answer?.body.resume();
      const etag = answer
        ? stripQuotes(answer.headers.etag)
        : await this.putThroughSdk(bucket, key, payload, contentMd5, callerSha256, options);
      options.onProgress?.(payload.length);
      // S3 refuses a PutObject whose bytes do not match its Content-MD5 (BadDigest).
      return { etag, size: payload.length, md5Checked: callerMd5 !== undefined };
    }
    return this.writeInParts(bucket, key, body, size, options);
  }

  /** PutObject through the SDK: for a bucket the direct requests handed back (a region redirect). */
  private async putThroughSdk(
    bucket: string,
    key: string,
    payload: Buffer,
    contentMd5: string,
    sha256: string | undefined,
    options: WriteOptions,
  ): Promise<string | null> {
    try {
      const command = new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: payload,
        ContentLength: payload.length,
        ContentType: options.contentType || UNTYPED,
        ...sdkFieldsOf(options.contentHeaders),
        Metadata: options.metadata,
        Tagging: taggingOf(options.tags),
        ContentMD5: contentMd5,
      });
      if (sha256) signWithPayloadHash(command, sha256);
      const answer = await this.client.send(command, { abortSignal: options.signal });
      return stripQuotes(answer.ETag);
    } catch (error) {
      this.fail(error);
    }
  }

  private async writeInParts(
    bucket: string,
    key: string,
    body: Readable | Buffer,
    size: number | undefined,
    options: WriteOptions,
  ): Promise<WriteResult> {
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentType: options.contentType || UNTYPED,
        ...sdkFieldsOf(options.contentHeaders),
        Metadata: options.metadata,
        Tagging: taggingOf(options.tags),
        ...(size === undefined ? {} : { ContentLength: size }),
      },
      partSize: size === undefined ? UNKNOWN_SIZE_PART : partSizeFor(this.provider, size),
      queueSize: options.concurrency ?? DEFAULT_PART_CONCURRENCY,
      leavePartsOnError: false,
    });
    let written = 0;
    upload.on('httpUploadProgress', (progress) => {
      if (progress.loaded === undefined || progress.loaded <= written) return;
      written = progress.loaded;
      options.onProgress?.(written);
    });
    const onAbort = () => void upload.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = await upload.done();
      const total = size ?? written;
      if (written !== total) options.onProgress?.(total);
      return { etag: stripQuotes(answer.ETag), size: total };
    } catch (error) {
      await this.abandonUpload(bucket, key, upload.uploadId);
      return this.fail(error);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * lib-storage aborts the multipart upload itself, but only once its in-flight parts have settled and after
   * done() has already rejected; aborting here too frees the parts before write() returns. A provider refusing
   * AbortMultipartUpload (some S3 implementations answer 405) or an upload already gone (NoSuchUpload) leaves
   * nothing to do.
   */
  private async abandonUpload(bucket: string, key: string, uploadId: string | undefined): Promise<void> {
    if (!uploadId) return;
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }),
      );
    } catch {
      // The write already failed; its own error is the one the caller needs to see.
    }
  }

  async deleteMany(bucket: string, keys: string[]): Promise<DeleteResult> {
    const result: DeleteResult = { deleted: [], errors: [] };
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH);
      let answer;
      try {
        answer = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: batch.map((key) => ({ Key: key })), Quiet: true },
          }),
        );
      } catch (error) {
        this.fail(error);
      }
      const failed = new Map<string, string>();
      for (const failure of answer.Errors ?? []) {
        // A key that is already gone is what the caller wanted.
        if (!failure.Key || failure.Code === 'NoSuchKey') continue;
        failed.set(failure.Key, failure.Message ?? failure.Code ?? 'Could not delete the object');
      }
      for (const key of batch) {
        const message = failed.get(key);
        if (message === undefined) result.deleted.push(key);
        else result.errors.push({ key, message });
      }
    }
    return result;
  }

  async copy(
    source: { bucket: string; key: string },
    target: { bucket: string; key: string },
    options: ServerCopyOptions = {},
  ): Promise<ServerCopyResult> {
    const copySource = copySourceOf(source.bucket, source.key);
    // The source's condition travels with each call that reads it: S3 refuses (412) a source whose ETag changed.
    const ifMatch = options.ifMatch ? `"${options.ifMatch}"` : undefined;
    const added = options.addMetadata ?? {};
    const adding = Object.keys(added).length > 0;
    // A size known from the listing spares the HEAD that only chooses between one call and part copies; metadata
    // to add needs it anyway, for everything the copy must then set again.
    let head: HeadObjectCommandOutput | null = null;
    if (options.size === undefined || adding) head = await this.headToCopy(source);
    const size = options.size ?? head?.ContentLength ?? 0;
    if (size <= PART_LIMITS.s3.maxPart) {
      try {
        const answer = await this.client.send(
          new CopyObjectCommand({
            Bucket: target.bucket,
            Key: target.key,
            CopySource: copySource,
            CopySourceIfMatch: ifMatch,
            ...(adding && head ? replacingMetadata(head, added) : {}),
          }),
        );
        const etag = stripQuotes(answer.CopyObjectResult?.ETag);
        return { etag, md5: md5OfEtag(etag, answer) };
      } catch (error) {
        this.fail(error);
      }
    }
    // Part copies need the source's type and metadata for the new upload.
    return this.copyInParts(source, head ?? (await this.headToCopy(source)), size, target, ifMatch, added);
  }

  private async headToCopy(source: { bucket: string; key: string }): Promise<HeadObjectCommandOutput> {
    const head = await this.head(source.bucket, source.key);
    if (!head)
      throw new StorageError('ObjectNotFound', 'The object to copy does not exist', this.provider, 404);
    return head;
  }

  /** CopyObject stops at 5 GiB; larger objects are copied part by part on the provider's side. */
  private async copyInParts(
    source: { bucket: string; key: string },
    head: HeadObjectCommandOutput,
    size: number,
    target: { bucket: string; key: string },
    ifMatch: string | undefined,
    added: Record<string, string>,
  ): Promise<ServerCopyResult> {
    const copySource = copySourceOf(source.bucket, source.key);
    let uploadId: string | undefined;
    try {
      const created = await this.client.send(
        new CreateMultipartUploadCommand({
          Bucket: target.bucket,
          Key: target.key,
          ContentType: head.ContentType,
          ...sdkFieldsOf(contentHeadersOfSdk(head)),
          Metadata: { ...head.Metadata, ...added },
          // CopyObject keeps the source's tags by itself; an upload starts with none.
          Tagging: head.TagCount
            ? taggingOf(await this.capabilities.objectTags?.get(source.bucket, source.key))
            : undefined,
        }),
      );
      uploadId = created.UploadId;
      const partSize = partSizeFor(this.provider, size);
      const ranges = Array.from({ length: Math.ceil(size / partSize) }, (_, index) => ({
        partNumber: index + 1,
        first: index * partSize,
        last: Math.min(size, (index + 1) * partSize) - 1,
      }));
      const parts = await mapLimited(
        ranges,
        DEFAULT_PART_CONCURRENCY,
        async (range): Promise<CompletedPart> => {
          const answer = await this.client.send(
            new UploadPartCopyCommand({
              Bucket: target.bucket,
              Key: target.key,
              UploadId: uploadId,
              PartNumber: range.partNumber,
              CopySource: copySource,
              CopySourceRange: `bytes=${range.first}-${range.last}`,
              CopySourceIfMatch: ifMatch,
            }),
          );
          return { PartNumber: range.partNumber, ETag: answer.CopyPartResult?.ETag };
        },
      );
      const completed = await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: target.bucket,
          Key: target.key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
      // A multipart ETag is not the content's MD5.
      return { etag: stripQuotes(completed.ETag), md5: null };
    } catch (error) {
      await this.abandonUpload(target.bucket, target.key, uploadId);
      return this.fail(error);
    }
  }

  async signedUrl(bucket: string, key: string, options: SignedUrlOptions): Promise<string> {
    if (options.method === 'GET') {
      const query: Record<string, string> = options.downloadName
        ? { 'response-content-disposition': attachmentOf(options.downloadName) }
        : {};
      try {
        const url = await this.requests.presignGet(bucket, key, options.expiresInSeconds, query);
        if (url !== null) return url;
      } catch (error) {
        this.fail(error);
      }
    }
    const command =
      options.method === 'GET'
        ? new GetObjectCommand({
            Bucket: bucket,
            Key: key,
            ResponseContentDisposition: options.downloadName ? attachmentOf(options.downloadName) : undefined,
          })
        : new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: options.contentType });
    try {
      return await getSignedUrl(this.signer, command, { expiresIn: options.expiresInSeconds });
    } catch (error) {
      this.fail(error);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
    if (this.signer !== this.client) this.signer.destroy();
    this.accelerateSigner?.destroy();
    this.accelerateSigner = undefined;
    for (const client of this.regionClients.values()) client.destroy();
    this.regionClients.clear();
  }
}

import type { Readable } from 'node:stream';
import { PROVIDER_NAMES, type ProviderName } from '@cumulo/contract';

/** Provider families Cumulo connects (spec 000 §1); the list lives once, in the contract. */
export const PROVIDERS = PROVIDER_NAMES;
export type Provider = ProviderName;

export interface BucketInfo {
  name: string;
  /** Region or location; null when the provider does not say. */
  region: string | null;
  createdAt: Date | null;
}

/**
 * An object's content headers besides its type, which every provider keeps with the object and serves with its
 * bytes (S3's headers, Azure's blob properties, GCS's resource fields): a copy that dropped them would serve a
 * gzip-encoded page as garbage or a download without its file name. Absent fields are not set on the object.
 */
export interface ContentHeaders {
  cacheControl?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  contentLanguage?: string;
}

export interface ObjectInfo {
  key: string;
  size: number;
  lastModified: Date | null;
  /** The provider's entity tag without quotes (S3: MD5 of single-part uploads; Azure: opaque). */
  etag: string | null;
  /** Hex MD5 of the content when the provider exposes a comparable one (S3 single-part ETag, Azure Content-MD5, GCS md5Hash). */
  md5: string | null;
  contentType: string | null;
  /** User metadata (lower-case keys); Cumulo stores `cumulo-sha256` here when it computed one. */
  metadata: Record<string, string>;
  /**
   * Content headers, from a stat or a read's answer (and from listings where they carry them: GCS). Absent when
   * the answer did not tell them (S3 and Azure listings); an empty object when the object has none.
   */
  contentHeaders?: ContentHeaders;
  /**
   * S3's ETag of an object uploaded in parts when it is the MD5 of the parts' MD5s (`<hex>-<count>`): not under
   * SSE-KMS or a customer key. A copy written with the same part sizes has the same one, which is how such an
   * object's bytes can be checked against the source at all. From stats and reads, never from listings (a
   * listing cannot tell the encryption).
   */
  partsMd5?: { md5: string; parts: number };
  /**
   * How many tags the object has, where its answer tells it (S3's GET and HEAD: `x-amz-tagging-count`, absent when
   * there are none). Never from listings. A copy asks for the tags themselves only when this says there are some.
   */
  tagCount?: number;
}

export interface ListOptions {
  prefix?: string;
  /** '/' lists one level (folders as `prefixes`); omitted lists every key under the prefix. */
  delimiter?: string;
  /** Objects per page; adapters clamp to the provider's maximum (1000 for S3 and GCS, 5000 for Azure). */
  pageSize?: number;
  /** Resume a listing from the token of an earlier page. */
  continuationToken?: string;
}

/** One page of a listing: keys in lexicographic (UTF-8 byte) order within the page and across pages. */
export interface ListPage {
  objects: ObjectInfo[];
  /** Common prefixes ("folders") when a delimiter was given, each ending with the delimiter. */
  prefixes: string[];
  /** Present when more pages follow. */
  continuationToken: string | null;
}

export interface ReadOptions {
  /** Byte range, both ends inclusive (HTTP Range semantics); `end` omitted reads to the end. */
  range?: { start: number; end?: number };
  signal?: AbortSignal;
  /**
   * For a whole-object read: called with the object's info from the read's own answer (before the body is
   * consumed), which spares a stat before reading. Adapters whose read answer lacks it never call it.
   */
  onInfo?: (info: ObjectInfo) => void;
}

export interface WriteOptions {
  contentType?: string;
  contentHeaders?: ContentHeaders;
  /**
   * Hex MD5 of a Buffer body: sent as Content-MD5 so the store refuses bytes damaged on the way, and kept as the
   * object's comparable MD5 where the provider stores one (Azure Content-MD5).
   */
  md5?: string;
  /**
   * Hex SHA-256 of a Buffer body the caller already computed: an S3 adapter signs the request with it (SigV4's
   * payload hash) instead of hashing the body a second time.
   */
  sha256?: string;
  metadata?: Record<string, string>;
  /** The object's tags, on stores that declare `objectTags` (others take none). */
  tags?: Record<string, string>;
  /** Total size when known: lets the adapter pick a single request or a part size within provider limits. */
  size?: number;
  /** Parts in flight for multipart writes. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called with the bytes written so far. */
  onProgress?: (bytesWritten: number) => void;
}

export interface ServerCopyOptions {
  /**
   * Copy only while the source still has this ETag (S3 `x-amz-copy-source-if-match`, Azure's source If-Match): a
   * source changed since it was listed is refused with status 412 instead of copied. GCS has no ETag condition
   * on a copy, and some S3-compatible servers (s3rver) ignore it: callers verify the copy's checksum either way.
   */
  ifMatch?: string;
  /** The source's size when the caller knows it (from a listing): spares the adapter a HEAD before the copy. */
  size?: number;
  /**
   * User metadata added to the source's on the copy (the transfer engine's record of the source version it
   * copied). The copy keeps the source's content type, content headers and other metadata as a plain copy does;
   * adding costs the adapter a look at the source (S3, Azure) or a metadata update after the copy (GCS).
   */
  addMetadata?: Record<string, string>;
}

export interface ServerCopyResult {
  etag: string | null;
  /** Hex MD5 of the copy's content, when the store's answer to the copy tells it. */
  md5: string | null;
}

export interface WriteResult {
  etag: string | null;
  size: number;
  /** True when the store itself checked `WriteOptions.md5` against the bytes it received and stored them. */
  md5Checked?: boolean;
}

export interface DeleteResult {
  deleted: string[];
  errors: Array<{ key: string; message: string }>;
}

export interface SignedUrlOptions {
  method: 'GET' | 'PUT';
  expiresInSeconds: number;
  contentType?: string;
  /** For GET: ask the browser to save with this file name. */
  downloadName?: string;
}

/** An access grant in the provider's terms (S3 ACL grants; stores without ACLs do not offer the capability). */
export interface AclGrant {
  grantee: { type: 'user'; id: string } | { type: 'email'; email: string } | { type: 'group'; uri: string };
  permission: 'READ' | 'WRITE' | 'READ_ACP' | 'WRITE_ACP' | 'FULL_CONTROL';
}

export interface CorsRule {
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds: number;
}

/** One upload the browser sends straight to the store, in parts (see `ObjectStoreCapabilities.directUpload`). */
export interface DirectUploadRef {
  bucket: string;
  key: string;
  /** The provider's handle: S3 UploadId, the Azure block-id prefix, the GCS resumable session URI. */
  uploadId: string;
  size: number;
  partSize: number;
}

/** Where the browser sends one request, and the headers it must send with it. */
export interface DirectUploadTarget {
  partNumber: number;
  url: string;
  headers: Record<string, string>;
}

/**
 * A browser form upload (S3 POST Object) of many small files under one key prefix, signed once: the browser sends
 * `fields`, then `key`, `Content-Type` and `file`, as multipart/form-data to `url`. Being a plain form POST, it
 * needs no CORS preflight (a PUT does, per file), so a folder of thousands costs one request per file.
 */
export interface DirectUploadForm {
  url: string;
  /** The fields every file's form carries. */
  fields: Record<string, string>;
  /** Per file, in the order asked: its own policy (that exact key, that exact size) and signature. */
  perFile: Array<Record<string, string>>;
}

/** A part the provider already holds. */
export interface DirectUploadPart {
  partNumber: number;
  size: number;
  /** S3: the part's ETag (needed to complete); null where the provider does not use one. */
  etag: string | null;
}

export interface DirectUploadStartOptions {
  size: number;
  partSize: number;
  contentType?: string;
  /** An S3 canned ACL (spec 001 §9 access control options); providers without object ACLs ignore it. */
  acl?: string;
  /** The browser's origin: a GCS resumable session answers CORS only to the origin that opened it. */
  origin?: string;
}

export interface DirectUploadSignOptions {
  expiresInSeconds: number;
  /** aws: sign for the transfer-acceleration endpoint. */
  accelerate?: boolean;
}

/** An upload in parts the server sends itself (see `ObjectStoreCapabilities.parts`). */
export interface PartsUploadRef {
  bucket: string;
  key: string;
  /** The provider's handle: S3 UploadId, the Azure block-id prefix. */
  uploadId: string;
}

export interface PartsStartOptions {
  contentType?: string;
  /** Content headers: S3 fixes them when the upload starts, Azure when it completes; callers pass them to both. */
  contentHeaders?: ContentHeaders;
  /** User metadata. S3 fixes it when the upload starts; Azure when it completes: callers pass it to both. */
  metadata?: Record<string, string>;
  /** The object's tags, on stores that declare `objectTags`: S3 fixes them when the upload starts, Azure when it
   * completes: callers pass them to both. */
  tags?: Record<string, string>;
}

/** A part read from a stream, of exactly `length` bytes (sent as Content-Length). */
export interface StreamedPartBody {
  stream: Readable;
  length: number;
}

export type PartBody = Buffer | StreamedPartBody;

export interface PartAnswer {
  etag: string | null;
  /**
   * Hex MD5 of the part as the store computed it from the bytes it received, when its answer tells it (S3: the
   * part ETag, except under SSE-KMS or SSE-C, where it is no MD5); null otherwise.
   */
  md5: string | null;
}

export interface PartsCompleteOptions {
  contentType?: string;
  contentHeaders?: ContentHeaders;
  metadata?: Record<string, string>;
  /** Hex MD5 of the whole object, kept as its comparable MD5 where the provider stores one (Azure Content-MD5). */
  md5?: string;
  /** The object's tags, on stores that declare `objectTags`: Azure sets them when the blocks are committed. */
  tags?: Record<string, string>;
}

/**
 * Provider-only features are optional capabilities an adapter declares (STYLE.md: not base methods that throw).
 */
export interface ObjectStoreCapabilities {
  /**
   * Listings carry each object's user metadata (Azure asks for it; GCS's objects.list answers whole object
   * resources): a stat would tell nothing more about it. S3's ListObjectsV2 carries none, so there Cumulo's
   * checksums and source ETag on an object are seen by a stat.
   */
  metadataInListings?: true;
  acl?: {
    getBucketAcl(bucket: string): Promise<AclGrant[]>;
    putBucketAcl(bucket: string, grants: AclGrant[]): Promise<void>;
  };
  cors?: {
    getCors(bucket: string): Promise<CorsRule[]>;
    putCors(bucket: string, rules: CorsRule[]): Promise<void>;
  };
  accelerate?: {
    getAccelerate(bucket: string): Promise<boolean>;
    putAccelerate(bucket: string, enabled: boolean): Promise<void>;
  };
  versioning?: {
    getVersioning(bucket: string): Promise<'enabled' | 'suspended' | 'off'>;
    putVersioning(bucket: string, enabled: boolean): Promise<void>;
  };
  lifecycle?: {
    /** Abort incomplete multipart uploads after N days (the only lifecycle rule Cumulo manages). */
    putAbortIncompleteUploads(bucket: string, days: number): Promise<void>;
  };
  tags?: {
    getBucketTags(bucket: string): Promise<Record<string, string>>;
    putBucketTags(bucket: string, tags: Record<string, string>): Promise<void>;
  };
  /**
   * Object tags (S3 tag sets, Azure blob index tags: up to 10 name/value pairs per object): read here, written
   * with the object (`WriteOptions.tags`; in parts `PartsStartOptions.tags` for S3, `PartsCompleteOptions.tags`
   * for Azure). S3's CopyObject keeps them; Azure's Copy Blob does not. Azure's rules for names and values are
   * stricter than S3's. A copy between stores that declare it carries the tags, as AWS DataSync does.
   */
  objectTags?: {
    get(bucket: string, key: string): Promise<Record<string, string>>;
  };
  /**
   * Writes in parts that the server sends itself (the transfer engine): the caller keeps each finished part, so a
   * copy interrupted by a crash resumes from its finished parts instead of starting over. Parts may be sent in
   * any order and in parallel.
   */
  parts?: {
    /** Provider limits: part sizes (bytes) and the largest part count. */
    readonly limits: { minPart: number; maxPart: number; maxParts: number };
    start(bucket: string, key: string, options: PartsStartOptions): Promise<string>;
    /**
     * Sends one part (1-based). A Buffer body goes with its `md5` (hex) as Content-MD5, so the store checks the
     * bytes on arrival. A streamed body goes with its Content-Length and no Content-MD5 (it is not known before the
     * last byte): a body that ends short or runs long fails the call and leaves no part; its bytes are checked by
     * comparing the caller's own MD5 of them with the answer's `md5`.
     */
    uploadPart(
      upload: PartsUploadRef,
      partNumber: number,
      body: PartBody,
      options?: { md5?: string; signal?: AbortSignal },
    ): Promise<PartAnswer>;
    /**
     * The store answers each part with the MD5 of the bytes it received (S3's part ETag), so a streamed part can
     * be checked without Content-MD5: the transfer engine streams parts only to stores that declare this.
     */
    readonly answersPartMd5?: true;
    /**
     * Server-side: one part copied from a byte range (inclusive) of an object of the same store (S3
     * UploadPartCopy, Azure Put Block From URL); no bytes pass through Cumulo. Absent where the store cannot.
     */
    copyPart?(
      upload: PartsUploadRef,
      partNumber: number,
      source: { bucket: string; key: string },
      range: { start: number; end: number },
      options: { signal?: AbortSignal },
    ): Promise<{ etag: string | null }>;
    /** The parts the store holds, in part order. */
    listParts(upload: PartsUploadRef): Promise<DirectUploadPart[]>;
    complete(
      upload: PartsUploadRef,
      parts: Array<{ partNumber: number; etag: string | null }>,
      options: PartsCompleteOptions,
    ): Promise<{ etag: string | null }>;
    /** Discards the upload and its parts; an upload already gone is fine. */
    abort(upload: PartsUploadRef): Promise<void>;
    /**
     * The uploads in progress of exactly `key` (S3 ListMultipartUploads), with when the store opened each (null
     * when it does not tell). Where an opening can go unanswered (the store opened it, the answer was lost), this
     * is how the upload is found again. Absent where opening an upload asks the store nothing (Azure's block ids).
     */
    listUploads?(bucket: string, key: string): Promise<Array<{ uploadId: string; initiated: Date | null }>>;
  };
  /**
   * Where the parts of an object uploaded in parts lie (S3: HeadObject with `partNumber`). Stores that do not
   * keep the layout answer null, as for an object written whole.
   */
  partLayout?: {
    /**
     * Part `partNumber` (1-based) of the object: its first byte and size, and the object's part count and ETag.
     * Null when the object was not uploaded in parts (or the store does not tell); ObjectNotFound when it is gone.
     */
    statPart(
      bucket: string,
      key: string,
      partNumber: number,
    ): Promise<{ start: number; size: number; parts: number; etag: string | null } | null>;
  };
  /**
   * Uploads the browser sends straight to the store (spec 001 "Direct upload"): the server opens, signs,
   * lists, completes and aborts; the bytes never pass through Cumulo.
   */
  directUpload?: {
    /** Opens an upload in parts and returns the provider's handle for it. */
    start(bucket: string, key: string, options: DirectUploadStartOptions): Promise<string>;
    /** Short-lived URLs for the given parts (1-based). */
    signParts(
      upload: DirectUploadRef,
      partNumbers: number[],
      options: DirectUploadSignOptions,
    ): Promise<DirectUploadTarget[]>;
    /** One URL for a file sent in a single request (no upload handle). */
    signSingle(
      bucket: string,
      key: string,
      options: DirectUploadSignOptions & { contentType?: string; acl?: string },
    ): Promise<DirectUploadTarget>;
    /**
     * Signed forms for many small files in one go, each policy naming its file's exact key and size, so a form
     * writes nothing but the object its session is for (providers with a POST policy only; the others sign each
     * file with `signSingle`).
     */
    signForm?(
      bucket: string,
      options: { files: Array<{ key: string; size: number }>; expiresInSeconds: number; acl?: string },
    ): Promise<DirectUploadForm>;
    /** The parts the provider already holds (resuming after a reload), in part order. */
    listParts(upload: DirectUploadRef): Promise<DirectUploadPart[]>;
    /** Assembles the object from its parts. */
    complete(
      upload: DirectUploadRef,
      parts: Array<{ partNumber: number; etag: string | null }>,
      options: { contentType?: string },
    ): Promise<{ etag: string | null }>;
    /** Discards the upload so that nothing partial stays with the provider; an upload already gone is fine. */
    abort(upload: DirectUploadRef): Promise<void>;
  };
}

/**
 * The one storage contract every provider adapter implements. Adapters hold no business logic, read no
 * environment, and keep one SDK client per account for their lifetime.
 */
export interface ObjectStore {
  readonly provider: Provider;
  readonly capabilities: ObjectStoreCapabilities;
  /** Checks the credentials with a real call; throws StorageError('InvalidCredentials' | 'AccessDenied' | …). */
  verify(): Promise<void>;
  listBuckets(): Promise<BucketInfo[]>;
  createBucket(name: string, options?: { region?: string }): Promise<void>;
  /** null when the bucket does not exist (or is not visible to these credentials). */
  headBucket(name: string): Promise<{ region: string | null } | null>;
  /** Pages of a listing, fetched lazily: memory stays one page whatever the bucket size. */
  list(bucket: string, options?: ListOptions): AsyncIterable<ListPage>;
  /** null when the object does not exist. */
  stat(bucket: string, key: string): Promise<ObjectInfo | null>;
  read(bucket: string, key: string, options?: ReadOptions): Promise<Readable>;
  /** Writes a stream or buffer; multipart above the provider threshold; an aborted write leaves no object. */
  write(bucket: string, key: string, body: Readable | Buffer, options?: WriteOptions): Promise<WriteResult>;
  /** Deletes many keys, in provider-sized batches (1000 for S3); missing keys count as deleted. */
  deleteMany(bucket: string, keys: string[]): Promise<DeleteResult>;
  /**
   * Server-side copy within this store (no bytes through Cumulo). Answers the copy's ETag, and its MD5 when the
   * store's answer tells it (S3's single-part ETag, GCS's md5Hash), so a caller can verify without a HEAD.
   */
  copy(
    source: { bucket: string; key: string },
    target: { bucket: string; key: string },
    options?: ServerCopyOptions,
  ): Promise<ServerCopyResult>;
  /** A presigned (S3), SAS (Azure) or signed (GCS) URL. */
  signedUrl(bucket: string, key: string, options: SignedUrlOptions): Promise<string>;
  /** Releases the SDK client's sockets. */
  close(): Promise<void>;
}

export type StorageErrorCode =
  | 'InvalidCredentials'
  | 'AccessDenied'
  | 'BucketNotFound'
  | 'ObjectNotFound'
  | 'BucketAlreadyExists'
  | 'InvalidBucketName'
  | 'Throttled'
  | 'Unsupported'
  | 'Network'
  /**
   * The object is in an archive storage class and cannot be read until it is restored (S3 Glacier Flexible
   * Retrieval and Deep Archive, Intelligent-Tiering's archive tiers; Azure's Archive tier, or a rehydration under
   * way). Retrying does not help: the owner must restore it, which takes hours.
   */
  | 'Archived'
  | 'Unknown';

/** The one error adapters throw: a stable code, the provider's own message (safe to show) and its HTTP status. */
export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly provider: Provider,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StorageError';
  }
}

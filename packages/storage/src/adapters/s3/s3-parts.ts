import {
  CopyObjectCommand,
  HeadObjectCommand,
  UploadPartCommand,
  type PutObjectCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import {
  StorageError,
  type ObjectStoreCapabilities,
  type PartAnswer,
  type PartsUploadRef,
  type StreamedPartBody,
} from '../../object-store.ts';
import { bufferSmall } from '../shared.ts';
import { isStreamedBody, sendableStream } from '../streamed-part.ts';
import { PART_LIMITS } from '../../part-size.ts';
import type { S3Provider } from '../../store-config.ts';
import { isAbortError, toStorageError } from './s3-errors.ts';
import { replacingMetadata } from './s3-content-headers.ts';
import { UNSIGNED_PAYLOAD, type S3ObjectRequests } from './s3-object-requests.ts';
import {
  abortUpload,
  completeUpload,
  copySourceOf,
  createUpload,
  listKeyUploads,
  listUploadParts,
  stripQuotes,
} from './s3-multipart.ts';

type Parts = NonNullable<ObjectStoreCapabilities['parts']>;

/**
 * Multipart uploads the server sends itself (the transfer engine), on the account's one client. Each part carries
 * the Content-MD5 the engine computed, so the store refuses a part damaged on the way (BadDigest) instead of
 * assembling it into the object.
 */
export function s3Parts(client: S3Client, provider: S3Provider, requests?: S3ObjectRequests): Parts {
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (isAbortError(error)) throw error;
      throw toStorageError(error, provider);
    }
  };
  return {
    limits: { ...PART_LIMITS.s3 },

    start: (bucket, key, options) =>
      call(() =>
        createUpload(client, bucket, key, {
          contentType: options.contentType,
          contentHeaders: options.contentHeaders,
          metadata: options.metadata,
          tags: options.tags,
        }),
      ),

    // The part's Content-MD5 is signed and the store checks the body against it: signing the body's SHA-256 as
    // well would only add a second hash pass over every byte (the dearest CPU work of a large copy). A streamed
    // part goes unsigned and without Content-MD5; the caller checks the part ETag S3 answers (the MD5 of what it
    // received) against its own MD5 of the bytes, taken as they streamed past.
    uploadPart: (upload, partNumber, body, options = {}) =>
      isStreamedBody(body)
        ? uploadStreamedPart(client, provider, requests, upload, partNumber, body, options.signal)
        : call(async () => {
            const contentMd5 = Buffer.from(options.md5 ?? md5Hex(body), 'hex').toString('base64');
            const direct = await requests?.put(upload.bucket, upload.key, body, {
              headers: { 'content-md5': contentMd5 },
              payloadHash: UNSIGNED_PAYLOAD,
              query: { partNumber: String(partNumber), uploadId: upload.uploadId },
              signal: options.signal,
            });
            if (direct) {
              direct.body.resume();
              return partAnswerOf(direct.headers.etag, direct.headers);
            }
            return sdkUploadPart(client, upload, partNumber, body, contentMd5, options.signal);
          }),

    answersPartMd5: true,

    copyPart: (upload, partNumber, source, range, options) =>
      call(async () => {
        const answer = await client.send(
          new UploadPartCopyCommand({
            Bucket: upload.bucket,
            Key: upload.key,
            UploadId: upload.uploadId,
            PartNumber: partNumber,
            CopySource: copySourceOf(source.bucket, source.key),
            CopySourceRange: `bytes=${range.start}-${range.end}`,
          }),
          { abortSignal: options.signal },
        );
        return { etag: stripQuotes(answer.CopyPartResult?.ETag) };
      }),

    listParts: (upload) => call(() => listUploadParts(client, upload)),

    // S3 fixed content type and metadata when the upload started; it keeps no whole-object MD5 of its own.
    complete: (upload, parts, options) =>
      call(async () => {
        const result = await completeUpload(client, upload, parts);
        if (!options.metadata || Object.keys(options.metadata).length === 0) return result;
        return (await addMetadataAfterwards(client, upload, options)) ?? result;
      }),

    abort: (upload) => call(() => abortUpload(client, upload)),

    listUploads: (bucket, key) => call(() => listKeyUploads(client, bucket, key)),
  };
}

const md5Hex = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/**
 * A part ETag is the MD5 of the part's bytes unless the object is encrypted with a KMS or customer key (S3 says
 * so in the answer's server-side-encryption headers): then it is no checksum the caller could compare.
 */
function partAnswerOf(etag: string | undefined, headers: Record<string, string | undefined>): PartAnswer {
  const tag = stripQuotes(etag);
  const encryption = headers['x-amz-server-side-encryption'] ?? '';
  const keyed =
    encryption.startsWith('aws:kms') || headers['x-amz-server-side-encryption-customer-algorithm'];
  return { etag: tag, md5: tag && !keyed && /^[0-9a-f]{32}$/i.test(tag) ? tag.toLowerCase() : null };
}

async function sdkUploadPart(
  client: S3Client,
  upload: PartsUploadRef,
  partNumber: number,
  body: Buffer,
  contentMd5: string,
  signal: AbortSignal | undefined,
): Promise<PartAnswer> {
  const command = new UploadPartCommand({
    Bucket: upload.bucket,
    Key: upload.key,
    UploadId: upload.uploadId,
    PartNumber: partNumber,
    Body: body,
    ContentLength: body.length,
    ContentMD5: contentMd5,
  });
  signWithPayloadHash(command, UNSIGNED_PAYLOAD);
  const answer = await client.send(command, { abortSignal: signal });
  return partAnswerOf(answer.ETag, {
    'x-amz-server-side-encryption': answer.ServerSideEncryption,
    'x-amz-server-side-encryption-customer-algorithm': answer.SSECustomerAlgorithm,
  });
}

/**
 * A streamed part, sent once with its Content-Length by the direct request. Where the bucket takes no direct
 * request (its URL could not be resolved: the SDK sends its calls), the part is gathered and sent with a
 * Content-MD5, as a buffered part: the SDK would otherwise frame a stream with a CRC32 trailer that S3 refuses on
 * an upload opened without a checksum algorithm. A body that fails or ends short aborts the request, and its
 * own error is what the call throws.
 */
async function uploadStreamedPart(
  client: S3Client,
  provider: S3Provider,
  requests: S3ObjectRequests | undefined,
  upload: PartsUploadRef,
  partNumber: number,
  body: StreamedPartBody,
  outer: AbortSignal | undefined,
): Promise<PartAnswer> {
  const sendable = sendableStream(body, outer);
  try {
    if (!requests || !(await requests.sendsDirect(upload.bucket))) {
      const bytes = await bufferSmall(sendable.stream);
      return await sdkUploadPart(client, upload, partNumber, bytes, md5Base64(bytes), sendable.signal);
    }
    const direct = await requests.put(
      upload.bucket,
      upload.key,
      { stream: sendable.stream, length: body.length },
      {
        headers: {},
        payloadHash: UNSIGNED_PAYLOAD,
        query: { partNumber: String(partNumber), uploadId: upload.uploadId },
        signal: sendable.signal,
      },
    );
    if (direct) {
      direct.body.resume();
      return partAnswerOf(direct.headers.etag, direct.headers);
    }
    // The store sent the request elsewhere (another region, a skewed clock) after the body had gone: the caller
    // sends the part again from a fresh read, and the SDK then takes it.
    throw new StorageError('Network', 'The store did not take the streamed part; it is sent again', provider);
  } catch (error) {
    const failure = sendable.failure();
    if (failure !== undefined) throw failure;
    if (isAbortError(error) || error instanceof StorageError) throw error;
    throw toStorageError(error, provider);
  }
}

const md5Base64 = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');

/** CopyObject's own limit: larger objects would need a multipart self-copy, which costs more than it is worth. */
const SELF_COPY_MAX = 5 * 1024 ** 3;

/**
 * Metadata known only once every byte was read (the engine's SHA-256 of a copy whose source had no checksum)
 * cannot join an S3 upload that already started. When `complete` is given metadata the object lacks, a server-side
 * CopyObject of the object onto itself with REPLACE adds it: no bytes pass through Cumulo, and the object keeps
 * its content type, content headers, Expires and earlier metadata. Answers the new etag, or null when nothing had to change.
 */
async function addMetadataAfterwards(
  client: S3Client,
  upload: { bucket: string; key: string },
  options: { metadata?: Record<string, string> },
): Promise<{ etag: string | null } | null> {
  const head = await client.send(new HeadObjectCommand({ Bucket: upload.bucket, Key: upload.key }));
  const current = head.Metadata ?? {};
  const wanted = options.metadata ?? {};
  const missing = Object.entries(wanted).some(([name, value]) => current[name.toLowerCase()] !== value);
  if (!missing || (head.ContentLength ?? 0) > SELF_COPY_MAX) return null;
  const answer = await client.send(
    new CopyObjectCommand({
      Bucket: upload.bucket,
      Key: upload.key,
      CopySource: copySourceOf(upload.bucket, upload.key),
      ...replacingMetadata(head, wanted),
    }),
  );
  return { etag: stripQuotes(answer.CopyObjectResult?.ETag) };
}

/**
 * With the SDK's default checksums (real AWS), every UploadPart also carries a CRC32, and S3 refuses it on an
 * upload opened without a checksum algorithm ("Checksum Type mismatch occurred, expected checksum Type: null").
 * A part that already carries Content-MD5 is checked by the store anyway, so the CRC32 is dropped from it. Parts
 * sent by lib-storage carry no Content-MD5 and keep the SDK's checksums (lib-storage opens its uploads with
 * CRC32 and completes them with the part checksums).
 */
export function useContentMd5ForParts(client: S3Client): void {
  client.middlewareStack.addRelativeTo(
    <Args extends { request: unknown }, Output>(
      next: (args: Args) => Promise<Output>,
      context: { commandName?: string },
    ) =>
      async (args: Args): Promise<Output> => {
        const headers = headersOf(args.request);
        if (context.commandName === 'UploadPartCommand' && headers && 'content-md5' in lowerKeys(headers)) {
          for (const header of Object.keys(headers)) {
            if (/^x-amz-(sdk-)?checksum-/i.test(header)) delete headers[header];
          }
        }
        return next(args);
      },
    // After the SDK's checksum middleware (build step) has added its CRC32, before the request is signed.
    { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'cumuloUploadPartContentMd5' },
  );
}

/**
 * SigV4 signs a hash of the body: the signer takes it from an `x-amz-content-sha256` header already on the
 * request instead of hashing the body itself. Given the SHA-256 the caller computed anyway (the copy engine keeps
 * it as `cumulo-sha256`), or `UNSIGNED-PAYLOAD` for a body whose Content-MD5 is signed and checked by the store
 * (a part of the engine's copies), it saves a SHA-256 pass over every byte sent. Added just before signing, when
 * no other step (aws-chunked framing on AWS) has claimed the header.
 */
export function signWithPayloadHash(
  command: PutObjectCommand | UploadPartCommand,
  payloadHash: string,
): void {
  // The two commands' stacks differ only in their input and output types, which this step does not touch.
  (command.middlewareStack as PutObjectCommand['middlewareStack']).addRelativeTo(
    <Args extends { request: unknown }, Output>(next: (args: Args) => Promise<Output>) =>
      async (args: Args): Promise<Output> => {
        const headers = headersOf(args.request);
        if (headers && !Object.keys(headers).some((name) => name.toLowerCase() === 'x-amz-content-sha256'))
          headers['x-amz-content-sha256'] = payloadHash;
        return next(args);
      },
    { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'cumuloKnownPayloadHash' },
  );
}

/** The headers of a middleware's request, when it is an HTTP request. */
export function headersOf(request: unknown): Record<string, string> | null {
  if (typeof request !== 'object' || request === null) return null;
  const { headers } = request as { headers?: unknown };
  return typeof headers === 'object' && headers !== null ? (headers as Record<string, string>) : null;
}

const lowerKeys = (headers: Record<string, string>): Record<string, true> =>
  Object.fromEntries(Object.keys(headers).map((name) => [name.toLowerCase(), true as const]));

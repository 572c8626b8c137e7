/**
 * Extends the test S3 server with the calls s3rver 3.7.1 lacks or does not check the way S3 does: ListParts,
 * AbortMultipartUpload (both 405 in s3rver), ListMultipartUploads (501), UploadPartCopy (501), and the Content-MD5
 * check of UploadPart and PutObject (s3rver stores whatever arrives; S3 refuses a mismatch with BadDigest). Cumulo
 * resumes a direct upload from ListParts, cancels it with AbortMultipartUpload, copies large objects and transfer
 * parts inside one store with UploadPartCopy, and relies on the store refusing damaged bytes; without these calls
 * those paths could only be shown against mocks, never against a server that really holds the parts.
 *
 * The calls work on s3rver's own filesystem store (`<bucket>/._S3rver_uploads/<uploadId>/` holds `key`, `metadata`,
 * and `<n>` with `<n>.md5` per finished part) and answer S3's XML through s3rver's own rendering. They run behind
 * the same CORS, website, authentication and bucket checks s3rver's router applies to every request, so whatever
 * s3rver refuses (an unknown access key id, a wrong V2 signature, a missing bucket) is refused here too.
 *
 * s3rver answers an UploadPart once the bytes have entered its file stream, before they are all written; a client
 * as quick as the transfer engine's direct requests then listed a part of 0 bytes. Parts are written here instead.
 * (Its PutObject has the same shape but writes the object's metadata file before it answers, and no short read was
 * seen there; waiting for the file made bench/transfer (a) look slower, ratios 1.19–1.38 in three runs against
 * 1.13–1.30 before, so it is left as s3rver has it.)
 */

import { createHash, randomUUID, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type S3rver from 's3rver';
import { setTagsOfCopy, setTagsOfWrite, tagCountOf, uploadTagging } from './s3rver-tagging.ts';

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  params: Record<string, string | undefined>;
  headers: Record<string, string | string[] | undefined>;
  req: IncomingMessage;
  status: number;
  body: unknown;
  etag: string;
  set(name: string, value: string): void;
}
type Next = () => Promise<unknown>;
type Middleware = (ctx: KoaContext, next: Next) => unknown;

/** The part of an s3rver instance (a Koa app) this extension reaches into. */
interface S3rverInternals {
  middleware: Middleware[];
  store: {
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    getBucket(bucket: string): Promise<unknown>;
  };
}

type S3ErrorClass = new (code: string, message: string, detail?: Record<string, unknown>) => Error;

// s3rver is CommonJS without types or an exports map; its own middleware and error class are loaded by path so
// these calls pass the very checks, and render errors the very way, s3rver does.
const require = createRequire(import.meta.url);
const corsMiddleware = require('s3rver/lib/middleware/cors.js') as () => Middleware;
const websiteMiddleware = require('s3rver/lib/middleware/website.js') as () => Middleware;
const authenticationMiddleware = require('s3rver/lib/middleware/authentication.js') as () => Middleware;
const responseHeaderOverrideMiddleware =
  require('s3rver/lib/middleware/response-header-override.js') as () => Middleware;
const bucketControllers = require('s3rver/lib/controllers/bucket.js') as {
  bucketExists: Middleware;
  METHODS: string[];
};
const objectControllers = require('s3rver/lib/controllers/object.js') as { METHODS: string[] };
const S3Error = require('s3rver/lib/models/error.js') as S3ErrorClass;
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account.js') as {
  DUMMY_ACCOUNT: { id: number; displayName: string };
};

const XMLNS = { xmlns: 'http://s3.amazonaws.com/doc/2006-03-01/' };
const PAGE_LIMIT = 1000;
/** S3 copies at most 5 GiB in one request (CopyObject, or UploadPartCopy without a range). */
const MAX_COPY_BYTES = 5 * 1024 ** 3;
/** s3rver's ids are 32 hex digits; anything else is no upload, and never a path to walk out of the store with. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;
const QUERY_METHODS = new Set([...bucketControllers.METHODS, ...objectControllers.METHODS]);

type Call =
  | 'listParts'
  | 'abortUpload'
  | 'listUploads'
  | 'uploadPart'
  | 'uploadPartCopy'
  | 'putObject'
  | 'completeUpload'
  | 'getPart'
  | 'copyObject'
  // Only the tags are added to these (s3rver-tagging.ts): s3rver's router serves them, with its own checks.
  | 'getObject'
  | 'plainPutObject';
type Store = S3rverInternals['store'];

const first = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** Which of these calls a request is, the way s3rver's router tells calls apart (path, method, query). */
function callOf(ctx: KoaContext): { call: Call; bucket: string; key?: string } | undefined {
  const match = /^\/([^/]+)(?:\/(.*))?$/.exec(ctx.path);
  if (!match?.[1]) return undefined;
  const methods = Object.keys(ctx.query).filter((name) => QUERY_METHODS.has(name));
  const bucket = decodeURIComponent(match[1]);
  const key = match[2] ? decodeURIComponent(match[2]) : undefined;
  // PutObject (no query method) with Content-MD5: checked here, then stored by s3rver's own PutObject.
  if (
    methods.length === 0 &&
    key !== undefined &&
    ctx.method === 'PUT' &&
    !('x-amz-copy-source' in ctx.headers)
  ) {
    return { call: 'content-md5' in ctx.headers ? 'putObject' : 'plainPutObject', bucket, key };
  }
  // GetObject and HeadObject of one part of an object (?partNumber=n).
  if (
    methods.length === 0 &&
    key !== undefined &&
    (ctx.method === 'GET' || ctx.method === 'HEAD') &&
    'partNumber' in ctx.query
  ) {
    return { call: 'getPart', bucket, key };
  }
  if (methods.length === 0 && key !== undefined && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
    return { call: 'getObject', bucket, key };
  }
  if (
    methods.length === 0 &&
    key !== undefined &&
    ctx.method === 'PUT' &&
    'x-amz-copy-source' in ctx.headers
  ) {
    return { call: 'copyObject', bucket, key };
  }
  if (methods.length !== 1) return undefined;
  if (key === undefined) {
    return ctx.method === 'GET' && methods[0] === 'uploads' ? { call: 'listUploads', bucket } : undefined;
  }
  if (methods[0] !== 'uploadId') return undefined;
  if (ctx.method === 'GET') return { call: 'listParts', bucket, key };
  if (ctx.method === 'DELETE') return { call: 'abortUpload', bucket, key };
  if (ctx.method === 'POST') return { call: 'completeUpload', bucket, key };
  if (ctx.method === 'PUT' && 'x-amz-copy-source' in ctx.headers)
    return { call: 'uploadPartCopy', bucket, key };
  // With Content-MD5 or without (a streamed part): s3rver's own UploadPart answers before the part is written.
  if (ctx.method === 'PUT') return { call: 'uploadPart', bucket, key };
  return undefined;
}

const noSuchUpload = (uploadId: string) =>
  new S3Error(
    'NoSuchUpload',
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    { UploadId: uploadId },
  );

/** A count S3 caps at 1000 (`max-parts`, `max-uploads`), or a marker; S3 refuses anything but a whole number. */
function wholeNumber(ctx: KoaContext, name: string, fallback: number, cap = Number.MAX_SAFE_INTEGER): number {
  const value = first(ctx.query[name]);
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 2_147_483_647) {
    throw new S3Error('InvalidArgument', `Provided ${name} not an integer or within integer range`, {
      ArgumentName: name,
      ArgumentValue: value,
    });
  }
  return Math.min(Number(value), cap);
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

const uploadsDirectory = (store: Store, bucket: string) =>
  store.getResourcePath(bucket, undefined, 'uploads');

/** The key an upload was opened for, or undefined when the bucket holds no such upload. */
async function keyOf(store: Store, bucket: string, uploadId: string): Promise<string | undefined> {
  if (!UPLOAD_ID.test(uploadId)) return undefined;
  try {
    return (await readFile(join(uploadsDirectory(store, bucket), uploadId, 'key'))).toString();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** S3 answers NoSuchUpload as well when the id exists under another key. */
async function requireUpload(store: Store, bucket: string, key: string, uploadId: string): Promise<string> {
  if ((await keyOf(store, bucket, uploadId)) !== key) throw noSuchUpload(uploadId);
  return join(uploadsDirectory(store, bucket), uploadId);
}

const owner = () => ({ ID: DUMMY_ACCOUNT.id, DisplayName: DUMMY_ACCOUNT.displayName });

async function listParts(ctx: KoaContext, store: Store, bucket: string, key: string): Promise<void> {
  const uploadId = first(ctx.query.uploadId) ?? '';
  const maxParts = wholeNumber(ctx, 'max-parts', PAGE_LIMIT, PAGE_LIMIT);
  const marker = wholeNumber(ctx, 'part-number-marker', 0);
  const directory = await requireUpload(store, bucket, key, uploadId);
  const names = new Set(await readdir(directory));
  // A part is listed once s3rver has written its MD5, i.e. once UploadPart has answered.
  const numbers = [...names]
    .filter((name) => /^\d+$/.test(name) && names.has(`${name}.md5`))
    .map(Number)
    .filter((partNumber) => partNumber > marker)
    .sort((a, b) => a - b);
  const page = numbers.slice(0, maxParts);
  const parts = await Promise.all(
    page.map(async (partNumber) => {
      const [info, md5] = await Promise.all([
        stat(join(directory, String(partNumber))),
        readFile(join(directory, `${partNumber}.md5`), 'utf8'),
      ]);
      return {
        PartNumber: partNumber,
        LastModified: info.mtime.toISOString(),
        ETag: JSON.stringify(md5),
        Size: info.size,
      };
    }),
  );
  ctx.body = {
    ListPartsResult: {
      '@': XMLNS,
      Bucket: bucket,
      Key: key,
      UploadId: uploadId,
      Initiator: owner(),
      Owner: owner(),
      StorageClass: 'STANDARD',
      PartNumberMarker: marker,
      NextPartNumberMarker: page.at(-1) ?? marker,
      MaxParts: maxParts,
      IsTruncated: numbers.length > page.length,
      Part: parts,
    },
  };
}

async function abortUpload(ctx: KoaContext, store: Store, bucket: string, key: string): Promise<void> {
  const directory = await requireUpload(store, bucket, key, first(ctx.query.uploadId) ?? '');
  await rm(directory, { recursive: true, force: true });
  ctx.status = 204;
  ctx.body = null;
}

/** S3's part numbers: 1 to 10 000. */
function partNumberOf(ctx: KoaContext): number {
  const value = first(ctx.query.partNumber) ?? '';
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10_000) {
    throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', {
      ArgumentName: 'partNumber',
      ArgumentValue: value,
    });
  }
  return Number(value);
}

/** The 16 bytes a Content-MD5 header names, or InvalidDigest as S3 answers for anything else. */
function contentMd5Of(ctx: KoaContext): Buffer {
  const header = first(ctx.headers['content-md5']) ?? '';
  const digest = Buffer.from(header, 'base64');
  if (digest.length !== 16 || digest.toString('base64') !== header) {
    throw new S3Error('InvalidDigest', 'The Content-MD5 you specified was not valid.', {
      'Content-MD5': header,
    });
  }
  return digest;
}

/**
 * The whole body (as the chunks it arrived in), checked against Content-MD5 as S3 checks it (BadDigest when it
 * differs), and its MD5. Hashed once as it arrives: what stores it need not hash it again.
 */
async function checkedBody(ctx: KoaContext): Promise<{ chunks: Buffer[]; md5: string }> {
  const expected = contentMd5Of(ctx);
  const chunks: Buffer[] = [];
  const hash = createHash('md5');
  for await (const chunk of ctx.req) {
    chunks.push(chunk as Buffer);
    hash.update(chunk as Buffer);
  }
  const received = hash.digest();
  if (!received.equals(expected)) {
    throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.', {
      ExpectedDigest: expected.toString('hex'),
      CalculatedDigest: received.toString('hex'),
    });
  }
  return { chunks, md5: received.toString('hex') };
}

/**
 * PutObject with Content-MD5: the body is checked before s3rver's own PutObject stores it (s3rver stores whatever
 * arrives). The checked bytes are handed on as the request's body stream; its headers stay on `ctx.request`.
 */
async function putObject(ctx: KoaContext, next: Next): Promise<void> {
  const { chunks } = await checkedBody(ctx);
  ctx.req = Readable.from(chunks) as unknown as IncomingMessage;
  await next();
}

/** After any PutObject that stored the object: the tags it carried, and none when it carried none. */
async function tagWrite(ctx: KoaContext, store: Store, bucket: string, key: string): Promise<void> {
  if (ctx.status === 200) await setTagsOfWrite(store, bucket, key, first(ctx.headers['x-amz-tagging']));
}

/** After a GET or HEAD that answered the object: how many tags it has, as S3 tells it. */
async function tellTagCount(ctx: KoaContext, store: Store, bucket: string, key: string): Promise<void> {
  if (ctx.status !== 200 && ctx.status !== 206) return;
  const count = await tagCountOf(store, bucket, key);
  if (count > 0) ctx.set('x-amz-tagging-count', String(count));
}

/**
 * Stores a part where s3rver's own store keeps it (`<n>` and `<n>.md5` in the upload's folder) and answers its MD5
 * once the file is complete. s3rver's `putPart` answers when the last byte has entered the pipe, before the file
 * stream has written it: a ListParts or CompleteMultipartUpload sent at once (as a fast client does) can read a
 * part that is still short.
 */
async function putPart(
  store: Store,
  bucket: string,
  uploadId: string,
  partNumber: number,
  content: Readable,
  /** The content's MD5 when the caller already computed it. */
  knownMd5?: string,
  /** A check the content passes through on its way to the file (its error keeps the part from being stored). */
  through?: Transform,
): Promise<{ md5: string }> {
  const partPath = join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
  await mkdir(join(partPath, '..'), { recursive: true });
  // Written aside and renamed once whole: a part cut short never replaces, nor stands in for, a stored one.
  const partial = `${partPath}.${randomUUID()}.partial`;
  const hash = knownMd5 === undefined ? createHash('md5') : null;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash?.update(chunk);
      callback(null, chunk);
    },
  });
  try {
    await pipeline([content, ...(through ? [through] : []), hashing, createWriteStream(partial)]);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  const md5 = knownMd5 ?? (hash as Hash).digest('hex');
  await rename(partial, partPath);
  await writeFile(`${partPath}.md5`, md5);
  return { md5 };
}

/**
 * UploadPart with Content-MD5: the part is received whole and checked before it is stored, so a damaged part is
 * refused (BadDigest) and never replaces a good part of the same number, as on S3.
 */
async function uploadPart(ctx: KoaContext, store: Store, bucket: string, key: string): Promise<void> {
  const uploadId = first(ctx.query.uploadId) ?? '';
  const partNumber = partNumberOf(ctx);
  if (!('content-md5' in ctx.headers)) return uploadStreamedPart(ctx, store, bucket, key);
  contentMd5Of(ctx);
  await requireUpload(store, bucket, key, uploadId);
  const checked = await checkedBody(ctx);
  const { md5 } = await putPart(
    store,
    bucket,
    uploadId,
    partNumber,
    Readable.from(checked.chunks),
    checked.md5,
  );
  ctx.etag = md5;
  ctx.body = '';
}

/**
 * UploadPart without Content-MD5 (a streamed part): stored as it arrives, and only once its Content-Length has
 * arrived whole, as S3 does (a body cut short, its connection dropped, leaves no part and keeps any earlier part
 * of that number). Answers the part's MD5 as its ETag.
 */
async function uploadStreamedPart(ctx: KoaContext, store: Store, bucket: string, key: string): Promise<void> {
  const uploadId = first(ctx.query.uploadId) ?? '';
  const partNumber = partNumberOf(ctx);
  await requireUpload(store, bucket, key, uploadId);
  const announced = Number(first(ctx.headers['content-length']) ?? NaN);
  if (!Number.isSafeInteger(announced) || announced < 0) {
    throw new S3Error('MissingContentLength', 'You must provide the Content-Length HTTP header.');
  }
  let received = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      callback(null, chunk);
    },
    flush(callback) {
      callback(
        received === announced
          ? null
          : new S3Error(
              'IncompleteBody',
              'You did not provide the number of bytes specified by the Content-Length HTTP header',
            ),
      );
    },
  });
  const { md5 } = await putPart(store, bucket, uploadId, partNumber, ctx.req, undefined, counted);
  ctx.etag = md5;
  ctx.body = '';
}

/** `bucket/key` of x-amz-copy-source, URL-decoded once (as S3 does), without a leading slash or a versionId. */
function copySourceOf(ctx: KoaContext): { bucket: string; key: string } {
  const header = (first(ctx.headers['x-amz-copy-source']) ?? '')
    .replace(/^\//, '')
    .replace(/\?versionId=.*$/, '');
  const slash = header.indexOf('/');
  if (slash <= 0 || slash === header.length - 1) {
    throw new S3Error(
      'InvalidArgument',
      'Copy Source must mention the source bucket and key: sourcebucket/sourcekey',
      {
        ArgumentName: 'x-amz-copy-source',
        ArgumentValue: header,
      },
    );
  }
  return {
    bucket: decodeURIComponent(header.slice(0, slash)),
    key: decodeURIComponent(header.slice(slash + 1)),
  };
}

/**
 * UploadPartCopy: the part is read from a byte range of an object s3rver holds and stored as UploadPart stores it
 * (the part file and its `.md5`), so ListParts and CompleteMultipartUpload see it like any other part.
 */
async function uploadPartCopy(ctx: KoaContext, store: Store, bucket: string, key: string): Promise<void> {
  const uploadId = first(ctx.query.uploadId) ?? '';
  const partNumber = partNumberOf(ctx);
  const source = copySourceOf(ctx);
  await requireUpload(store, bucket, key, uploadId);
  if (!(await store.getBucket(source.bucket))) {
    throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: source.bucket });
  }
  const objectPath = store.getResourcePath(source.bucket, source.key, 'object');
  const whole = await stat(objectPath).catch((error: unknown) => {
    if (isMissing(error))
      throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: source.key });
    throw error;
  });
  const rangeHeader = first(ctx.headers['x-amz-copy-source-range']);
  let range = { start: 0, end: whole.size - 1 };
  if (rangeHeader !== undefined) {
    const match = /^bytes=(\d+)-(\d+)$/.exec(rangeHeader);
    if (!match || Number(match[1]) > Number(match[2])) {
      throw new S3Error(
        'InvalidArgument',
        'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy',
        { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: rangeHeader },
      );
    }
    range = { start: Number(match[1]), end: Number(match[2]) };
    if (range.end >= whole.size) {
      throw new S3Error(
        'InvalidRequest',
        `The specified copy range is invalid for the source object size: ${whole.size}`,
      );
    }
  } else if (whole.size > MAX_COPY_BYTES) {
    throw new S3Error(
      'InvalidRequest',
      'The specified copy source is larger than the maximum allowable size for a copy source: 5368709120',
    );
  }
  // Read straight from the object file: s3rver's getObject reads `end: 0` as "to the end".
  const { md5 } = await putPart(store, bucket, uploadId, partNumber, createReadStream(objectPath, range));
  ctx.body = {
    CopyPartResult: { '@': XMLNS, LastModified: new Date().toISOString(), ETag: JSON.stringify(md5) },
  };
}

/**
 * What S3 remembers of an object completed from parts and s3rver does not: its ETag is the MD5 of the parts' MD5s
 * followed by `-<count>` (s3rver gives the whole object's MD5), and each part can be read back by its number
 * (`?partNumber=n`). Kept next to the object as `parts.json`, with the ETag it was written for; every later write of
 * the object gives it another ETag, and the layout is then no longer the object's.
 */
interface PartLayout {
  etag: string;
  sizes: number[];
}

const layoutPath = (store: Store, bucket: string, key: string) =>
  store.getResourcePath(bucket, key, 'parts.json');
const md5Path = (store: Store, bucket: string, key: string) =>
  store.getResourcePath(bucket, key, 'object.md5');

/** The object's part layout, or undefined when it was not completed from parts (or has been written since). */
async function layoutOf(store: Store, bucket: string, key: string): Promise<PartLayout | undefined> {
  try {
    const [layout, etag] = await Promise.all([
      readFile(layoutPath(store, bucket, key), 'utf8').then((text) => JSON.parse(text) as PartLayout),
      readFile(md5Path(store, bucket, key), 'utf8'),
    ]);
    return layout.etag === etag ? layout : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

const NAMED_ENTITIES: Record<string, string> = { quot: '"', apos: "'", amp: '&', lt: '<', gt: '>' };

/** XML character data as text: the five named entities and numeric ones (Go's encoder writes `"` as `&#34;`). */
function xmlText(data: string): string {
  return data.replace(/&(?:#(\d+)|#x([0-9a-f]+)|(quot|apos|amp|lt|gt));/gi, (entity, decimal, hex, name) => {
    if (decimal) return String.fromCodePoint(Number(decimal));
    if (hex) return String.fromCodePoint(parseInt(hex as string, 16));
    return NAMED_ENTITIES[(name as string).toLowerCase()] ?? entity;
  });
}

/** The parts a CompleteMultipartUpload body names, in its order (number and ETag without quotes). */
function namedParts(xml: string): Array<{ partNumber: number; etag: string }> {
  return [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, inner = '']) => ({
    partNumber: Number(/<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(inner)?.[1] ?? NaN),
    etag: xmlText(/<ETag>([\s\S]*?)<\/ETag>/.exec(inner)?.[1] ?? '')
      .replace(/"/g, '')
      .trim(),
  }));
}

/**
 * CompleteMultipartUpload as S3 does it: every named part must exist with the ETag given (InvalidPart), in
 * ascending order (InvalidPartOrder), and the object's ETag is the MD5 of the parts' MD5s with the part count.
 * s3rver's own completion joins the part files; the ETag and the part layout are written here once it has.
 */
async function completeUpload(
  ctx: KoaContext,
  store: Store,
  bucket: string,
  key: string,
  next: Next,
): Promise<void> {
  const uploadId = first(ctx.query.uploadId) ?? '';
  const directory = await requireUpload(store, bucket, key, uploadId);
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const named = namedParts(body.toString('utf8'));
  const parts = await Promise.all(
    named.map(async ({ partNumber, etag }) => {
      const stored = await Promise.all([
        readFile(join(directory, `${partNumber}.md5`), 'utf8'),
        stat(join(directory, String(partNumber))),
      ]).catch((error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      });
      if (!stored || stored[0] !== etag) {
        throw new S3Error(
          'InvalidPart',
          "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
          { UploadId: uploadId, PartNumber: partNumber, ETag: etag },
        );
      }
      return { partNumber, md5: stored[0], size: stored[1].size };
    }),
  );
  if (parts.some((part, index) => index > 0 && part.partNumber <= (parts[index - 1]?.partNumber ?? 0))) {
    throw new S3Error(
      'InvalidPartOrder',
      'The list of parts was not in ascending order. The parts list must be specified in order by part number.',
      { UploadId: uploadId },
    );
  }
  const tagging = await uploadTagging(directory);
  ctx.req = Readable.from([body]) as unknown as IncomingMessage;
  await next();
  const result = (ctx.body as { CompleteMultipartUploadResult?: { ETag?: string } } | null)
    ?.CompleteMultipartUploadResult;
  if (!result) return;
  await setTagsOfWrite(store, bucket, key, tagging);
  if (parts.length === 0) return;
  const etag = `${createHash('md5')
    .update(Buffer.concat(parts.map((part) => Buffer.from(part.md5, 'hex'))))
    .digest('hex')}-${parts.length}`;
  const layout: PartLayout = { etag, sizes: parts.map((part) => part.size) };
  await writeFile(layoutPath(store, bucket, key), JSON.stringify(layout));
  await writeFile(md5Path(store, bucket, key), etag);
  result.ETag = JSON.stringify(etag);
}

/**
 * GetObject and HeadObject with `?partNumber=n`: the bytes of part n of an object completed from parts, as a 206
 * with its Content-Range and the object's part count in x-amz-mp-parts-count. An object not completed from parts
 * is one part: part 1 is the whole object. A part beyond the count is InvalidPartNumber (416), a Range header
 * beside the part number InvalidRequest, as on S3.
 */
async function getPart(
  ctx: KoaContext,
  store: Store,
  bucket: string,
  key: string,
  next: Next,
): Promise<void> {
  const partNumber = partNumberOf(ctx);
  if (first(ctx.headers.range) !== undefined) {
    throw new S3Error('InvalidRequest', 'Cannot specify both Range header and partNumber query parameter');
  }
  const layout = await layoutOf(store, bucket, key);
  const count = layout?.sizes.length ?? 1;
  if (partNumber > count) {
    const error = new S3Error('InvalidPartNumber', 'The requested partnumber is not satisfiable', {
      PartNumberRequested: partNumber,
      ActualPartCount: count,
    }) as Error & { status: number };
    error.status = 416;
    throw error;
  }
  if (!layout) return void (await next());
  const start = layout.sizes.slice(0, partNumber - 1).reduce((sum, size) => sum + size, 0);
  ctx.headers.range = `bytes=${start}-${start + (layout.sizes[partNumber - 1] ?? 0) - 1}`;
  await next();
  ctx.set('x-amz-mp-parts-count', String(count));
}

/**
 * CopyObject: a copy is written whole, so on S3 its ETag is its MD5 whatever the source's was. s3rver copies the
 * source's `.md5` along, which would give the copy a parts ETag without parts; the copy's MD5 is written here.
 */
async function copyObject(
  ctx: KoaContext,
  store: Store,
  bucket: string,
  key: string,
  next: Next,
): Promise<void> {
  await next();
  const result = (ctx.body as { CopyObjectResult?: { ETag?: string } } | null)?.CopyObjectResult;
  if (!result) return;
  await setTagsOfCopy(
    store,
    copySourceOf(ctx),
    { bucket, key },
    first(ctx.headers['x-amz-tagging-directive']),
    first(ctx.headers['x-amz-tagging']),
  );
  const etag = await readFile(md5Path(store, bucket, key), 'utf8').catch(() => '');
  if (!etag.includes('-')) return;
  const hash = createHash('md5');
  for await (const chunk of createReadStream(store.getResourcePath(bucket, key, 'object')))
    hash.update(chunk as Buffer);
  const md5 = hash.digest('hex');
  await writeFile(md5Path(store, bucket, key), md5);
  result.ETag = JSON.stringify(md5);
}

/**
 * When each upload opened, in order. s3rver keeps no initiation time, and file times are too coarse to order two
 * uploads opened a few milliseconds apart, so CreateMultipartUpload answers are noted as they pass by.
 */
type Initiations = Map<string, { at: Date; order: number }>;

function noteInitiation(ctx: KoaContext, initiations: Initiations): void {
  const body = ctx.body as { InitiateMultipartUploadResult?: { UploadId?: string } } | null;
  const uploadId = body?.InitiateMultipartUploadResult?.UploadId;
  if (ctx.method === 'POST' && uploadId)
    initiations.set(uploadId, { at: new Date(), order: initiations.size });
}

async function listUploads(
  ctx: KoaContext,
  store: Store,
  bucket: string,
  initiations: Initiations,
): Promise<void> {
  if (first(ctx.query.delimiter)) {
    throw new S3Error('NotImplemented', 'The test server lists multipart uploads without a delimiter only');
  }
  const prefix = first(ctx.query.prefix) ?? '';
  const keyMarker = first(ctx.query['key-marker']) ?? '';
  const uploadIdMarker = first(ctx.query['upload-id-marker']) ?? '';
  const maxUploads = wholeNumber(ctx, 'max-uploads', PAGE_LIMIT, PAGE_LIMIT);
  const directory = uploadsDirectory(store, bucket);
  const ids = await readdir(directory).catch((error: unknown) => {
    if (isMissing(error)) return [];
    throw error;
  });
  const uploads = (
    await Promise.all(
      ids.map(async (uploadId) => {
        const key = await keyOf(store, bucket, uploadId);
        if (key === undefined) return undefined;
        const noted = initiations.get(uploadId);
        // An upload opened before this extension was added: `key`, written once at opening, dates it.
        const initiated = noted?.at ?? (await stat(join(directory, uploadId, 'key'))).mtime;
        return { key, uploadId, initiated, order: noted?.order ?? -1 };
      }),
    )
  )
    .filter((upload) => upload !== undefined)
    .filter((upload) => upload.key.startsWith(prefix))
    // S3's order: by key, then the uploads of one key by initiation time.
    .sort(
      (a, b) =>
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) ||
        a.initiated.getTime() - b.initiated.getTime() ||
        a.order - b.order,
    );
  // After key-marker alone come the later keys; with upload-id-marker, also the later uploads of key-marker itself.
  const markerIndex = uploads.findIndex((u) => u.key === keyMarker && u.uploadId === uploadIdMarker);
  const remaining = uploads.filter((upload, index) =>
    uploadIdMarker && markerIndex >= 0 ? index > markerIndex : !keyMarker || upload.key > keyMarker,
  );
  const page = remaining.slice(0, maxUploads);
  const last = page.at(-1);
  ctx.body = {
    ListMultipartUploadsResult: {
      '@': XMLNS,
      Bucket: bucket,
      KeyMarker: keyMarker,
      UploadIdMarker: uploadIdMarker,
      NextKeyMarker: last?.key ?? '',
      NextUploadIdMarker: last?.uploadId ?? '',
      Prefix: prefix,
      MaxUploads: maxUploads,
      IsTruncated: remaining.length > page.length,
      Upload: page.map((upload) => ({
        Key: upload.key,
        UploadId: upload.uploadId,
        Initiator: owner(),
        Owner: owner(),
        StorageClass: 'STANDARD',
        Initiated: upload.initiated.toISOString(),
      })),
    },
  };
}

/**
 * Puts these calls on an s3rver before it runs: just ahead of its router, after the middleware that renders
 * XML, takes Express mount paths and rewrites virtual-host paths, so requests arrive as the router would see them.
 */
export function addMultipartCalls(server: S3rver): void {
  const { middleware, store } = server as unknown as S3rverInternals;
  // Koa composes its middleware when the server starts listening, so an insertion before run() takes effect.
  const router = middleware.length - 1;
  if (middleware[router]?.name !== 'dispatch') {
    throw new Error(
      's3rver no longer ends with its router: review s3rver-multipart.ts for this s3rver version',
    );
  }
  // The checks s3rver's router runs on `/:bucket/:key*` before any handler, in its order.
  const checks = [
    corsMiddleware(),
    websiteMiddleware(),
    authenticationMiddleware(),
    responseHeaderOverrideMiddleware(),
    bucketControllers.bucketExists,
  ];
  const initiations: Initiations = new Map();
  const multipartCalls: Middleware = async (ctx, next) => {
    const request = callOf(ctx);
    if (!request) {
      await next();
      noteInitiation(ctx, initiations);
      return;
    }
    const { call, bucket, key = '' } = request;
    // s3rver serves these itself, behind its own checks; only the tags are added once it has.
    if (call === 'getObject') return void (await next().then(() => tellTagCount(ctx, store, bucket, key)));
    if (call === 'plainPutObject') return void (await next().then(() => tagWrite(ctx, store, bucket, key)));
    ctx.params = { bucket, key: request.key };
    const handlers: Record<Exclude<Call, 'getObject' | 'plainPutObject'>, () => Promise<void>> = {
      listParts: () => listParts(ctx, store, bucket, key),
      abortUpload: () => abortUpload(ctx, store, bucket, key),
      listUploads: () => listUploads(ctx, store, bucket, initiations),
      uploadPart: () => uploadPart(ctx, store, bucket, key),
      uploadPartCopy: () => uploadPartCopy(ctx, store, bucket, key),
      // s3rver's router runs its checks again before its PutObject: they only read headers, so twice is harmless.
      putObject: () => putObject(ctx, next).then(() => tagWrite(ctx, store, bucket, key)),
      completeUpload: () => completeUpload(ctx, store, bucket, key, next),
      getPart: () => getPart(ctx, store, bucket, key, next).then(() => tellTagCount(ctx, store, bucket, key)),
      copyObject: () => copyObject(ctx, store, bucket, key, next),
    };
    const handle = handlers[call];
    const step = async (index: number): Promise<unknown> => {
      const check = checks[index];
      return check ? check(ctx, () => step(index + 1)) : handle();
    };
    await step(0);
  };
  middleware.splice(router, 0, multipartCalls);
}

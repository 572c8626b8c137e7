/**
 * Extends the test S3 server with the three multipart calls s3rver 3.7.1 lacks: ListParts, AbortMultipartUpload
 * (both 405 in s3rver) and ListMultipartUploads (501). Cumulo resumes a direct upload from ListParts and cancels it
 * with AbortMultipartUpload; without these calls those paths could only be shown against mocks, never against a
 * server that really holds the parts.
 *
 * The calls work on s3rver's own filesystem store (`<bucket>/._S3rver_uploads/<uploadId>/` holds `key`, `metadata`,
 * and `<n>` with `<n>.md5` per finished part) and answer S3's XML through s3rver's own rendering. They run behind
 * the same CORS, website, authentication and bucket checks s3rver's router applies to every request, so whatever
 * s3rver refuses (an unknown access key id, a wrong V2 signature, a missing bucket) is refused here too.
 */

import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type S3rver from 's3rver';

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  params: Record<string, string | undefined>;
  status: number;
  body: unknown;
}
type Next = () => Promise<unknown>;
type Middleware = (ctx: KoaContext, next: Next) => unknown;

/** The part of an s3rver instance (a Koa app) this extension reaches into. */
interface S3rverInternals {
  middleware: Middleware[];
  store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
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
/** s3rver's ids are 32 hex digits; anything else is no upload, and never a path to walk out of the store with. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;
const QUERY_METHODS = new Set([...bucketControllers.METHODS, ...objectControllers.METHODS]);

type Call = 'listParts' | 'abortUpload' | 'listUploads';
type Store = S3rverInternals['store'];

const first = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** Which of the three calls a request is, the way s3rver's router tells calls apart (path, method, query). */
function callOf(ctx: KoaContext): { call: Call; bucket: string; key?: string } | undefined {
  const match = /^\/([^/]+)(?:\/(.*))?$/.exec(ctx.path);
  if (!match?.[1]) return undefined;
  const methods = Object.keys(ctx.query).filter((name) => QUERY_METHODS.has(name));
  if (methods.length !== 1) return undefined;
  const bucket = decodeURIComponent(match[1]);
  const key = match[2] ? decodeURIComponent(match[2]) : undefined;
  if (key === undefined) {
    return ctx.method === 'GET' && methods[0] === 'uploads' ? { call: 'listUploads', bucket } : undefined;
  }
  if (methods[0] !== 'uploadId') return undefined;
  if (ctx.method === 'GET') return { call: 'listParts', bucket, key };
  if (ctx.method === 'DELETE') return { call: 'abortUpload', bucket, key };
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
 * Puts the three calls on an s3rver before it runs: just ahead of its router, after the middleware that renders
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
    ctx.params = { bucket, key: request.key };
    const handle = () =>
      call === 'listParts'
        ? listParts(ctx, store, bucket, key)
        : call === 'abortUpload'
          ? abortUpload(ctx, store, bucket, key)
          : listUploads(ctx, store, bucket, initiations);
    const step = async (index: number): Promise<unknown> => {
      const check = checks[index];
      return check ? check(ctx, () => step(index + 1)) : handle();
    };
    await step(0);
  };
  middleware.splice(router, 0, multipartCalls);
}

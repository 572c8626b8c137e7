import type { Storage } from '@google-cloud/storage';
import {
  StorageError,
  type DirectUploadPart,
  type DirectUploadRef,
  type ObjectStoreCapabilities,
} from '../../object-store.ts';

type DirectUpload = NonNullable<ObjectStoreCapabilities['directUpload']>;

/** A signed Content-Type must come back with the same value in the browser's PUT. */
const contentTypeHeader = (contentType: string | undefined): Record<string, string> =>
  contentType ? { 'Content-Type': contentType } : {};

/** How far a resumable session has got: the bytes GCS holds, or everything when the object exists. */
async function persistedBytes(upload: DirectUploadRef): Promise<number> {
  // The session URI is itself the credential (GCS docs, "resumable uploads"): no Authorization header needed.
  const answer = await fetch(upload.uploadId, {
    method: 'PUT',
    headers: { 'Content-Range': `bytes */${upload.size}` },
  });
  if (answer.status === 200 || answer.status === 201) return upload.size;
  if (answer.status === 308) {
    const range = /^bytes=0-(\d+)$/.exec(answer.headers.get('range') ?? '');
    return range?.[1] ? Number(range[1]) + 1 : 0;
  }
  const code = answer.status === 404 || answer.status === 410 ? 'ObjectNotFound' : 'Unknown';
  throw new StorageError(
    code,
    `The resumable upload session answered HTTP ${answer.status}`,
    'google',
    answer.status,
  );
}

/**
 * Resumable uploads the browser sends as consecutive chunks (Content-Range) to one session URI. GCS creates the
 * object when the last byte arrives; parts must go in order, and every chunk but the last is a multiple of
 * 256 KiB (Cumulo's part sizes are multiples of 1 MiB).
 */
export function googleDirectUpload(storage: Storage, rethrow: (error: unknown) => never): DirectUpload {
  const range = (upload: DirectUploadRef, partNumber: number) => {
    const first = (partNumber - 1) * upload.partSize;
    const last = Math.min(upload.size, partNumber * upload.partSize) - 1;
    return { first, last };
  };
  return {
    start: async (bucket, key, options) => {
      try {
        const [uri] = await storage
          .bucket(bucket)
          .file(key)
          .createResumableUpload({ metadata: { contentType: options.contentType }, origin: options.origin });
        return uri;
      } catch (error) {
        return rethrow(error);
      }
    },

    // The session URI needs no signature; the Content-Range header places each chunk.
    signParts: async (upload, partNumbers) =>
      partNumbers.map((partNumber) => {
        const { first, last } = range(upload, partNumber);
        return {
          partNumber,
          url: upload.uploadId,
          headers: { 'Content-Range': `bytes ${first}-${last}/${upload.size}` },
        };
      }),

    signSingle: async (bucket, key, options) => {
      try {
        const [url] = await storage
          .bucket(bucket)
          .file(key)
          .getSignedUrl({
            version: 'v4',
            action: 'write',
            expires: Date.now() + options.expiresInSeconds * 1000,
            contentType: options.contentType,
          });
        return {
          partNumber: 1,
          url,
          headers: contentTypeHeader(options.contentType),
        };
      } catch (error) {
        return rethrow(error);
      }
    },

    listParts: async (upload) => {
      const held = await persistedBytes(upload);
      const parts: DirectUploadPart[] = [];
      for (let partNumber = 1; partNumber * upload.partSize <= held; partNumber += 1) {
        parts.push({ partNumber, size: upload.partSize, etag: null });
      }
      const total = Math.max(1, Math.ceil(upload.size / upload.partSize));
      if (held === upload.size && parts.length < total) {
        parts.push({ partNumber: total, size: upload.size - (total - 1) * upload.partSize, etag: null });
      }
      return parts;
    },

    complete: async (upload) => {
      const held = await persistedBytes(upload);
      if (held !== upload.size) {
        throw new StorageError(
          'Unknown',
          `Google Cloud Storage holds ${held} of ${upload.size} bytes of this upload`,
          'google',
        );
      }
      return { etag: null };
    },

    abort: async (upload) => {
      // GCS answers 499 to a cancelled session and 404/410 to one already gone: both leave nothing behind.
      const answer = await fetch(upload.uploadId, { method: 'DELETE' });
      if (answer.status >= 500) {
        throw new StorageError(
          'Unknown',
          `Cancelling the upload session answered HTTP ${answer.status}`,
          'google',
          answer.status,
        );
      }
    },
  };
}

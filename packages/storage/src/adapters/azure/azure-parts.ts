import { createHash } from 'node:crypto';
import type { BlobServiceClient, BlockBlobClient } from '@azure/storage-blob';
import { isStreamedBody, sendableStream } from '../streamed-part.ts';
import type { ObjectStoreCapabilities } from '../../object-store.ts';
import { PART_LIMITS } from '../../part-size.ts';
import { blobHeadersOf } from './azure-content-headers.ts';
import {
  blockIdOf,
  blockIdsOf,
  isMissing,
  newUploadPrefix,
  prefixOfUpload,
  stagedParts,
  type AzureSasSigner,
} from './azure-direct-upload.ts';

type Parts = NonNullable<ObjectStoreCapabilities['parts']>;

/** How long the SAS that lets Put Block From URL read its source range stays valid. */
const COPY_SOURCE_SAS_SECONDS = 15 * 60;

export interface AzurePartsDeps {
  service: BlobServiceClient;
  sas: AzureSasSigner;
  rethrow: (error: unknown) => never;
  /** Azure metadata names must be C# identifiers: the store's own encoding (see encodeMetadataName). */
  encodeMetadata: (metadata: Record<string, string> | undefined) => Record<string, string> | undefined;
}

const md5Hex = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

const stripQuotes = (etag: string | undefined): string | null => (etag ? etag.replace(/^"|"$/g, '') : null);

/**
 * Block uploads the server sends itself (the transfer engine). A part is a block staged on the blob under an id
 * made of the upload's prefix and the part number (blockIdOf: every id of a blob has the same length, as Azure
 * requires); staged blocks stay invisible until Put Block List commits them, with the content type, the
 * whole-object MD5 and the metadata, which Azure sets only then.
 */
export function azureParts({ service, sas, rethrow, encodeMetadata }: AzurePartsDeps): Parts {
  const blob = (bucket: string, key: string): BlockBlobClient =>
    service.getContainerClient(bucket).getBlockBlobClient(key);
  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      return rethrow(error);
    }
  };

  return {
    // Azure takes blocks of 1 byte and up; the S3 minimum is what the engine chooses anyway.
    limits: { minPart: 1, maxPart: PART_LIMITS.azure.maxPart, maxParts: PART_LIMITS.azure.maxParts },

    // Nothing to open on Azure: the prefix names the upload, and metadata waits for complete().
    start: async () => newUploadPrefix(),

    // A Buffer part goes with its Content-MD5, which Azure checks. A streamed one goes with its length only: Put
    // Block then answers a CRC64 rather than an MD5 (the MD5 only echoes one that was sent), so nothing in the
    // answer checks it, and the engine sends Azure buffered parts (no `answersPartMd5`).
    uploadPart: (upload, partNumber, body, options = {}) => {
      const blockId = blockIdOf(prefixOfUpload(upload), partNumber);
      if (!isStreamedBody(body)) {
        return guarded(async () => {
          const answer = await blob(upload.bucket, upload.key).stageBlock(blockId, body, body.length, {
            transactionalContentMD5: Buffer.from(options.md5 ?? md5Hex(body), 'hex'),
            abortSignal: options.signal,
          });
          return {
            etag: null,
            md5: answer.contentMD5 ? Buffer.from(answer.contentMD5).toString('hex') : null,
          };
        });
      }
      const sendable = sendableStream(body, options.signal);
      return guarded(async () => {
        const answer = await blob(upload.bucket, upload.key).stageBlock(
          blockId,
          () => sendable.stream,
          body.length,
          { abortSignal: sendable.signal },
        );
        return { etag: null, md5: answer.contentMD5 ? Buffer.from(answer.contentMD5).toString('hex') : null };
      }).catch((error: unknown) => {
        // The body's own failure (a short source read), not the abort it caused.
        throw sendable.failure() ?? error;
      });
    },

    // Put Block From URL reads the range through a short read SAS of the source (same account), so the bytes
    // move inside Azure.
    copyPart: (upload, partNumber, source, range, options) =>
      guarded(async () => {
        const sourceBlob = blob(source.bucket, source.key);
        const sourceUrl = `${sourceBlob.url}?${sas(source.bucket, source.key, 'r', COPY_SOURCE_SAS_SECONDS)}`;
        await blob(upload.bucket, upload.key).stageBlockFromURL(
          blockIdOf(prefixOfUpload(upload), partNumber),
          sourceUrl,
          range.start,
          range.end - range.start + 1,
          { abortSignal: options.signal },
        );
        return { etag: null };
      }),

    listParts: (upload) =>
      guarded(() => stagedParts(blob(upload.bucket, upload.key), prefixOfUpload(upload))),

    complete: (upload, parts, options) =>
      guarded(async () => {
        const answer = await blob(upload.bucket, upload.key).commitBlockList(
          blockIdsOf(prefixOfUpload(upload), parts),
          {
            blobHTTPHeaders: {
              ...blobHeadersOf(options.contentType, options.contentHeaders),
              // Azure computes no MD5 for a blob committed from blocks: the engine's makes it comparable later.
              blobContentMD5: options.md5 ? Buffer.from(options.md5, 'hex') : undefined,
            },
            metadata: encodeMetadata(options.metadata),
            ...(options.tags && Object.keys(options.tags).length > 0 ? { tags: options.tags } : {}),
          },
        );
        return { etag: stripQuotes(answer.etag) };
      }),

    /**
     * Azure has no call that deletes uncommitted blocks alone. When the name holds no object, Put Block List of
     * no block drops every staged block (it keeps only the ones it names) and leaves an empty blob, which is then
     * deleted: the name holds nothing, as before. Both steps are conditional (the blob must not exist; then it
     * must be the empty one just made), so an object another writer commits meanwhile is never touched. When the
     * name holds an object (a transfer that would have replaced it), that object is left as it is: its staged
     * blocks are dropped by the next commit on that name (a retried transfer) or by Azure after a week.
     */
    abort: async (upload) => {
      const prefix = prefixOfUpload(upload);
      const client = blob(upload.bucket, upload.key);
      try {
        if ((await stagedParts(client, prefix)).length === 0) return;
        if (await client.exists()) return;
        const emptied = await client.commitBlockList([], { conditions: { ifNoneMatch: '*' } });
        await client.delete({ conditions: { ifMatch: emptied.etag } });
      } catch (error) {
        // Gone already (404), or another writer committed the name meanwhile (409/412): nothing of ours to drop.
        if (isMissing(error) || isConflict(error)) return;
        rethrow(error);
      }
    },
  };
}

const isConflict = (error: unknown): boolean => {
  const status =
    error instanceof Error && 'statusCode' in error ? (error as { statusCode?: number }).statusCode : 0;
  return status === 409 || status === 412;
};

import { randomBytes } from 'node:crypto';
import type { BlobServiceClient, BlockBlobClient } from '@azure/storage-blob';
import { StorageError, type DirectUploadPart, type ObjectStoreCapabilities } from '../../object-store.ts';

type DirectUpload = NonNullable<ObjectStoreCapabilities['directUpload']>;

/** Digits of the part number in a block id: Azure allows 50 000 blocks, Cumulo uses at most 10 000 parts. */
const PART_DIGITS = 5;
const PREFIX_PATTERN = /^[0-9a-f]{12}$/;

/**
 * The block id of one part. Azure requires every block id of a blob to have the same length, so the id is the
 * upload's 12-character prefix and the zero-padded part number, base64-encoded (always 24 characters). The same
 * function gives the ids the browser's Put Block URLs carry and the ids the complete step commits.
 */
export function blockIdOf(prefix: string, partNumber: number): string {
  return Buffer.from(`${prefix}-${String(partNumber).padStart(PART_DIGITS, '0')}`).toString('base64');
}

/** The part number a block id of this upload names, or null for another upload's (or another tool's) block. */
export function partNumberOf(prefix: string, blockId: string): number | null {
  const text = Buffer.from(blockId, 'base64').toString('utf8');
  const match = new RegExp(`^${prefix}-(\\d{${PART_DIGITS}})$`).exec(text);
  return match?.[1] ? Number(match[1]) : null;
}

/** The block-id prefix of an upload Cumulo opened; anything else is refused rather than matched loosely. */
export function prefixOfUpload(upload: { uploadId: string }): string {
  if (!PREFIX_PATTERN.test(upload.uploadId)) {
    throw new StorageError('Unknown', 'This upload was not opened by Cumulo on Azure', 'azure');
  }
  return upload.uploadId;
}

/** A fresh block-id prefix: it keeps one upload's blocks apart from another upload of the same name. */
export const newUploadPrefix = (): string => randomBytes(6).toString('hex');

export const isMissing = (error: unknown): boolean =>
  error instanceof Error && 'statusCode' in error && (error as { statusCode?: number }).statusCode === 404;

/** The blocks of this upload the blob holds uncommitted, as parts in part order. */
export async function stagedParts(client: BlockBlobClient, prefix: string): Promise<DirectUploadPart[]> {
  try {
    const list = await client.getBlockList('uncommitted');
    return (list.uncommittedBlocks ?? [])
      .flatMap((block) => {
        const partNumber = partNumberOf(prefix, block.name);
        return partNumber === null ? [] : [{ partNumber, size: block.size, etag: null }];
      })
      .sort((a, b) => a.partNumber - b.partNumber);
  } catch (error) {
    // No block staged yet: the blob does not exist at all.
    if (isMissing(error)) return [];
    throw error;
  }
}

/** The block ids that commit these parts, in part order. */
export const blockIdsOf = (prefix: string, parts: Array<{ partNumber: number }>): string[] =>
  [...parts].sort((a, b) => a.partNumber - b.partNumber).map((part) => blockIdOf(prefix, part.partNumber));

export interface AzureSasSigner {
  /** A blob SAS query string with these permissions, valid for that long. */
  (bucket: string, key: string, permissions: string, expiresInSeconds: number): string;
}

/**
 * Block uploads the browser sends through Put Block URLs carrying a short-lived blob SAS. Staged blocks stay
 * invisible until Put Block List commits them; Azure drops uncommitted blocks a week after, and abort drops them
 * at once.
 */
export function azureDirectUpload(
  service: BlobServiceClient,
  sas: AzureSasSigner,
  rethrow: (error: unknown) => never,
): DirectUpload {
  const blob = (bucket: string, key: string): BlockBlobClient =>
    service.getContainerClient(bucket).getBlockBlobClient(key);
  const prefixOf = prefixOfUpload;

  return {
    // Nothing to open on Azure: blocks are staged straight onto the blob name. The prefix keeps this upload's
    // blocks apart from another upload of the same name.
    start: async () => newUploadPrefix(),

    signParts: async (upload, partNumbers, options) => {
      const prefix = prefixOf(upload);
      const client = blob(upload.bucket, upload.key);
      const query = sas(upload.bucket, upload.key, 'w', options.expiresInSeconds);
      return partNumbers.map((partNumber) => ({
        partNumber,
        url: `${client.url}?comp=block&blockid=${encodeURIComponent(blockIdOf(prefix, partNumber))}&${query}`,
        headers: {},
      }));
    },

    signSingle: async (bucket, key, options) => ({
      partNumber: 1,
      url: `${blob(bucket, key).url}?${sas(bucket, key, 'cw', options.expiresInSeconds)}`,
      headers: {
        'x-ms-blob-type': 'BlockBlob',
        ...(options.contentType ? { 'x-ms-blob-content-type': options.contentType } : {}),
      },
    }),

    listParts: async (upload) => {
      try {
        return await stagedParts(blob(upload.bucket, upload.key), prefixOf(upload));
      } catch (error) {
        return rethrow(error);
      }
    },

    complete: async (upload, parts, options) => {
      const ids = blockIdsOf(prefixOf(upload), parts);
      try {
        const answer = await blob(upload.bucket, upload.key).commitBlockList(ids, {
          blobHTTPHeaders: { blobContentType: options.contentType },
        });
        return { etag: answer.etag ? answer.etag.replace(/^"|"$/g, '') : null };
      } catch (error) {
        return rethrow(error);
      }
    },

    abort: async (upload) => {
      prefixOf(upload);
      const client = blob(upload.bucket, upload.key);
      try {
        const list = await client.getBlockList('all');
        if ((list.uncommittedBlocks ?? []).length === 0) return;
        const exists = await client.exists();
        if (!exists) {
          // Put Block List drops every uncommitted block it does not name: an empty list leaves an empty blob,
          // which then goes, so a name that held nothing before holds nothing after.
          await client.commitBlockList([]);
          await client.delete();
          return;
        }
        // The name holds an object the upload would have replaced. Committing its own blocks again keeps its
        // bytes, headers and metadata and drops the staged ones. An object written in one request has no block
        // list to recommit: its staged blocks are left to Azure, which drops them after a week.
        const committed = list.committedBlocks ?? [];
        const properties = await client.getProperties();
        const committedSize = committed.reduce((total, block) => total + block.size, 0);
        if (committed.length === 0 || committedSize !== properties.contentLength) return;
        await client.commitBlockList(
          committed.map((block) => block.name),
          {
            blobHTTPHeaders: {
              blobContentType: properties.contentType,
              blobContentEncoding: properties.contentEncoding,
              blobContentLanguage: properties.contentLanguage,
              blobContentDisposition: properties.contentDisposition,
              blobCacheControl: properties.cacheControl,
              blobContentMD5: properties.contentMD5,
            },
            metadata: properties.metadata,
            tier: properties.accessTier,
          },
        );
      } catch (error) {
        if (isMissing(error)) return;
        rethrow(error);
      }
    },
  };
}

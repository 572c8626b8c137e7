import type { BlobHTTPHeaders } from '@azure/storage-blob';
import type { ContentHeaders } from '../../object-store.ts';

/**
 * A blob's HTTP headers (its type and content headers) as Put Blob and Put Block List set them. Azure replaces
 * all of them on a write, so a header left out here is not set on the blob.
 */
export function blobHeadersOf(
  contentType: string | undefined,
  headers: ContentHeaders | undefined,
): BlobHTTPHeaders {
  return {
    blobContentType: contentType,
    blobCacheControl: headers?.cacheControl,
    blobContentDisposition: headers?.contentDisposition,
    blobContentEncoding: headers?.contentEncoding,
    blobContentLanguage: headers?.contentLanguage,
  };
}

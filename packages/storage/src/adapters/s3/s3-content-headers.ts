import type { ContentHeaders } from '../../object-store.ts';
import { CONTENT_HEADER_FIELDS, presentHeaders } from '../shared.ts';

/**
 * An object's content headers in S3's two spellings: the HTTP header names of the requests Cumulo signs itself,
 * and the SDK's command fields (PutObject, CreateMultipartUpload, CopyObject and the HeadObject/GetObject outputs).
 */

const HEADER_NAMES: Record<keyof ContentHeaders, string> = {
  cacheControl: 'cache-control',
  contentDisposition: 'content-disposition',
  contentEncoding: 'content-encoding',
  contentLanguage: 'content-language',
};

/** The SDK's fields for the content headers. */
export interface SdkContentHeaders {
  CacheControl?: string | undefined;
  ContentDisposition?: string | undefined;
  ContentEncoding?: string | undefined;
  ContentLanguage?: string | undefined;
}

/** The content headers of an object answer whose header names are lower-case. */
export function contentHeadersOfHttp(headers: Record<string, string | undefined>): ContentHeaders {
  return presentHeaders(
    Object.fromEntries(CONTENT_HEADER_FIELDS.map((field) => [field, headers[HEADER_NAMES[field]]])),
  );
}

/** The request headers that set them (a raw PutObject). */
export function httpHeadersOf(headers: ContentHeaders | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const field of CONTENT_HEADER_FIELDS) {
    const value = headers?.[field];
    if (value) fields[HEADER_NAMES[field]] = value;
  }
  return fields;
}

export function contentHeadersOfSdk(answer: SdkContentHeaders): ContentHeaders {
  return presentHeaders({
    cacheControl: answer.CacheControl,
    contentDisposition: answer.ContentDisposition,
    contentEncoding: answer.ContentEncoding,
    contentLanguage: answer.ContentLanguage,
  });
}

/** The SDK fields that set them; only the fields given, so a command keeps no undefined member it would send. */
export function sdkFieldsOf(headers: ContentHeaders | undefined): SdkContentHeaders {
  const fields: SdkContentHeaders = {};
  if (headers?.cacheControl) fields.CacheControl = headers.cacheControl;
  if (headers?.contentDisposition) fields.ContentDisposition = headers.contentDisposition;
  if (headers?.contentEncoding) fields.ContentEncoding = headers.contentEncoding;
  if (headers?.contentLanguage) fields.ContentLanguage = headers.contentLanguage;
  return fields;
}

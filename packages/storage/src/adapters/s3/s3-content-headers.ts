import type { HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import type { ContentHeaders } from '../../object-store.ts';
import { CONTENT_HEADER_FIELDS, presentHeaders } from '../shared.ts';

/**
 * An object's content headers in S3's two spellings: the HTTP header names of the requests Cumulo signs itself,
 * and the SDK's command fields (PutObject, CreateMultipartUpload, CopyObject and the HeadObject/GetObject outputs).
 */

/**
 * The type an object written with none is given. The SDK's PutObject sends it for a blob body, but its
 * CreateMultipartUpload sends none, and the store then picks its own (S3: binary/octet-stream): the same untyped
 * object would be typed by its size. Every write Cumulo signs itself or starts in parts sends this instead.
 * (Presigned browser uploads are left as the browser types them: the type is part of their signature.)
 */
export const UNTYPED = 'application/octet-stream';

/** The SDK's fields for the content headers. */
export interface SdkContentHeaders {
  CacheControl?: string | undefined;
  ContentDisposition?: string | undefined;
  ContentEncoding?: string | undefined;
  ContentLanguage?: string | undefined;
}

const NAMES: Record<keyof ContentHeaders, { http: string; sdk: keyof SdkContentHeaders }> = {
  cacheControl: { http: 'cache-control', sdk: 'CacheControl' },
  contentDisposition: { http: 'content-disposition', sdk: 'ContentDisposition' },
  contentEncoding: { http: 'content-encoding', sdk: 'ContentEncoding' },
  contentLanguage: { http: 'content-language', sdk: 'ContentLanguage' },
};

/** The content headers of an object answer whose header names are lower-case. */
export function contentHeadersOfHttp(headers: Record<string, string | undefined>): ContentHeaders {
  return presentHeaders(
    Object.fromEntries(CONTENT_HEADER_FIELDS.map((field) => [field, headers[NAMES[field].http]])),
  );
}

/** The content headers of a HeadObject or GetObject output. */
export function contentHeadersOfSdk(answer: SdkContentHeaders): ContentHeaders {
  return presentHeaders(
    Object.fromEntries(CONTENT_HEADER_FIELDS.map((field) => [field, answer[NAMES[field].sdk]])),
  );
}

/** The request headers that set them (a raw PutObject). */
export function httpHeadersOf(headers: ContentHeaders | undefined): Record<string, string> {
  return Object.fromEntries(namesOf(headers, 'http'));
}

/** The SDK fields that set them; only the fields given, so a command keeps no undefined member it would send. */
export function sdkFieldsOf(headers: ContentHeaders | undefined): SdkContentHeaders {
  return Object.fromEntries(namesOf(headers, 'sdk')) as SdkContentHeaders;
}

function namesOf(headers: ContentHeaders | undefined, spelling: 'http' | 'sdk'): Array<[string, string]> {
  return CONTENT_HEADER_FIELDS.flatMap((field) => {
    const value = headers?.[field];
    return value ? [[NAMES[field][spelling], value] as [string, string]] : [];
  });
}

/**
 * A tag set as `x-amz-tagging` (and the SDK's `Tagging`) carries it: URL query encoding, each name and value
 * percent-encoded (a space as %20, which no store can read as anything else). Undefined for no tags.
 */
export function taggingOf(tags: Record<string, string> | undefined): string | undefined {
  const entries = Object.entries(tags ?? {});
  if (entries.length === 0) return undefined;
  return entries.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
}

/**
 * The CopyObject fields that give a copy `added` on top of its source's metadata. MetadataDirective REPLACE sets
 * the type, content headers, Expires and metadata from the request alone, so the source's (`head`) are sent again
 * with it, or the copy would lose them.
 */
export function replacingMetadata(head: HeadObjectCommandOutput, added: Record<string, string>) {
  return {
    MetadataDirective: 'REPLACE' as const,
    ContentType: head.ContentType,
    ...sdkFieldsOf(contentHeadersOfSdk(head)),
    ...(head.Expires ? { Expires: head.Expires } : {}),
    Metadata: { ...head.Metadata, ...added },
  };
}

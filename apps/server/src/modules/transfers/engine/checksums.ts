import { createHash } from 'node:crypto';
import type { ObjectInfo } from '@cumulo/storage';
import { MD5_METADATA, SHA256_METADATA } from './metadata-tags.ts';

/**
 * What a copy is checked against: the checksums the source tells (its MD5, an earlier copy's Cumulo metadata, the
 * listed MD5 unless the object's own answer says it was no MD5). A leaf of the copy methods (`methods/`); the
 * parts ETag of a source uploaded in parts is `source-parts.ts`.
 */

const HEX_MD5 = /^[0-9a-f]{32}$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

export const md5Hex = (bytes: Buffer): string => createHash('md5').update(bytes).digest('hex');

/** What the source says about its content: a comparable MD5 and an earlier copy's SHA-256, each when known. */
export interface SourceChecksums {
  md5: string | null;
  sha256: string | null;
}

/** A hex MD5 in lower case, or null for anything else (a multipart ETag, an Azure ETag, nothing). */
export function comparableMd5(value: string | null | undefined): string | null {
  return value && HEX_MD5.test(value.toLowerCase()) ? value.toLowerCase() : null;
}

export function sourceChecksums(info: ObjectInfo, plannedMd5: string | null): SourceChecksums {
  const candidates = [info.md5, info.metadata[MD5_METADATA], listedMd5Of(info, plannedMd5)];
  const md5 = candidates.map(comparableMd5).find((value) => value !== null);
  const sha256 = info.metadata[SHA256_METADATA];
  return {
    md5: md5 ?? null,
    sha256: sha256 && HEX_SHA256.test(sha256.toLowerCase()) ? sha256.toLowerCase() : null,
  };
}

/**
 * The MD5 the listing told, unless the object's own answer says otherwise: a listing shows an S3 ETag as it is,
 * and an object encrypted with SSE-KMS or a customer key has a 32-hex ETag that is not its MD5. When the object's
 * answer carries that same ETag and no MD5, the listed value was the ETag, not a checksum.
 */
function listedMd5Of(info: ObjectInfo, plannedMd5: string | null): string | null {
  const listed = comparableMd5(plannedMd5);
  if (listed !== null && info.md5 === null && comparableMd5(info.etag) === listed) return null;
  return listed;
}

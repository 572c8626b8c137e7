import type { ListObjectsV2Command, ListObjectsV2CommandOutput } from '@aws-sdk/client-s3';

/**
 * The lean ListObjectsV2 reader. A listing page is the hottest answer this product parses (inventory, planning,
 * sync diffs walk millions of keys), and the SDK's general XML parser allocates about 15 MB of short-lived objects
 * for one 1000-key page, enough for V8 to promote each page and grow the heap by ~100 MB over a 200 000-object
 * walk before a full collection. This reader scans the page once for the few fields a listing needs and allocates
 * little more than the entries themselves.
 *
 * It is strict about what it understands and hands anything else back to the SDK: a comment, a CDATA section, an
 * unexpected root or an unbalanced document make it answer null, and the SDK then parses the same bytes itself.
 */

export interface ListedEntry {
  key: string;
  size: number;
  lastModified: Date | null;
  /** As sent, quotes included; the adapter strips them. */
  etag: string | null;
}

export interface ParsedListing {
  contents: ListedEntry[];
  prefixes: string[];
  isTruncated: boolean;
  nextContinuationToken: string | null;
}

const ROOT = 'ListBucketResult';
const SLASH = 47; // /
const QUESTION = 63; // ?
const BANG = 33; // !

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g;

/** Decodes the five XML entities and numeric character references; an unknown entity makes the page unreadable. */
export function decodeText(text: string): string | null {
  if (!text.includes('&')) return text;
  // A bare '&' is not well-formed XML.
  if (text.replace(ENTITY, '').includes('&')) return null;
  let unknown = false;
  const decoded = text.replace(ENTITY, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (code > 0x10ffff) unknown = true;
      return unknown ? whole : String.fromCodePoint(code);
    }
    const named = NAMED_ENTITIES[body];
    if (named === undefined) unknown = true;
    return named ?? whole;
  });
  return unknown ? null : decoded;
}

function tagNameAt(xml: string, start: number, gt: number): string {
  let end = start;
  while (end < gt) {
    const code = xml.charCodeAt(end);
    // whitespace (attributes follow) or the '/' of a self-closing tag
    if (code === 32 || code === 9 || code === 10 || code === 13 || code === SLASH) break;
    end++;
  }
  return xml.slice(start, end);
}

/** Parses one ListObjectsV2 answer, or answers null when the document holds anything this reader does not know. */
export function parseListObjectsV2(xml: string): ParsedListing | null {
  const listing: ParsedListing = {
    contents: [],
    prefixes: [],
    isTruncated: false,
    nextContinuationToken: null,
  };
  const stack: string[] = [];
  let entry: Partial<ListedEntry> | null = null;
  let prefix: string | null = null;
  let sawRoot = false;
  let pos = 0;
  for (;;) {
    const lt = xml.indexOf('<', pos);
    if (lt === -1) break;
    if (stack.length === 0 && xml.slice(pos, lt).trim() !== '') return null; // text outside the root
    const gt = xml.indexOf('>', lt);
    if (gt === -1) return null;
    const first = xml.charCodeAt(lt + 1);
    if (first === QUESTION) {
      if (stack.length > 0) return null;
      pos = gt + 1;
      continue;
    }
    if (first === BANG) return null; // comment, CDATA or DOCTYPE: the SDK's parser knows them
    if (first === SLASH) {
      const name = stack.pop();
      if (name === undefined || tagNameAt(xml, lt + 2, gt) !== name) return null;
      if (stack.length === 1 && name === 'Contents') {
        if (!entry || entry.key === undefined || entry.size === undefined) return null;
        listing.contents.push({
          key: entry.key,
          size: entry.size,
          lastModified: entry.lastModified ?? null,
          etag: entry.etag ?? null,
        });
        entry = null;
      } else if (stack.length === 1 && name === 'CommonPrefixes') {
        if (prefix !== null) listing.prefixes.push(prefix);
        prefix = null;
      }
      pos = gt + 1;
      if (stack.length === 0) break;
      continue;
    }

    const name = tagNameAt(xml, lt + 1, gt);
    if (stack.length === 0) {
      if (name !== ROOT || sawRoot) return null;
      sawRoot = true;
    }
    const parent = stack.at(-1);
    if (xml.charCodeAt(gt - 1) === SLASH) {
      // An empty element: an empty ETag or token reads as absent, a whole empty entry is not a listing.
      if (parent === ROOT && (name === 'Contents' || name === 'CommonPrefixes')) return null;
      pos = gt + 1;
      continue;
    }
    stack.push(name);
    if (parent === ROOT && name === 'Contents') entry = {};

    // A leaf: its text runs to its own closing tag, which the loop then reads.
    const next = xml.indexOf('<', gt + 1);
    pos = gt + 1;
    if (next === -1 || xml.charCodeAt(next + 1) !== SLASH) continue;
    const text = decodeText(xml.slice(gt + 1, next));
    if (text === null) return null;
    pos = next;
    if (parent === ROOT) {
      if (name === 'IsTruncated') listing.isTruncated = text === 'true';
      else if (name === 'NextContinuationToken') listing.nextContinuationToken = text || null;
      else if (name === 'EncodingType') return null; // url-encoded keys: not asked for, not decoded here
    } else if (parent === 'Contents' && entry && stack.length === 3) {
      if (name === 'Key') entry.key = text;
      else if (name === 'Size') {
        const size = Number(text);
        if (!Number.isSafeInteger(size) || size < 0) return null;
        entry.size = size;
      } else if (name === 'LastModified') {
        const date = new Date(text);
        entry.lastModified = Number.isNaN(date.getTime()) ? null : date;
      } else if (name === 'ETag') entry.etag = text || null;
    } else if (parent === 'CommonPrefixes' && stack.length === 3 && name === 'Prefix') {
      prefix = text;
    }
  }
  if (!sawRoot || stack.length !== 0) return null; // no listing, or cut short
  return listing;
}

/** The SDK's own parse of a page in the same shape, for the answers the lean reader declined. */
export function listingOf(answer: ListObjectsV2CommandOutput): ParsedListing {
  return {
    contents: (answer.Contents ?? []).map((entry) => ({
      key: entry.Key ?? '',
      size: entry.Size ?? 0,
      lastModified: entry.LastModified ?? null,
      etag: entry.ETag || null,
    })),
    prefixes: (answer.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [p.Prefix] : [])),
    isTruncated: answer.IsTruncated ?? false,
    nextContinuationToken: answer.NextContinuationToken ?? null,
  };
}

/** What the SDK is left to parse once the lean reader has the page: nothing. */
const EMPTY_PAGE = `<${ROOT}></${ROOT}>`;

interface RawResponse {
  statusCode?: number;
  body?: unknown;
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Reads the successful answer of `command` with the lean reader, inside the SDK's deserializer (so retries, error
 * answers and the response metadata stay the SDK's): the page lands in the returned holder and the SDK is given an
 * empty listing to parse. When the lean reader declines, the SDK gets the original bytes and the holder stays null.
 */
export function withLeanListing(command: ListObjectsV2Command): { listing: ParsedListing | null } {
  const holder: { listing: ParsedListing | null } = { listing: null };
  command.middlewareStack.addRelativeTo(
    <Args, Output extends { response: unknown }>(next: (args: Args) => Promise<Output>) =>
      async (args: Args): Promise<Output> => {
        const result = await next(args);
        const response = result.response as RawResponse;
        holder.listing = null;
        if (response.statusCode !== 200 || !isAsyncIterable(response.body)) return result;
        const bytes = await collect(response.body);
        const listing = parseListObjectsV2(bytes.toString('utf8'));
        holder.listing = listing;
        response.body = listing ? Buffer.from(EMPTY_PAGE) : bytes;
        return result;
      },
    { relation: 'after', toMiddleware: 'deserializerMiddleware', name: 'cumuloLeanListing' },
  );
  return holder;
}

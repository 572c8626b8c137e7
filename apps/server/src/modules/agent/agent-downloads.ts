import { objectMessages, type AgentDownloadFile } from '@cumulo/contract';
import type { ObjectInfo, ObjectStore } from '@cumulo/storage';
import { badRequest } from '../../errors.ts';

/** Files answered by one POST /agent/downloads call at most; the rest follow through `continuation`. */
export const DOWNLOAD_PAGE_FILES = 500;
/** How long a file's signed GET stays valid: enough to start a slow large file, useless soon after if leaked. */
const AGENT_DOWNLOAD_URL_SECONDS = 60 * 60;
/** Files stat'ed or signed at once. */
const PARALLEL = 16;

/**
 * Where a listing stopped: the index of the chosen path it was in, and the store's own token inside that path's
 * listing (null: the path starts afresh). Carried to the agent as opaque base64url JSON.
 */
interface DownloadCursor {
  path: number;
  token: string | null;
}

export function encodeCursor(cursor: DownloadCursor): string {
  return Buffer.from(JSON.stringify({ p: cursor.path, t: cursor.token })).toString('base64url');
}

/** The cursor a continuation names, or null when it is not one this server wrote. */
export function decodeCursor(continuation: string): DownloadCursor | null {
  try {
    const parsed = JSON.parse(Buffer.from(continuation, 'base64url').toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { p, t } = parsed as { p?: unknown; t?: unknown };
    if (typeof p !== 'number' || !Number.isSafeInteger(p) || p < 0) return null;
    if (t !== null && typeof t !== 'string') return null;
    return { path: p, token: t };
  } catch {
    return null;
  }
}

/** The folder a chosen key sits in ('' at the bucket's root): what is cut from the keys under it. */
function parentOf(chosen: string): string {
  const trimmed = chosen.endsWith('/') ? chosen.slice(0, -1) : chosen;
  const slash = trimmed.lastIndexOf('/');
  return slash < 0 ? '' : trimmed.slice(0, slash + 1);
}

/** Inside a walked folder, a name starting with a dot (a file or any folder on the way) is left out. */
function hiddenUnder(folder: string, key: string): boolean {
  return key
    .slice(folder.length)
    .split('/')
    .some((name) => name.startsWith('.'));
}

/** A page of files under the chosen keys (folders walked recursively), and where the next page starts. */
export async function downloadPage(
  store: ObjectStore,
  bucket: string,
  paths: string[],
  from: DownloadCursor,
): Promise<{ objects: Array<{ chosen: string; object: ObjectInfo }>; next: DownloadCursor | null }> {
  const objects: Array<{ chosen: string; object: ObjectInfo }> = [];
  let cursor: DownloadCursor | null = from;
  while (cursor && cursor.path < paths.length && objects.length < DOWNLOAD_PAGE_FILES) {
    const chosen = paths[cursor.path] ?? '';
    if (!chosen.endsWith('/')) {
      // A run of chosen files is looked up together, as many as the page still holds.
      const run: string[] = [];
      let index: number = cursor.path;
      while (
        index < paths.length &&
        !(paths[index] ?? '').endsWith('/') &&
        objects.length + run.length < DOWNLOAD_PAGE_FILES
      ) {
        run.push(paths[index] ?? '');
        index += 1;
      }
      const stats = await mapLimit(run, PARALLEL, (key) => store.stat(bucket, key));
      stats.forEach((object, i) => {
        const key = run[i] ?? '';
        // Said now, rather than as a file the agent fails on later.
        if (!object) throw badRequest(objectMessages.objectMissing(key));
        objects.push({ chosen: key, object });
      });
      cursor = { path: index, token: null };
      continue;
    }
    // One page of the folder's listing, no larger than what this answer still holds: memory stays one page.
    const listing = store.list(bucket, {
      prefix: chosen,
      pageSize: DOWNLOAD_PAGE_FILES - objects.length,
      ...(cursor.token ? { continuationToken: cursor.token } : {}),
    });
    let nextToken: string | null = null;
    for await (const page of listing) {
      for (const object of page.objects) {
        // Folder markers carry no bytes; the agent makes folders from the files' paths.
        if (object.key.endsWith('/') || hiddenUnder(chosen, object.key)) continue;
        objects.push({ chosen, object });
      }
      nextToken = page.continuationToken;
      break;
    }
    cursor = nextToken ? { path: cursor.path, token: nextToken } : { path: cursor.path + 1, token: null };
  }
  const next = cursor && cursor.path < paths.length ? cursor : null;
  return { objects, next };
}

/** Each object with its signed GET URL and where it goes under the local folder. */
export async function signFiles(
  store: ObjectStore,
  bucket: string,
  objects: Array<{ chosen: string; object: ObjectInfo }>,
): Promise<AgentDownloadFile[]> {
  return mapLimit(objects, PARALLEL, async ({ chosen, object }) => ({
    key: object.key,
    relative_path: object.key.slice(parentOf(chosen).length),
    size: object.size,
    etag: object.etag ? object.etag.replace(/"/g, '') : null,
    url: await signGet(store, bucket, object.key),
  }));
}

const signGet = (store: ObjectStore, bucket: string, key: string) =>
  store.signedUrl(bucket, key, { method: 'GET', expiresInSeconds: AGENT_DOWNLOAD_URL_SECONDS });

/** Fresh signed GET URLs for keys a download listed before, in the order asked; nothing is looked up. */
export async function signKeys(
  store: ObjectStore,
  bucket: string,
  keys: string[],
): Promise<Array<{ key: string; url: string }>> {
  return mapLimit(keys, PARALLEL, async (key) => ({ key, url: await signGet(store, bucket, key) }));
}

async function mapLimit<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

import {
  DOWNLOAD_URL_TTL_SECONDS,
  FS_FILE_TYPE,
  SEARCH_BUCKETS_MAX,
  SEARCH_LIMIT_DEFAULT,
  baseNameOf,
  objectMessages,
  storageIdOf,
  storageIdParts,
  type CreateFolderBody,
  type DeleteObjectsBody,
  type DownloadLink,
  type DownloadUrlQuery,
  type ListingAnswer,
  type ListingItem,
  type ListingQuery,
  type ListObjectsBody,
  type SearchAnswer,
  type SearchBody,
  type SearchResult,
} from '@cumulo/contract';
import { StorageError, type ObjectInfo, type ObjectStore } from '@cumulo/storage';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { CloudAccountRow, CloudAccountsRepo } from '../cloud-accounts/cloud-accounts.repo.ts';
import { providerError } from '../cloud-accounts/provider-error.ts';
import type { StoreRegistry } from '../cloud-accounts/store-registry.ts';
import type { AuditActor, AuditEvent } from '../audit/audit.writer.ts';

/** Keys per listing request while walking (deletes, searches): the providers' page maximum. */
const WALK_PAGE = 1000;
/**
 * Keys one search call reads per bucket before it stops and says `truncated`: no provider searches by name, so a
 * name search is a walk of the listing, and an unbounded walk of a ten-million-key bucket would hold a request for
 * minutes. A one-bucket search resumes from its continuation token; a search across buckets does not page.
 */
const SEARCH_SCAN_MAX = 20_000;
/** Buckets walked at once by a search across buckets, and objects checked at once before signing links. */
const PARALLEL = 4;
/** Paths of one delete named in its audit entry; a longer selection is counted, not listed. */
const AUDITED_PATHS = 20;

type Accounts = Pick<CloudAccountsRepo, 'find' | 'list' | 'bucketsOf'>;
/** Writes one audit entry (recordAudit on the database): objects are the provider's, there is no row to join. */
type RecordAudit = (actor: AuditActor, event: AuditEvent) => Promise<void>;
type Stores = Pick<StoreRegistry, 'storeFor'>;
/** Forgets what Cumulo keeps of deleted keys (media info's kept probe, custom metadata: MediaRepo.forgetObjects). */
type ForgetObjects = (account: CloudAccountRow, bucket: string, keys: string[]) => Promise<void>;

/** Whether any object's key starts with `prefix` (one listing request of one key, as a rule). */
async function holdsAny(store: ObjectStore, bucket: string, prefix: string): Promise<boolean> {
  for await (const page of store.list(bucket, { prefix, pageSize: 1 })) {
    if (page.objects.length > 0) return true;
  }
  return false;
}

/** A folder path as listed: '' for the root, otherwise ending with '/' (keys may hold '//', so no collapsing). */
function folderPrefix(path: string): string {
  return path === '' || path.endsWith('/') ? path : `${path}/`;
}

/**
 * The bucket browser's calls (spec 001 §7 "Browsing and objects"). Repo-less: buckets and objects live at the
 * provider; the organisation's account rows (cloudAccountsRepo.find) decide what a caller may reach.
 */
export class ObjectsService {
  constructor(
    private readonly accounts: Accounts,
    private readonly stores: Stores,
    private readonly log: Logger,
    private readonly recordAudit: RecordAudit,
    private readonly forgetObjects: ForgetObjects = async () => {},
  ) {}

  /**
   * GET /storage/{id}/content: one page of one folder level, folders and files in key order; with `match`
   * 'prefix', of the keys starting with the path as typed (one level below its folder).
   */
  async list(principal: Principal, storageId: string, query: ListingQuery): Promise<ListingAnswer> {
    const { account, bucket } = await this.#storage(principal, storageId);
    return this.#page(account, bucket, query);
  }

  /**
   * POST /cloudaccount/list_objects: the migration screen's object list (spec 001 §7 "Fetch objects list"), one
   * page of one folder as GET /storage/{id}/content answers it, in that call's field names.
   */
  async listObjects(principal: Principal, body: ListObjectsBody) {
    const account = await this.#account(principal, body.cloudAccountId);
    const page = await this.#page(account, body.bucketName, {
      path: body.path,
      limit: body.count,
      continuationToken: body.continuationToken,
    });
    return { data: page.items, continuationToken: page.continuation_token };
  }

  /** POST /storage/{id}/content/download: GET /transfers/download_url for the storage's account and bucket. */
  async storageDownloadUrls(principal: Principal, storageId: string, paths: string[]) {
    const { account, bucket } = await this.#storage(principal, storageId);
    return this.downloadUrls(principal, {
      cloud_account_id: account.id,
      bucket_name: bucket,
      paths,
    });
  }

  async #page(account: CloudAccountRow, bucket: string, query: ListingQuery): Promise<ListingAnswer> {
    const path = query.match === 'prefix' ? query.path : folderPrefix(query.path);
    const store = await this.stores.storeFor(account);
    const pages = store.list(bucket, {
      prefix: path || undefined,
      delimiter: '/',
      pageSize: query.limit,
      continuationToken: query.continuationToken,
    });
    let page;
    try {
      // Only the first page: the generator stops there and fetches nothing more.
      for await (const first of pages) {
        page = first;
        break;
      }
    } catch (error) {
      throw this.#providerFailure(error, bucket);
    }
    const folders = (page?.prefixes ?? []).map((prefix) => folderItem(bucket, prefix));
    // The current folder's own marker object (`path` itself) is not a row of its listing.
    const files = (page?.objects ?? []).filter((o) => o.key !== path).map((o) => fileItem(bucket, o));
    // `last_file` (the last key the caller already shows) drops a row a provider repeats at a page boundary:
    // s3rver repeats a common prefix, and a listing that changed between two pages can too.
    const after = query.continuationToken ? query.last_file : undefined;
    const items = mergeByKey(folders, files).filter(
      (item) => after === undefined || compareKeys(item.key, after) > 0,
    );
    return {
      items,
      last_file: items.at(-1)?.key ?? null,
      path,
      continuation_token: page?.continuationToken ?? null,
      id: storageIdOf(account.id, bucket),
      bucket_name: bucket,
      cloud_account_id: account.id,
    };
  }

  /**
   * DELETE /transfers/delete_object. A folder path is walked page by page and each page deleted before the next
   * is read, so memory holds one page whatever the folder holds.
   */
  async deleteObjects(principal: Principal, body: DeleteObjectsBody) {
    authorize(principal, 'object.delete');
    const account = await this.#account(principal, body.cloud_account_id);
    const store = await this.stores.storeFor(account);
    const bucket = body.bucket_name;
    if (body.paths.some((path) => /^\/*$/.test(path))) throw badRequest(objectMessages.bucketRootDelete);
    let deleted = 0;
    const failures: Array<{ key: string; message: string }> = [];
    const remove = async (keys: string[]) => {
      if (keys.length === 0) return;
      const result = await store.deleteMany(bucket, keys);
      deleted += result.deleted.length;
      await this.forgetObjects(account, bucket, result.deleted);
      failures.push(...result.errors);
    };
    try {
      await remove(body.paths.filter((path) => !path.endsWith('/')));
      for (const folder of new Set(body.paths.filter((path) => path.endsWith('/')))) {
        for await (const page of store.list(bucket, { prefix: folder, pageSize: WALK_PAGE })) {
          await remove(page.objects.map((o) => o.key));
        }
      }
    } catch (error) {
      throw this.#providerFailure(error, bucket);
    }
    this.log.info({ accountId: account.id, bucket, deleted, failed: failures.length }, 'objects deleted');
    if (deleted > 0) await this.#recordDelete(principal, account, bucket, body.paths, deleted);
    if (failures.length > 0) {
      const [first] = failures;
      throw badRequest(
        `${objectMessages.deleteFailed} (${failures.length} not deleted; ${first?.key}: ${first?.message})`,
      );
    }
    return { message: objectMessages.deleted(deleted), deleted };
  }

  /** GET /transfers/download_url: short-lived signed GET links that save under the object's own name. */
  async downloadUrls(principal: Principal, query: DownloadUrlQuery): Promise<DownloadLink[]> {
    const account = await this.#account(principal, query.cloud_account_id);
    const store = await this.stores.storeFor(account);
    const bucket = query.bucket_name;
    if (query.paths.some((path) => path.endsWith('/'))) throw badRequest(objectMessages.folderDownload);
    const paths = [...new Set(query.paths)];
    try {
      // A link to a missing key would only fail later, in someone else's browser; say so now.
      const stats = await mapLimit(paths, PARALLEL, (path) => store.stat(bucket, path));
      const missing = paths.find((_, index) => stats[index] === null);
      if (missing !== undefined) throw badRequest(objectMessages.objectMissing(missing));
      return await mapLimit(paths, PARALLEL, async (path) => {
        const name = baseNameOf(path);
        const url = await store.signedUrl(bucket, path, {
          method: 'GET',
          expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
          downloadName: name,
        });
        return { path, name, url, expires_in: DOWNLOAD_URL_TTL_SECONDS };
      });
    } catch (error) {
      throw this.#providerFailure(error, bucket);
    }
  }

  /** PUT /transfers/create_folder: a zero-byte `folder/` marker, the convention every provider console follows. */
  async createFolder(principal: Principal, body: CreateFolderBody) {
    authorize(principal, 'object.createFolder');
    const account = await this.#account(principal, body.cloud_account_id);
    const store = await this.stores.storeFor(account);
    const bucket = body.bucket_name;
    const name = baseNameOf(body.path);
    try {
      // A folder exists as its marker, or as the objects under it (most tools write no marker); a file of its name
      // beside it would show as two entries of one name.
      const [marker, file, inside] = await Promise.all([
        store.stat(bucket, body.path),
        store.stat(bucket, body.path.replace(/\/$/, '')),
        holdsAny(store, bucket, body.path),
      ]);
      if (marker || inside) throw badRequest(objectMessages.folderExists(name));
      if (file) throw badRequest(objectMessages.fileNamedLikeFolder(name));
      await store.write(bucket, body.path, Buffer.alloc(0), { size: 0 });
    } catch (error) {
      throw this.#providerFailure(error, bucket);
    }
    // The folder is the provider's, not a row of ours: its entry is written once the provider holds it.
    await this.recordAudit(principal, {
      entity: 'Object',
      type: 'Added',
      resource: `${bucket}/${body.path}`,
      resourceId: `${account.id}/${bucket}/${body.path}`,
      changes: [
        { property: 'folder', value: body.path, initial: null },
        { property: 'account', value: account.name, initial: null },
      ],
    });
    return { message: objectMessages.folderCreated(name), path: body.path };
  }

  /**
   * One entry per request, however many keys it removed: the paths the member chose (a folder stands for what was
   * under it) and the count of objects really deleted. Written once the provider deleted them, failures or not.
   */
  async #recordDelete(
    principal: Principal,
    account: CloudAccountRow,
    bucket: string,
    paths: string[],
    deleted: number,
  ) {
    const chosen = [...new Set(paths)];
    const resource = chosen.length === 1 ? `${bucket}/${chosen[0]}` : `${bucket}/ (${chosen.length} items)`;
    await this.recordAudit(principal, {
      entity: 'Object',
      type: 'Deleted',
      resource,
      resourceId: chosen.length === 1 ? `${account.id}/${bucket}/${chosen[0]}` : `${account.id}/${bucket}`,
      changes: [
        {
          property: 'paths',
          value: null,
          initial: [
            ...chosen.slice(0, AUDITED_PATHS),
            ...(chosen.length > AUDITED_PATHS ? [`${chosen.length - AUDITED_PATHS} more`] : []),
          ].join(', '),
        },
        { property: 'objects', value: null, initial: String(deleted) },
        { property: 'account', value: null, initial: account.name },
      ],
    });
  }

  /**
   * POST /search: object names containing the keyword (case-insensitive), or whose path below `config.path`
   * starts with it, in one bucket or across the organisation's buckets known to the inventory. Limits: at most
   * SEARCH_SCAN_MAX keys read per bucket per call, SEARCH_BUCKETS_MAX buckets per call; folders match only when
   * they have a marker object. `count` is the number of results of this answer, not a total.
   */
  async search(principal: Principal, body: SearchBody) {
    const { config } = body;
    const limit = config.limit ?? SEARCH_LIMIT_DEFAULT;
    const prefix = folderPrefix(config.path ?? '');
    const keyword = body.keyword.toLowerCase();
    const requested = config.cloud_account_id
      ? [config.cloud_account_id]
      : config.cloud_accounts && config.cloud_accounts.length > 0
        ? config.cloud_accounts
        : null;

    if (config.bucket) {
      if (requested?.length !== 1 || !requested[0]) {
        throw badRequest('Choose the cloud account of the bucket to search.');
      }
      const account = await this.#account(principal, requested[0]);
      const found = await this.#searchBucket(
        account,
        config.bucket,
        prefix,
        keyword,
        limit,
        config.continuation_token,
      );
      return answerOf(found.results, found.next, found.truncated);
    }

    const accounts = requested
      ? await Promise.all(requested.map((id) => this.#account(principal, id)))
      : await this.accounts.list(principal.organizationId);
    const byId = new Map(accounts.map((a) => [a.id, a]));
    const buckets = await this.accounts.bucketsOf(principal.organizationId, [...byId.keys()]);
    const reached = buckets.slice(0, SEARCH_BUCKETS_MAX);
    const found = await mapLimit(reached, PARALLEL, async (row) => {
      const account = byId.get(row.cloudAccountId);
      if (!account) return { results: [], next: null, truncated: false };
      try {
        return await this.#searchBucket(account, row.name, prefix, keyword, limit, undefined);
      } catch (error) {
        // One unreachable bucket must not hide the matches of the others.
        this.log.warn({ err: error, accountId: account.id, bucket: row.name }, 'search skipped a bucket');
        return { results: [], next: null, truncated: true };
      }
    });
    const results = found.flatMap((f) => f.results);
    const truncated =
      buckets.length > reached.length || results.length > limit || found.some((f) => f.truncated || f.next);
    return answerOf(results.slice(0, limit), null, truncated);
  }

  async #searchBucket(
    account: CloudAccountRow,
    bucket: string,
    prefix: string,
    keyword: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ results: SearchResult[]; next: string | null; truncated: boolean }> {
    const store = await this.stores.storeFor(account);
    const start = readCursor(cursor);
    const results: SearchResult[] = [];
    let pageToken = start.token;
    let skip = start.skip;
    let scanned = 0;
    try {
      for await (const page of store.list(bucket, {
        prefix: prefix || undefined,
        pageSize: WALK_PAGE,
        continuationToken: pageToken ?? undefined,
      })) {
        for (let index = skip; index < page.objects.length; index++) {
          const object = page.objects[index];
          if (!object || object.key === prefix || !matches(object.key, prefix, keyword)) continue;
          results.push(searchItem(account, bucket, object));
          if (results.length === limit) {
            const more = index + 1 < page.objects.length || page.continuationToken !== null;
            return {
              results,
              next: more ? writeCursor(pageToken, index + 1) : null,
              truncated: false,
            };
          }
        }
        scanned += page.objects.length;
        skip = 0;
        pageToken = page.continuationToken;
        if (scanned >= SEARCH_SCAN_MAX && pageToken) {
          return { results, next: writeCursor(pageToken, 0), truncated: true };
        }
      }
    } catch (error) {
      throw this.#providerFailure(error, bucket);
    }
    return { results, next: null, truncated: false };
  }

  async #account(principal: Principal, accountId: string): Promise<CloudAccountRow> {
    const account = await this.accounts.find(principal.organizationId, accountId);
    if (!account) throw notFound();
    return account;
  }

  async #storage(principal: Principal, storageId: string) {
    const parts = storageIdParts(storageId);
    if (!parts) throw badRequest(objectMessages.storageIdInvalid, { id: [objectMessages.storageIdInvalid] });
    return { account: await this.#account(principal, parts.accountId), bucket: parts.bucketName };
  }

  #providerFailure(error: unknown, bucket: string) {
    if (error instanceof StorageError && error.code === 'BucketNotFound') {
      return notFound(`The bucket ${bucket} does not exist in this account.`);
    }
    if (error instanceof AppError) return error;
    return providerError(error);
  }
}

function folderItem(bucket: string, prefix: string): ListingItem {
  const name = baseNameOf(prefix);
  return {
    basename: name,
    name,
    path: prefix,
    key: prefix,
    full_path: `${bucket}/${prefix}`,
    size: 0,
    type: FS_FILE_TYPE.folder,
    last_modified: null,
    download_url: null,
  };
}

function fileItem(bucket: string, object: ObjectInfo): ListingItem {
  const name = baseNameOf(object.key);
  return {
    basename: name,
    name,
    path: object.key,
    key: object.key,
    full_path: `${bucket}/${object.key}`,
    size: object.size,
    // A marker object of a deeper folder cannot appear at this level; one listed here is a key ending in '/'.
    type: object.key.endsWith('/') ? FS_FILE_TYPE.folder : FS_FILE_TYPE.file,
    last_modified: object.lastModified?.toISOString() ?? null,
    download_url: null,
  };
}

function searchItem(account: CloudAccountRow, bucket: string, object: ObjectInfo): SearchResult {
  return {
    name: baseNameOf(object.key),
    bucket_name: bucket,
    cloud_account_id: account.id,
    project_name: account.name,
    path: object.key,
    key: object.key,
    size: object.size,
    type: object.key.endsWith('/') ? FS_FILE_TYPE.folder : FS_FILE_TYPE.file,
    last_modified: object.lastModified?.toISOString() ?? null,
  };
}

/** A name match (the last segment contains the keyword) or a prefix match (the key below `prefix` starts with it). */
function matches(key: string, prefix: string, keyword: string): boolean {
  return (
    baseNameOf(key).toLowerCase().includes(keyword) ||
    key.slice(prefix.length).toLowerCase().startsWith(keyword)
  );
}

/** Listing order: UTF-8 bytes, as S3 and Azure sort keys (UTF-16 order differs above U+FFFF). */
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Providers answer folders and files as two sorted lists; the browser shows them as one, in key order. */
function mergeByKey(folders: ListingItem[], files: ListingItem[]): ListingItem[] {
  const merged: ListingItem[] = [];
  let f = 0;
  let o = 0;
  while (f < folders.length || o < files.length) {
    const folder = folders[f];
    const file = files[o];
    if (folder && (!file || compareKeys(folder.key, file.key) < 0)) {
      merged.push(folder);
      f++;
    } else if (file) {
      merged.push(file);
      o++;
    }
  }
  return merged;
}

function answerOf(results: SearchResult[], next: string | null, truncated: boolean): SearchAnswer {
  return { count: results.length, results, continuation_token: next, truncated };
}

/** A search position: the provider token of the page to read and how many of its keys were already checked. */
function writeCursor(token: string | null, skip: number): string {
  return Buffer.from(JSON.stringify({ t: token, s: skip })).toString('base64url');
}

function readCursor(cursor: string | undefined): { token: string | null; skip: number } {
  if (!cursor) return { token: null, skip: 0 };
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      t?: unknown;
      s?: unknown;
    };
    const token = typeof value.t === 'string' ? value.t : null;
    const skip = typeof value.s === 'number' && Number.isInteger(value.s) && value.s >= 0 ? value.s : 0;
    return { token, skip };
  } catch {
    throw badRequest('The search continuation token is not valid; start the search again.');
  }
}

/** Runs `work` over `items` with at most `limit` at once, answers in input order. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      answers[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return answers;
}

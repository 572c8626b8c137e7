import { z } from 'zod';
import { text } from './text.ts';

/**
 * The cloud bucket browser (spec 001 §2 "Cloud bucket browser", §3 "Bucket listing item", §7 "Browsing and
 * objects", §8, §9). Keys are full object keys; a folder is a key prefix ending with '/', shown whether or not a
 * zero-byte `folder/` marker object exists.
 */

/** §9 "Listing page size": the browser asks 30 rows per page; more are offered while the server has more. */
export const BROWSER_PAGE_SIZE = 30;
/** §7: GET /storage/{id}/content answers 15 rows when no limit is given. */
export const LISTING_DEFAULT_LIMIT = 15;
/** Providers answer at most 1000 keys per listing request (S3, GCS); a bigger limit would only be cut. */
export const LISTING_MAX_LIMIT = 1000;
/** §2: names are cut at 70 characters in display. */
export const DISPLAY_NAME_MAX = 70;
/** §9: the search box waits 500 ms after the last keystroke. */
export const SEARCH_DEBOUNCE_MS = 500;
/** Download links are short-lived: long enough to start a download or paste a link, not to be a share. */
export const DOWNLOAD_URL_TTL_SECONDS = 60 * 60;
/** Paths per delete or download call; a folder path counts once whatever it holds. */
export const OBJECT_PATHS_MAX = 1000;
/** Key length limit of S3 and GCS (Azure allows more); also the limit of a path in these calls. */
export const OBJECT_KEY_MAX = 1024;

/**
 * Listing item `type` (spec 001 §3 allows the FS_FILE_TYPE_FILE string or 1 file / 2 folder): Cumulo answers the
 * numbers, the variant that carries no provider-specific vocabulary.
 */
export const FS_FILE_TYPE = { file: 1, folder: 2 } as const;

/** Texts of spec 001 §2 and §8 for these calls; the ones the spec leaves to us are marked. */
export const objectMessages = {
  selectHint: 'Select a file to see available actions',
  linkGenerated: 'Link generated !',
  linkCopied: 'Link copied!',
  linkFailed: 'failed to generate download link, please retry again',
  deleteFailed: 'failed to delete files, please retry again',
  playFailed: 'failed to file, please retry again',
  /* Texts the spec leaves to us ("not shown"). */
  deleted: (count: number) => `${count} object${count === 1 ? '' : 's'} deleted successfully`,
  deleteConfirm: (count: number) =>
    `Delete ${count} selected item${count === 1 ? '' : 's'}? Folders are deleted with everything inside them.`,
  folderCreated: (name: string) => `Folder ${name} created successfully`,
  folderExists: (name: string) => `A folder named ${name} already exists here.`,
  /** Not in the spec: a file of the folder's name beside it would read as two entries of one name. */
  fileNamedLikeFolder: (name: string) => `A file named ${name} already exists here: choose another name.`,
  folderNameRequired: 'Enter a folder name.',
  folderNameInvalid: 'A folder name cannot contain "." or ".." as a part of its path.',
  pathTooLong: `A path can hold at most ${OBJECT_KEY_MAX} characters.`,
  pathsRequired: 'Select at least one file.',
  pathsTooMany: `At most ${OBJECT_PATHS_MAX} items can be handled at once.`,
  bucketRootDelete: 'The whole bucket cannot be deleted from here; select files or folders.',
  folderDownload: 'Folders cannot be downloaded with a link; select files.',
  objectMissing: (path: string) => `${path} does not exist (any more).`,
  storageIdInvalid: 'The storage id must read "{cloudAccountId}/{bucketName}".',
  keywordRequired: 'Enter something to search for.',
} as const;

/**
 * A create-folder name as the spec wants it (001 §5): leading slashes removed, doubled slashes collapsed; the
 * answer also loses surrounding spaces and ends with exactly one '/'. '' when nothing is left.
 */
export function normalizeFolderPath(input: string): string {
  const collapsed = input
    .trim()
    .replace(/\/{2,}/g, '/')
    .replace(/^\/+/, '');
  if (!collapsed) return '';
  return collapsed.endsWith('/') ? collapsed : `${collapsed}/`;
}

/** The last segment of a key, without the trailing slash of a folder. */
export function baseNameOf(key: string): string {
  const trimmed = key.endsWith('/') ? key.slice(0, -1) : key;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** A name cut for display (§2: 70 characters); the caller shows the full name on hover. */
export function displayName(name: string, max: number = DISPLAY_NAME_MAX): string {
  return name.length > max ? `${name.slice(0, max)}…` : name;
}

/** "{cloudAccountId}/{bucketName}", the storages[].id of an account (spec 001 §3). */
export function storageIdOf(accountId: string, bucketName: string): string {
  return `${accountId}/${bucketName}`;
}

/** The account id and bucket name of a storage id; null when it is not "{uuid}/{bucket}". */
export function storageIdParts(storageId: string): { accountId: string; bucketName: string } | null {
  const slash = storageId.indexOf('/');
  const accountId = storageId.slice(0, Math.max(slash, 0));
  const bucketName = storageId.slice(slash + 1);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(accountId) || !bucketName) {
    return null;
  }
  return { accountId, bucketName };
}

/** Bucket listing item (spec 001 §3). `path` and `key` are the full key; `name` and `basename` the last segment. */
export const listingItem = z.object({
  basename: z.string(),
  name: z.string(),
  path: z.string(),
  key: z.string(),
  /** "{bucketName}/{key}". */
  full_path: z.string(),
  size: z.number(),
  type: z.union([z.literal(FS_FILE_TYPE.file), z.literal(FS_FILE_TYPE.folder)]),
  last_modified: z.string().nullable(),
  /** Listings carry no links (a signed URL per row would sign thousands nobody opens): ask download_url. */
  download_url: z.null(),
});
export type ListingItem = z.infer<typeof listingItem>;

const keyText = text({ max: OBJECT_KEY_MAX, maxMessage: objectMessages.pathTooLong });

/**
 * GET /storage/{id}/content query. `last_file` is accepted and echoed; paging follows `continuationToken`. `path`
 * is a folder ('photos' lists 'photos/'), unless `match` is 'prefix': then the keys and folders starting with it
 * ('gallery/thumb_01' lists 'gallery/thumb_01a.jpg' and 'gallery/thumb_01x/'), as `aws s3 ls` does.
 */
export const listingQuery = z.object({
  limit: z.coerce
    .number({ error: `limit must be a number from 1 to ${LISTING_MAX_LIMIT}.` })
    .int(`limit must be a number from 1 to ${LISTING_MAX_LIMIT}.`)
    .min(1, `limit must be a number from 1 to ${LISTING_MAX_LIMIT}.`)
    .max(LISTING_MAX_LIMIT, `limit must be a number from 1 to ${LISTING_MAX_LIMIT}.`)
    .default(LISTING_DEFAULT_LIMIT),
  path: keyText.default(''),
  match: z.enum(['folder', 'prefix']).optional(),
  last_file: keyText.optional(),
  continuationToken: text({ max: 8192 }).optional(),
});
export type ListingQuery = z.infer<typeof listingQuery>;

export const listingAnswer = z.object({
  items: z.array(listingItem),
  /** Key of the last item of this page, null for an empty page. */
  last_file: z.string().nullable(),
  path: z.string(),
  /** Present while more rows follow: pass it back as `continuationToken`. */
  continuation_token: z.string().nullable(),
  id: z.string(),
  bucket_name: z.string(),
  cloud_account_id: z.string(),
});
export type ListingAnswer = z.infer<typeof listingAnswer>;

/**
 * POST /cloudaccount/list_objects, the migration screen's "Fetch objects list" (spec 001 §7: cloudAccountId,
 * bucketName, path, continuationToken, count): one page of one folder, as GET /storage/{id}/content.
 */
export const listObjectsBody = z.object({
  cloudAccountId: z.uuid({ error: 'Choose a cloud account.' }),
  bucketName: text({ error: 'Choose a bucket.', trim: true, max: 255, maxMessage: 'Choose a bucket.' }).min(
    1,
    'Choose a bucket.',
  ),
  path: text({ max: OBJECT_KEY_MAX, maxMessage: objectMessages.pathTooLong }).default(''),
  continuationToken: text({ max: 8192 }).optional(),
  count: z
    .number({ error: `count must be a number from 1 to ${LISTING_MAX_LIMIT}.` })
    .int(`count must be a number from 1 to ${LISTING_MAX_LIMIT}.`)
    .min(1, `count must be a number from 1 to ${LISTING_MAX_LIMIT}.`)
    .max(LISTING_MAX_LIMIT, `count must be a number from 1 to ${LISTING_MAX_LIMIT}.`)
    .default(LISTING_DEFAULT_LIMIT),
});
export type ListObjectsBody = z.infer<typeof listObjectsBody>;
/** `data`: the rows; `continuationToken` while more follow. */
export const listObjectsAnswer = z.object({
  data: z.array(listingItem),
  continuationToken: z.string().nullable(),
});

const target = {
  cloud_account_id: z.uuid({ error: 'Choose a cloud account.' }),
  bucket_name: text({ error: 'Choose a bucket.', trim: true, max: 255, maxMessage: 'Choose a bucket.' }).min(
    1,
    'Choose a bucket.',
  ),
};

const pathList = z
  .array(keyText.min(1, objectMessages.pathsRequired), { error: objectMessages.pathsRequired })
  .min(1, objectMessages.pathsRequired)
  .max(OBJECT_PATHS_MAX, objectMessages.pathsTooMany);

/** DELETE /transfers/delete_object: a path ending with '/' deletes the folder and everything under it. */
export const deleteObjectsBody = z.object({ ...target, paths: pathList });
export type DeleteObjectsBody = z.infer<typeof deleteObjectsBody>;
export const deleteObjectsAnswer = z.object({ message: z.string(), deleted: z.number() });
export type DeleteObjectsAnswer = z.infer<typeof deleteObjectsAnswer>;

/** GET /transfers/download_url?cloud_account_id&bucket_name&paths=a&paths=b */
export const downloadUrlQuery = z.object({
  ...target,
  paths: z
    .union([keyText, z.array(keyText)], { error: objectMessages.pathsRequired })
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .pipe(pathList),
});
export type DownloadUrlQuery = z.infer<typeof downloadUrlQuery>;
export const downloadLink = z.object({
  path: z.string(),
  name: z.string(),
  url: z.string(),
  expires_in: z.number(),
});
export type DownloadLink = z.infer<typeof downloadLink>;
export const downloadUrlAnswer = z.array(downloadLink);
/** POST /storage/{id}/content/download: signed links of these keys of the storage (as GET /transfers/download_url). */
export const storageDownloadBody = z.object({ paths: pathList });

/** PUT /transfers/create_folder; `path` is the new folder's full path ('photos/2025') before normalising. */
export const createFolderBody = z.object({
  ...target,
  path: text({
    error: objectMessages.folderNameRequired,
    max: OBJECT_KEY_MAX,
    maxMessage: objectMessages.pathTooLong,
  })
    .transform(normalizeFolderPath)
    .pipe(
      keyText
        .min(1, objectMessages.folderNameRequired)
        .refine(
          (path) => !path.split('/').some((part) => part === '.' || part === '..'),
          objectMessages.folderNameInvalid,
        ),
    ),
});
/** The body after validation: `path` normalised, ending with '/'. */
export type CreateFolderBody = z.output<typeof createFolderBody>;
export const createFolderAnswer = z.object({ message: z.string(), path: z.string() });

/** POST /search results per call (spec 001 §9 result options 20, 50, 100; view default 20). */
export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 100;
/** Buckets one search reaches; an organisation with more narrows by account or bucket. */
export const SEARCH_BUCKETS_MAX = 50;

/**
 * POST /search (spec 001 §3 "Search request"): a case-insensitive match of the keyword against object names
 * under `path`, in one bucket (`bucket` + `cloud_account_id`) or across the organisation's buckets
 * (optionally only those of `cloud_accounts`). `continuation_token` pages a one-bucket search.
 */
export const searchBody = z.object({
  keyword: text({ error: objectMessages.keywordRequired, trim: true, max: 255 }).min(
    1,
    objectMessages.keywordRequired,
  ),
  config: z
    .object({
      limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
      query_type: text({ max: 64 }).optional(),
      bucket: text({ trim: true, max: 255 }).optional(),
      cloud_account_id: z.uuid().optional(),
      cloud_accounts: z.array(z.uuid()).max(100).optional(),
      path: keyText.optional(),
      continuation_token: text({ max: 8192 }).optional(),
    })
    .default({}),
});
export type SearchBody = z.output<typeof searchBody>;
/** What a client sends (config may be left out). */
export type SearchRequest = z.input<typeof searchBody>;

export const searchResult = z.object({
  name: z.string(),
  bucket_name: z.string(),
  cloud_account_id: z.string(),
  project_name: z.string(),
  /** Full key, as `path` of a listing item. */
  path: z.string(),
  key: z.string(),
  size: z.number(),
  type: z.union([z.literal(FS_FILE_TYPE.file), z.literal(FS_FILE_TYPE.folder)]),
  last_modified: z.string().nullable(),
});
export type SearchResult = z.infer<typeof searchResult>;

export const searchAnswer = z.object({
  count: z.number(),
  results: z.array(searchResult),
  /** One-bucket searches: present while the walk can go on; pass it back in config.continuation_token. */
  continuation_token: z.string().nullable(),
  /** True when the bounded walk stopped before reaching the end of some bucket (see the server's limits). */
  truncated: z.boolean(),
});
export type SearchAnswer = z.infer<typeof searchAnswer>;

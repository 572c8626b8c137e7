import { z } from 'zod';
import { text } from './text.ts';

/* ------------------------------------------------------------------------------------------------------------------
 * Media search (issue 26 point 4; spec 001 §2 "Media search", §3 "Search request", §5, §6, §9): an index of every
 * object's name, location, size, type and metadata, searched by name or by location with advanced filters. Gated by
 * the LiteMAM package (the spec's advanced-search package) and the `media_search` service ACL.
 * ---------------------------------------------------------------------------------------------------------------- */

/** Result options of spec 001 §9 ("result options 20, 50, 100"; "view default 20"). */
export const MEDIA_SEARCH_LIMITS = [20, 50, 100] as const;
export const MEDIA_SEARCH_LIMIT_DEFAULT = 20;
export const MEDIA_SEARCH_LIMIT_MAX = 100;
/** The longest keyword a search takes; the search box cuts what is typed to it. */
export const MEDIA_SEARCH_KEYWORD_MAX = 255;
/** The longest filter value, and the most filters one search carries: more is refused as unsafe, not cut. */
export const MEDIA_SEARCH_VALUE_MAX = 256;
export const MEDIA_SEARCH_FILTERS_MAX = 10;
/** Spec 001 §9: the search box waits this long after the last keystroke before it searches. */
export const MEDIA_SEARCH_DEBOUNCE_MS = 500;
/** The /mediasearch screen's title (the spec names no route or title). */
export const MEDIA_SEARCH_TITLE = 'Media Search';
/** The most cloud accounts one search names. */
export const MEDIA_SEARCH_ACCOUNTS_MAX = 100;

/**
 * Spec 001 §9's comparators, as written. `greater than` and `less than` are ours (not in the spec): they make the
 * number a digit-only value becomes (§5) useful for size and duration.
 */
export const MEDIA_SEARCH_COMPARATORS = [
  'match',
  'contains',
  'does not contain',
  'does not match',
  'greater than',
  'less than',
] as const;
export type MediaSearchComparator = (typeof MEDIA_SEARCH_COMPARATORS)[number];

/**
 * How the keyword is used (spec 001 §7: "query_type proxy_files_location"): over object names (the default), or over
 * locations: the whole key, inside the cloud, bucket and path `config` names.
 */
export const MEDIA_SEARCH_QUERY_TYPES = ['name', 'location', 'proxy_files_location'] as const;
export type MediaSearchQueryType = (typeof MEDIA_SEARCH_QUERY_TYPES)[number];

/** The fields a filter may name, besides `metadata.<name>` (user, custom and media info metadata). */
export const MEDIA_SEARCH_FIELDS = ['name', 'path', 'key', 'bucket', 'account', 'size', 'type'] as const;
export type MediaSearchField = (typeof MEDIA_SEARCH_FIELDS)[number];
/**
 * `metadata.` then a lower-case name of letters, digits, '_', '-' and inner spaces (a label named 'Shot Type'), with
 * '.' between parts (at most 4 parts): `metadata.color`, `metadata.shot type`, `metadata.video.codec`. Names travel
 * as parameters, never as SQL text.
 */
export const MEDIA_SEARCH_METADATA_FIELD =
  /^metadata\.[a-z0-9](?:[a-z0-9 _-]{0,62}[a-z0-9_-])?(\.[a-z0-9](?:[a-z0-9 _-]{0,62}[a-z0-9_-])?){0,3}$/;

export const mediaSearchMessages = {
  /* Texts the spec leaves to us ("not shown"). */
  packageRequired: 'Media search is part of the LiteMAM package.',
  unknownField: (field: string) =>
    `${field.slice(0, 80)} is not a field media search knows: use ${MEDIA_SEARCH_FIELDS.join(', ')} or metadata.<name>.`,
  unknownComparator: `A filter compares with one of: ${MEDIA_SEARCH_COMPARATORS.join(', ')}.`,
  unknownQueryType: `Search by ${MEDIA_SEARCH_QUERY_TYPES.join(', ')}.`,
  filterIncomplete: 'A filter needs a field, a comparator and a value.',
  filterType: 'Filters are plain statements (field, comparator, value); groups of filters are not supported.',
  valueTooLong: `A filter value is at most ${MEDIA_SEARCH_VALUE_MAX} characters.`,
  tooManyFilters: `Use at most ${MEDIA_SEARCH_FILTERS_MAX} filters in one search.`,
  tooManyAccounts: `Search at most ${MEDIA_SEARCH_ACCOUNTS_MAX} cloud accounts at once.`,
  limit: `Show ${MEDIA_SEARCH_LIMITS.join(', ')} results at a time.`,
  numberField: (field: string) =>
    `${field} is not a number: compare it with match, contains or their opposites.`,
  numberOnly: (comparator: string) => `'${comparator}' compares numbers: enter digits only.`,
  /* The screen (spec 001 §2 "Media search"): its quoted texts as written, the rest ours. */
  noFileSelected: 'No file selected',
  selectFile: 'Select a file to see metadata',
  filesSelected: (count: number) => `${count} files selected`,
  resultCount: (count: number) => `${count} ${count === 1 ? 'file' : 'files'} found`,
  noVideo:
    'This file has no video stream, or it was never probed: open its media info in the bucket browser.',
  noAudio:
    'This file has no audio stream, or it was never probed: open its media info in the bucket browser.',
  playFailed: 'The video could not be opened. Please try again.',
} as const;

/**
 * An advanced filter as typed (spec 001 §5): valid only when key, comparator and value are all non-empty. A key
 * that is neither a field nor `metadata.<name>` names metadata (`client` → `metadata.client`); a value of digits
 * only becomes a number.
 */
export function mediaSearchStatement(draft: {
  key: string;
  comparator: string;
  value: string;
}): MediaSearchRequestFilter | null {
  const key = draft.key.trim();
  const value = draft.value.trim();
  if (key === '' || draft.comparator === '' || value === '') return null;
  const known = (MEDIA_SEARCH_FIELDS as readonly string[]).includes(key) || key.startsWith('metadata.');
  return {
    type: 'statement',
    field: known ? key : `metadata.${key.toLowerCase()}`,
    comparator: draft.comparator as MediaSearchComparator,
    value: mediaSearchValue(value),
  };
}
/** A filter as a request carries it. */
export type MediaSearchRequestFilter = {
  type: 'statement';
  field: string;
  comparator: MediaSearchComparator;
  value: string | number;
};

/** §5: "all-digit values become numbers"; anything else stays text. */
export function mediaSearchValue(value: string): string | number {
  return /^\d{1,15}$/.test(value) ? Number(value) : value;
}

/** One advanced filter (spec 001 §3 "context (filters: type statement, field, value, comparator)"). */
export const mediaSearchFilter = z
  .strictObject(
    {
      type: z.literal('statement', { error: mediaSearchMessages.filterType }),
      field: text({ trim: true, max: 300 })
        .min(1, mediaSearchMessages.filterIncomplete)
        .refine(
          (field) =>
            (MEDIA_SEARCH_FIELDS as readonly string[]).includes(field) ||
            MEDIA_SEARCH_METADATA_FIELD.test(field),
          { error: (issue) => mediaSearchMessages.unknownField(String(issue.input)) },
        ),
      comparator: z.enum(MEDIA_SEARCH_COMPARATORS, { error: mediaSearchMessages.unknownComparator }),
      value: z
        .union([
          text({ trim: true, max: MEDIA_SEARCH_VALUE_MAX, maxMessage: mediaSearchMessages.valueTooLong }).min(
            1,
            mediaSearchMessages.filterIncomplete,
          ),
          z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        ])
        .transform((value) => (typeof value === 'number' ? value : mediaSearchValue(value))),
    },
    { error: mediaSearchMessages.filterType },
  )
  .refine(
    (filter) =>
      (filter.comparator !== 'greater than' && filter.comparator !== 'less than') ||
      typeof filter.value === 'number',
    {
      error: (issue) =>
        mediaSearchMessages.numberOnly(String((issue.input as { comparator: string }).comparator)),
    },
  );
export type MediaSearchFilter = z.output<typeof mediaSearchFilter>;

/** POST /media/search: spec 001 §3 "Search request". */
export const mediaSearchBody = z.object({
  keyword: text({ trim: true, max: 10_000 })
    .default('')
    // The box cuts what is typed to the longest keyword rather than refusing a pasted paragraph.
    .transform((keyword) => keyword.slice(0, MEDIA_SEARCH_KEYWORD_MAX).trim()),
  config: z
    .object({
      limit: z
        .number()
        .min(0, mediaSearchMessages.limit)
        .max(MEDIA_SEARCH_LIMIT_MAX, mediaSearchMessages.limit)
        .refine((limit) => (MEDIA_SEARCH_LIMITS as readonly number[]).includes(limit), {
          error: mediaSearchMessages.limit,
        })
        .default(MEDIA_SEARCH_LIMIT_DEFAULT),
      query_type: z
        .enum(MEDIA_SEARCH_QUERY_TYPES, { error: mediaSearchMessages.unknownQueryType })
        .default('name'),
      bucket: text({ trim: true, max: 255 }).optional(),
      /** §7's media-search spelling of `bucket`. */
      bucket_name: text({ trim: true, max: 255 }).optional(),
      cloud_account_id: z.uuid().optional(),
      path: text({ max: 1024 }).optional(),
      cloud_accounts: z
        .array(z.uuid())
        .max(MEDIA_SEARCH_ACCOUNTS_MAX, mediaSearchMessages.tooManyAccounts)
        .optional(),
    })
    .default({ limit: MEDIA_SEARCH_LIMIT_DEFAULT, query_type: 'name' }),
  context: z
    .object({
      filters: z
        .array(mediaSearchFilter, { error: mediaSearchMessages.filterType })
        .max(MEDIA_SEARCH_FILTERS_MAX, mediaSearchMessages.tooManyFilters)
        .default([]),
    })
    .default({ filters: [] }),
});
export type MediaSearchBody = z.output<typeof mediaSearchBody>;
export type MediaSearchRequest = z.input<typeof mediaSearchBody>;

/** Spec 001 §3 "File result". */
export const mediaSearchResult = z.object({
  name: z.string(),
  bucket_name: z.string(),
  cloud_account_id: z.string(),
  /** The folder the object is in ('' at the bucket's top, else ending with '/'). */
  path: z.string(),
  key: z.string(),
  /** The cloud account's name. */
  project_name: z.string(),
  /** size, content_type, last_modified, and the user, custom and media info metadata the index holds. */
  metadata: z.object({
    size: z.number(),
    content_type: z.string().nullable(),
    last_modified: z.string().nullable(),
    user: z.record(z.string(), z.string()),
    custom: z.record(z.string(), z.string()),
    media_info: z.record(z.string(), z.unknown()),
  }),
  /** A preview's URL; null: the preview pane asks the playback call for one when it shows the file. */
  proxyUrl: z.string().nullable(),
  selected: z.boolean(),
});
export type MediaSearchResult = z.infer<typeof mediaSearchResult>;

export const mediaSearchAnswer = z.object({
  /** Every match, however many `results` shows. */
  count: z.number(),
  results: z.array(mediaSearchResult),
});
export type MediaSearchAnswer = z.infer<typeof mediaSearchAnswer>;

import { sql } from 'drizzle-orm';
import {
  bigint,
  customType,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { cloudAccounts } from './cloud-accounts.ts';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * The media-search index (issue 26 point 4): one row per object of a connected bucket, kept fresh by the bucket
 * inventory, uploads and deletes (modules/search/README.md). Metadata columns are null while unknown (a listing
 * does not carry user metadata), so a walk never erases what an upload or a probe recorded.
 */
export const searchObjects = pgTable(
  'search_objects',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    bucket: text('bucket').notNull(),
    key: text('key').notNull(),
    /** The key's last segment. */
    name: text('name').notNull(),
    /** The folder: '' at the bucket's top, else ending with '/'. */
    prefix: text('prefix').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    contentType: text('content_type'),
    /** Lower-case, without the dot; '' when the name has none. */
    extension: text('extension').notNull(),
    lastModified: timestamp('last_modified', { withTimezone: true }),
    userMetadata: jsonb('user_metadata').$type<Record<string, string>>(),
    customMetadata: jsonb('custom_metadata').$type<Record<string, string>>(),
    mediaInfo: jsonb('media_info').$type<Record<string, unknown>>(),
    /** When a walk or a hook last saw the object: a finished walk removes the rows it did not see. */
    seenAt: timestamp('seen_at', { withTimezone: true }).notNull().defaultNow(),
    /** Name words and every metadata value, for the keyword's full-text match. */
    document: tsvector('document')
      .notNull()
      .generatedAlwaysAs(
        sql`to_tsvector('simple'::regconfig, translate(name, '._-/', '    ')) || jsonb_to_tsvector('simple'::regconfig, coalesce(user_metadata, '{}'::jsonb), '["string", "numeric"]'::jsonb) || jsonb_to_tsvector('simple'::regconfig, coalesce(custom_metadata, '{}'::jsonb), '["string", "numeric"]'::jsonb) || jsonb_to_tsvector('simple'::regconfig, coalesce(media_info, '{}'::jsonb), '["string", "numeric"]'::jsonb)`,
      ),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.cloudAccountId, t.bucket, t.key] }),
    // 'contains' on a name or a key: trigram GIN answers ILIKE '%…%' without reading every row. A key is its folder
    // then its name (search-query.ts `keyContains`): folder and name are indexed, whole keys only for folder markers.
    index('search_objects_name_trgm').using('gin', t.name.op('gin_trgm_ops')),
    index('search_objects_prefix_trgm').using('gin', t.prefix.op('gin_trgm_ops')),
    index('search_objects_folder_key_trgm')
      .using('gin', t.key.op('gin_trgm_ops'))
      .where(sql`${t.key} like '%/'`),
    index('search_objects_document').using('gin', t.document),
    index('search_objects_org_name').on(t.organizationId, t.name),
  ],
);

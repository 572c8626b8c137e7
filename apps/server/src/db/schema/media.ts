import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/** What ffprobe told of one object: the general, video and audio sections of media info (spec 001 §3). */
export interface ProbedSections {
  general: Record<string, string | number>;
  video: Array<Record<string, string | number>>;
  audio: Array<Record<string, string | number>>;
}

/**
 * The last probe of one object, kept per version so a second look at the same bytes does not read them again.
 * `version` is the provider's ETag (its last-modified time where it gives none) and, with `size`, says which bytes
 * were probed: an overwrite changes them and the next read probes again. `sections` null: ffprobe found no
 * video or audio in those bytes (remembered too, so a text file is not read twice either).
 */
export const mediaProbes = pgTable(
  'media_probes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    bucketName: text('bucket_name').notNull(),
    path: text('path').notNull(),
    version: text('version').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sections: jsonb('sections').$type<ProbedSections>(),
    probedAt: timestamp('probed_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  // Keys run to 1024 characters, up to 4 KB in UTF-8: past what a btree entry holds, so the index takes their MD5.
  (t) => [uniqueIndex('media_probes_object_uq').on(t.cloudAccountId, t.bucketName, sql`md5(${t.path})`)],
);

/**
 * Custom metadata of one object (spec 001 §3 "Metadata entry", category Custom): kept here rather than in the
 * object's own metadata, so every provider takes it and adding an entry does not rewrite the object.
 */
export const mediaMetadata = pgTable(
  'media_metadata',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    bucketName: text('bucket_name').notNull(),
    path: text('path').notNull(),
    name: text('name').notNull(),
    value: text('value').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    uniqueIndex('media_metadata_name_uq').on(t.cloudAccountId, t.bucketName, sql`md5(${t.path})`, t.name),
    index('media_metadata_org_idx').on(t.organizationId),
  ],
);

import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';

/** A connected storage account. Credentials are a sealed JSON document (crypto/keys.ts SecretBox), never returned. */
export const cloudAccounts = pgTable(
  'cloud_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    provider: text('provider', {
      enum: ['aws', 'wasabi', 'azure', 'backblaze', 'genericS3', 'google', 'filebase'],
    }).notNull(),
    name: text('name').notNull(),
    credentials: text('credentials').notNull(),
    /** The last four characters of the access key (or account name) for display as ••••abcd. */
    keyHint: text('key_hint').notNull(),
    region: text('region'),
    serviceUrl: text('service_url'),
    billingBucket: text('billing_bucket'),
    /** Why the last ingestion could not read the billing bucket, in words; null once one could. */
    billingError: text('billing_error'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('cloud_accounts_org_idx').on(t.organizationId)],
);

/** The bucket inventory: one row per bucket of an account, refreshed by the inventory job. */
export const buckets = pgTable(
  'buckets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    region: text('region'),
    /** The provider's creation date (Azure: last modified; it keeps none). */
    createdOn: timestamp('created_on', { withTimezone: true }),
    objectCount: bigint('object_count', { mode: 'number' }).notNull().default(0),
    totalBytes: bigint('total_bytes', { mode: 'number' }).notNull().default(0),
    status: text('status', { enum: ['pending', 'running', 'done', 'failed'] })
      .notNull()
      .default('pending'),
    error: text('error'),
    inventoriedAt: timestamp('inventoried_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('buckets_account_name_key').on(t.cloudAccountId, t.name),
    index('buckets_org_idx').on(t.organizationId),
  ],
);

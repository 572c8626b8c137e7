import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
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
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('cloud_accounts_org_idx').on(t.organizationId)],
);

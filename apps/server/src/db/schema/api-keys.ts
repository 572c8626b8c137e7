import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';

/**
 * A member's API keys (spec 002 §3 "API key"). The secret is never stored: only its HMAC-SHA-256 under a key
 * derived from the master key (see api-keys.service.ts), so neither this row nor a dump of the table can be
 * replayed. A deleted key keeps its row (deleted_at) so its access key is never handed out again.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The member who created it: calls made with the key act as them. */
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    accessKey: text('access_key').notNull().unique(),
    secretHash: text('secret_hash').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [index('api_keys_user_idx').on(table.organizationId, table.userId)],
);

import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './identity.ts';

/**
 * The instance operators recorded by Cumulo itself (modules/admin/README.md): the first account of a fresh
 * install, written in its sign-up transaction. No route writes this table; `OPERATOR_EMAILS` names the others.
 */
export const instanceOperators = pgTable('instance_operators', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** Why they are one: 'first-account'. */
  source: text('source').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

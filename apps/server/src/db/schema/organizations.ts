import { sql } from 'drizzle-orm';
import { boolean, integer, pgTable, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const organizations = pgTable('organizations', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** What the operator wrote about the organisation when adding it (admin console, issue 28). */
  description: text('description'),
  isCbs: boolean('is_cbs').notNull().default(false),
  confirmedWasabi: boolean('confirmed_wasabi').notNull().default(false),
  confirmedC2c: boolean('confirmed_c2c').notNull().default(false),
  confirmedFtx: boolean('confirmed_ftx').notNull().default(false),
  /** 4 = every provider may be added (spec 000 §6). */
  userType: integer('user_type').notNull().default(4),
  createdAt: timestamp('created_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

export const roles = pgTable('roles', {
  id: smallint('id').primaryKey(),
  title: text('title').notNull().unique(),
});

import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/**
 * A SIZE or COST alert on an account or one of its buckets (spec 000 §3 "Alert"). `over` remembers whether the
 * last check found the value above the limit, so a crossing notifies once and a later drop re-arms it.
 */
export const alerts = pgTable(
  'alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    /** null: the whole account. */
    bucketName: text('bucket_name'),
    kind: text('kind', { enum: ['SIZE', 'COST'] }).notNull(),
    sizeLimit: bigint('size_limit', { mode: 'number' }),
    costLimit: numeric('cost_limit', { precision: 20, scale: 5, mode: 'number' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    over: boolean('over').notNull().default(false),
    lastNotified: timestamp('last_notified', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('alerts_org_account_idx').on(t.organizationId, t.cloudAccountId)],
);

/** A bell notification of the organisation (spec 000 §3 "Notification list item"); read state is per user. */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull(),
    status: text('status', { enum: ['normal', 'processing', 'error', 'warning', 'alerts'] }).notNull(),
    avatar: text('avatar'),
    alertId: uuid('alert_id').references(() => alerts.id, { onDelete: 'set null' }),
    /** Who sees it in the bell: every member, or only Owners and Admins (e.g. a sync's delete approval). */
    audience: text('audience', { enum: ['members', 'approvers', 'owners'] })
      .notNull()
      .default('members'),
    /** Where the bell entry leads (a path of the web app), when it asks for an action. */
    link: text('link'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('notifications_org_created_idx').on(t.organizationId, t.createdAt)],
);

/** Who has read which notification: one member reading the bell does not mark it read for the whole team. */
export const notificationReads = pgTable(
  'notification_reads',
  {
    notificationId: uuid('notification_id')
      .notNull()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    readAt: timestamp('read_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.notificationId, t.userId] })],
);

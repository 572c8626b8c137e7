import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/** One shared file: where it lives and what the recipient sees. */
export interface SharedFile {
  cloud_account_id: string;
  bucket_name: string;
  path: string;
  size: number;
}

/**
 * A share of one or many files (spec 001 §3 "Share item", "Share options"). The link is Cumulo's own
 * /sharing/{token}: only the token's SHA-256 is stored, the password is an argon2id hash, and each download hands
 * out a short-lived signed URL, so a share outlives a provider's presign cap and can be revoked.
 */
export const shares = pgTable(
  'shares',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    cloudAccountId: uuid('cloud_account_id')
      .notNull()
      .references(() => cloudAccounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    files: jsonb('files').$type<SharedFile[]>().notNull(),
    recipients: text('recipients')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** 'email' or 'chat'. */
    channel: text('channel', { enum: ['email', 'chat'] }).notNull(),
    passwordHash: text('password_hash'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('shares_org_created_idx').on(t.organizationId, t.createdAt)],
);

/** Every download through a share link: which file, when, from where. */
export const shareDownloads = pgTable(
  'share_downloads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    shareId: uuid('share_id')
      .notNull()
      .references(() => shares.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    size: bigint('size', { mode: 'number' }),
    ip: text('ip'),
    userAgent: text('user_agent'),
    downloadedAt: timestamp('downloaded_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index('share_downloads_share_idx').on(t.shareId, t.downloadedAt)],
);

/** Per-organisation chat sharing: an incoming-webhook URL (Slack, Teams, Mattermost…), encrypted at rest. */
export const chatWebhooks = pgTable('chat_webhooks', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  /** SecretBox-sealed URL: an incoming-webhook URL is a credential. */
  urlSealed: text('url_sealed').notNull(),
  channelName: text('channel_name').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

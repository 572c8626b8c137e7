import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { AgentDirection, AgentPlatform } from '@cumulo/contract';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { cloudAccounts } from './cloud-accounts.ts';

/**
 * The transfer agents (ftX) paired with a member's account (modules/agent/README.md). The device token is never
 * stored: only its SHA-256 (the token has 256 random bits, so a fast hash is as safe as a slow one and keeps every
 * agent call cheap). A revoked device keeps its row (revoked_at) so its history still names it.
 */
export const agentDevices = pgTable(
  'agent_devices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The member the agent acts for. */
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    platform: text('platform').$type<AgentPlatform>().notNull(),
    version: text('version').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('agent_devices_user_idx').on(t.organizationId, t.userId)],
);

/** One-time pairing codes (hashed): single use, AGENT_PAIR_CODE_TTL_SECONDS. */
export const agentPairingCodes = pgTable(
  'agent_pairing_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    /** The device the code was redeemed for. */
    deviceId: uuid('device_id').references(() => agentDevices.id, { onDelete: 'set null' }),
  },
  (t) => [index('agent_pairing_codes_user_idx').on(t.organizationId, t.userId)],
);

/** One-time connect tickets (hashed) the page hands its agent: bound to one device, AGENT_TICKET_TTL_SECONDS. */
export const agentTickets = pgTable(
  'agent_tickets',
  {
    ticketHash: text('ticket_hash').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => agentDevices.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('agent_tickets_device_idx').on(t.deviceId)],
);

/** The agent's transfer history (spec 001 §3 "Agent history item"), one row per reported transfer. */
export const agentTransfers = pgTable(
  'agent_transfers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => agentDevices.id, { onDelete: 'cascade' }),
    /** The agent's own id of the transfer: a report sent twice is kept once. */
    transferId: uuid('transfer_id').notNull(),
    direction: text('direction').$type<AgentDirection>().notNull(),
    /** The account may be removed later; its history stays. */
    cloudAccountId: uuid('cloud_account_id').references(() => cloudAccounts.id, { onDelete: 'set null' }),
    bucket: text('bucket').notNull(),
    files: jsonb('files').$type<string[]>().notNull().default([]),
    filesCount: integer('files_count').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** agentCost(size) when reported, so a later price change does not rewrite the past. */
    cost: numeric('cost', { precision: 20, scale: 6, mode: 'number' }).notNull(),
    isDirectory: boolean('is_directory').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    uniqueIndex('agent_transfers_device_transfer_idx').on(t.deviceId, t.transferId),
    index('agent_transfers_org_time_idx').on(t.organizationId, t.createdAt),
    index('agent_transfers_user_time_idx').on(t.organizationId, t.userId, t.createdAt),
  ],
);

import { sql } from 'drizzle-orm';
import { bigserial, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { AuditChange, AuditEntity, AuditType } from '@cumulo/contract';
import { organizations } from './organizations.ts';
import { users } from './identity.ts';
import { apiKeys } from './api-keys.ts';
import { agentDevices } from './agent.ts';

/**
 * The audit trail (ARCHITECTURE "Audit trail"): one row per change to an entity, written in the change's own
 * transaction by `recordAudit` (modules/audit/audit.writer.ts). Append-only: a trigger of migration 0015 refuses
 * UPDATE and DELETE, except the foreign-key actions of an organisation or a member removed.
 */
export const audits = pgTable(
  'audits',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The member who acted; null for what Cumulo did by itself, or once the member's row is gone. */
    authorUserId: uuid('author_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** The author's name when they acted, so the entry still says who after they leave. */
    authorName: text('author_name').notNull(),
    /** The API key the author acted through, if any. */
    apiKeyId: uuid('api_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    /** The transfer agent (ftX device) the author acted through, if any. */
    agentDeviceId: uuid('agent_device_id').references(() => agentDevices.id, { onDelete: 'set null' }),
    entity: text('entity').$type<AuditEntity>().notNull(),
    type: text('type').$type<AuditType>().notNull(),
    /** The thing's name as it was (an account's name, a bucket's, a member's e-mail). */
    resource: text('resource').notNull(),
    /** The thing's id, so the tree groups the entries of one thing whatever its name became. */
    resourceId: text('resource_id'),
    changes: jsonb('changes').$type<AuditChange[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    index('audits_org_time_idx').on(t.organizationId, t.createdAt, t.id),
    index('audits_org_entity_idx').on(t.organizationId, t.entity, t.createdAt),
    index('audits_org_author_idx').on(t.organizationId, t.authorUserId, t.createdAt),
  ],
);

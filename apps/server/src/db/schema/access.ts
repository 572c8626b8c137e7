import { bigint, boolean, index, pgTable, smallint, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations, roles } from './organizations.ts';
import { users } from './identity.ts';

/**
 * Per-role service ACLs of an organisation (spec 002 §3 ACL, §6): one row per role and service, created
 * idempotently on first read so the PUT calls have ids. No row means the default: on, unlimited.
 */
export const roleAccessLevels = pgTable(
  'role_access_levels',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    roleId: smallint('role_id')
      .notNull()
      .references(() => roles.id),
    /** An `AccessService` of packages/contract. */
    service: text('service').notNull(),
    enabled: boolean('enabled').notNull().default(true),
  },
  (t) => [uniqueIndex('role_access_levels_key').on(t.organizationId, t.roleId, t.service)],
);

/** A role ACL's permission values (spec 002 §3 Permission): bytes, -1 unlimited. */
export const rolePermissions = pgTable(
  'role_permissions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    roleAccessLevelId: uuid('role_access_level_id')
      .notNull()
      .references(() => roleAccessLevels.id, { onDelete: 'cascade' }),
    /** An `AccessAttribute` of packages/contract. */
    attribute: text('attribute').notNull(),
    value: bigint('value', { mode: 'number' }).notNull().default(-1),
  },
  (t) => [uniqueIndex('role_permissions_key').on(t.roleAccessLevelId, t.attribute)],
);

/**
 * A member's own ACL settings. `enabled` NULL follows the member's role, so a change of the role reaches every
 * member without a setting of their own, and a role change of the member resets theirs to NULL.
 */
export const userAccessLevels = pgTable(
  'user_access_levels',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    service: text('service').notNull(),
    enabled: boolean('enabled'),
  },
  (t) => [
    uniqueIndex('user_access_levels_key').on(t.userId, t.service),
    index('user_access_levels_org_idx').on(t.organizationId),
  ],
);

/** A member's own permission values; NULL follows the role. */
export const userPermissions = pgTable(
  'user_permissions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userAccessLevelId: uuid('user_access_level_id')
      .notNull()
      .references(() => userAccessLevels.id, { onDelete: 'cascade' }),
    attribute: text('attribute').notNull(),
    value: bigint('value', { mode: 'number' }),
  },
  (t) => [uniqueIndex('user_permissions_key').on(t.userAccessLevelId, t.attribute)],
);

import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import {
  ACCESS_ATTRIBUTES,
  ACCESS_PERMISSIONS,
  ACCESS_SERVICE_NAMES,
  DEFAULT_ACCESS,
  ROLES,
  type AccessAttribute,
  type AccessService,
  type EffectiveAccess,
  type RoleTitle,
} from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import {
  roleAccessLevels,
  rolePermissions,
  roles,
  sessions,
  userAccessLevels,
  userPermissions,
  users,
} from '../../db/schema/index.ts';

const servicesWithPermissions = [
  ...new Set(ACCESS_ATTRIBUTES.map((attribute) => ACCESS_PERMISSIONS[attribute].service)),
];

const isService = (value: string): value is AccessService =>
  (ACCESS_SERVICE_NAMES as string[]).includes(value);
const isAttribute = (value: string): value is AccessAttribute =>
  (ACCESS_ATTRIBUTES as string[]).includes(value);

/** The permission rows to create for ACL rows: one per attribute of the ACL's service. */
function permissionRowsOf(acls: { id: string; service: string }[]) {
  return acls.flatMap((acl) =>
    ACCESS_ATTRIBUTES.filter((attribute) => ACCESS_PERMISSIONS[attribute].service === acl.service).map(
      (attribute) => ({ aclId: acl.id, attribute }),
    ),
  );
}

/**
 * SQL of the per-role and per-user service ACLs and their permission values. Rows are created idempotently
 * (insert … on conflict do nothing) when first read, with today's behaviour as values: on, unlimited; a member's
 * rows start as NULL, following their role. Every statement filters by the organisation's id.
 */
export class AccessRepo {
  constructor(readonly orm: Database) {}

  transaction<T>(work: (tx: AccessRepo) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => work(new AccessRepo(tx as unknown as Database)));
  }

  /** Creates the organisation's missing role ACLs and permissions. */
  async ensureRoleAcls(organizationId: string) {
    await this.orm
      .insert(roleAccessLevels)
      .values(
        ROLES.flatMap((role) =>
          ACCESS_SERVICE_NAMES.map((service) => ({ organizationId, roleId: role.id, service })),
        ),
      )
      .onConflictDoNothing();
    const acls = await this.orm
      .select({ id: roleAccessLevels.id, service: roleAccessLevels.service })
      .from(roleAccessLevels)
      .where(
        and(
          eq(roleAccessLevels.organizationId, organizationId),
          inArray(roleAccessLevels.service, servicesWithPermissions),
        ),
      );
    const rows = permissionRowsOf(acls);
    if (rows.length === 0) return;
    await this.orm
      .insert(rolePermissions)
      .values(rows.map(({ aclId, attribute }) => ({ roleAccessLevelId: aclId, attribute })))
      .onConflictDoNothing();
  }

  /** Creates a member's missing ACL and permission rows (NULL: following the role). */
  async ensureUserAcls(organizationId: string, userId: string) {
    await this.orm
      .insert(userAccessLevels)
      .values(ACCESS_SERVICE_NAMES.map((service) => ({ organizationId, userId, service })))
      .onConflictDoNothing();
    const acls = await this.orm
      .select({ id: userAccessLevels.id, service: userAccessLevels.service })
      .from(userAccessLevels)
      .where(
        and(
          eq(userAccessLevels.organizationId, organizationId),
          eq(userAccessLevels.userId, userId),
          inArray(userAccessLevels.service, servicesWithPermissions),
        ),
      );
    const rows = permissionRowsOf(acls);
    if (rows.length === 0) return;
    await this.orm
      .insert(userPermissions)
      .values(rows.map(({ aclId, attribute }) => ({ userAccessLevelId: aclId, attribute })))
      .onConflictDoNothing();
  }

  async roleAcls(organizationId: string, roleId?: number) {
    const rows = await this.orm
      .select({
        id: roleAccessLevels.id,
        roleId: roleAccessLevels.roleId,
        roleTitle: roles.title,
        service: roleAccessLevels.service,
        enabled: roleAccessLevels.enabled,
      })
      .from(roleAccessLevels)
      .innerJoin(roles, eq(roles.id, roleAccessLevels.roleId))
      .where(
        and(
          eq(roleAccessLevels.organizationId, organizationId),
          roleId === undefined ? undefined : eq(roleAccessLevels.roleId, roleId),
        ),
      );
    return rows.flatMap((row) => (isService(row.service) ? [{ ...row, service: row.service }] : []));
  }

  async roleAcl(organizationId: string, id: string) {
    const rows = await this.orm
      .select({
        id: roleAccessLevels.id,
        roleId: roleAccessLevels.roleId,
        roleTitle: roles.title,
        service: roleAccessLevels.service,
        enabled: roleAccessLevels.enabled,
      })
      .from(roleAccessLevels)
      .innerJoin(roles, eq(roles.id, roleAccessLevels.roleId))
      .where(and(eq(roleAccessLevels.id, id), eq(roleAccessLevels.organizationId, organizationId)))
      .limit(1);
    const row = rows[0];
    return row && isService(row.service) ? { ...row, service: row.service } : undefined;
  }

  async setRoleAcl(organizationId: string, id: string, enabled: boolean) {
    await this.orm
      .update(roleAccessLevels)
      .set({ enabled })
      .where(and(eq(roleAccessLevels.id, id), eq(roleAccessLevels.organizationId, organizationId)));
  }

  /** The permissions of one role ACL (already found in the caller's organisation). */
  async rolePermissions(aclId: string) {
    const rows = await this.orm
      .select({ id: rolePermissions.id, attribute: rolePermissions.attribute, value: rolePermissions.value })
      .from(rolePermissions)
      .where(eq(rolePermissions.roleAccessLevelId, aclId))
      .orderBy(rolePermissions.attribute);
    return rows.flatMap((row) => (isAttribute(row.attribute) ? [{ ...row, attribute: row.attribute }] : []));
  }

  async setRolePermission(aclId: string, permissionId: string, value: number) {
    await this.orm
      .update(rolePermissions)
      .set({ value })
      .where(and(eq(rolePermissions.id, permissionId), eq(rolePermissions.roleAccessLevelId, aclId)));
  }

  /** A member's ACL rows with their own setting (NULL: following the role). */
  async userAcls(organizationId: string, userId: string) {
    const rows = await this.orm
      .select({
        id: userAccessLevels.id,
        userId: userAccessLevels.userId,
        service: userAccessLevels.service,
        enabled: userAccessLevels.enabled,
      })
      .from(userAccessLevels)
      .where(and(eq(userAccessLevels.organizationId, organizationId), eq(userAccessLevels.userId, userId)));
    return rows.flatMap((row) => (isService(row.service) ? [{ ...row, service: row.service }] : []));
  }

  async userAcl(organizationId: string, id: string) {
    const [row] = await this.orm
      .select({
        id: userAccessLevels.id,
        userId: userAccessLevels.userId,
        service: userAccessLevels.service,
        enabled: userAccessLevels.enabled,
      })
      .from(userAccessLevels)
      .where(and(eq(userAccessLevels.id, id), eq(userAccessLevels.organizationId, organizationId)))
      .limit(1);
    return row && isService(row.service) ? { ...row, service: row.service } : undefined;
  }

  async setUserAcl(organizationId: string, id: string, enabled: boolean | null) {
    await this.orm
      .update(userAccessLevels)
      .set({ enabled })
      .where(and(eq(userAccessLevels.id, id), eq(userAccessLevels.organizationId, organizationId)));
  }

  async userPermissions(aclId: string) {
    const rows = await this.orm
      .select({ id: userPermissions.id, attribute: userPermissions.attribute, value: userPermissions.value })
      .from(userPermissions)
      .where(eq(userPermissions.userAccessLevelId, aclId))
      .orderBy(userPermissions.attribute);
    return rows.flatMap((row) => (isAttribute(row.attribute) ? [{ ...row, attribute: row.attribute }] : []));
  }

  async setUserPermission(aclId: string, permissionId: string, value: number | null) {
    await this.orm
      .update(userPermissions)
      .set({ value })
      .where(and(eq(userPermissions.id, permissionId), eq(userPermissions.userAccessLevelId, aclId)));
  }

  /** A member of the organisation with their role, or undefined. */
  async member(organizationId: string, userId: string) {
    const [row] = await this.orm
      .select({
        id: users.id,
        email: users.email,
        firstName: users.firstName,
        lastName: users.lastName,
        roleId: users.roleId,
        roleTitle: roles.title,
      })
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(and(eq(users.id, userId), eq(users.organizationId, organizationId)))
      .limit(1);
    return row;
  }

  /** The role's permission values of one service, by attribute. */
  async rolePermissionValues(organizationId: string, roleId: number, service: AccessService) {
    const rows = await this.orm
      .select({ attribute: rolePermissions.attribute, value: rolePermissions.value })
      .from(rolePermissions)
      .innerJoin(roleAccessLevels, eq(roleAccessLevels.id, rolePermissions.roleAccessLevelId))
      .where(
        and(
          eq(roleAccessLevels.organizationId, organizationId),
          eq(roleAccessLevels.roleId, roleId),
          eq(roleAccessLevels.service, service),
        ),
      );
    return new Map(rows.map((row) => [row.attribute, row.value]));
  }

  /** Hands every setting of a member back to their role (a role change resets them, spec 002 §6). */
  async resetMember(organizationId: string, userId: string) {
    const own = and(eq(userAccessLevels.organizationId, organizationId), eq(userAccessLevels.userId, userId));
    await this.orm
      .update(userPermissions)
      .set({ value: null })
      .where(
        inArray(
          userPermissions.userAccessLevelId,
          this.orm.select({ id: userAccessLevels.id }).from(userAccessLevels).where(own),
        ),
      );
    await this.orm.update(userAccessLevels).set({ enabled: null }).where(own);
  }

  /**
   * What a member may use: the defaults, overridden by their role's rows, overridden by their own non-NULL ones.
   * One statement, run once per request where the caller is authenticated with an API key or a device token.
   */
  async effective(organizationId: string, userId: string): Promise<EffectiveAccess> {
    const result = await this.orm.execute<AccessRow>(sql`
      ${accessRowsOf(sql`${organizationId}`, sql`${userId}`)}
       order by own`);
    return effectiveOf(result.rows);
  }

  /**
   * The caller of a session bearer: the session must be neither revoked nor expired at `now`, and its user active;
   * with the organisation, the role and the effective ACL (as `effective`), in one statement, since every request
   * signed in with a session pays it. Undefined when the session is not live.
   */
  async sessionCaller(
    sessionId: string,
    userId: string,
    now: Date,
  ): Promise<{ organizationId: string; role: RoleTitle; access: EffectiveAccess } | undefined> {
    const result = await this.orm.execute<AccessRow & { organization_id: string; role: string }>(sql`
      select caller.organization_id, caller.role, acl.own, acl.service, acl.enabled, acl.attribute, acl.value
        from (select s.organization_id, s.user_id, r.title as role
                from ${sessions} s
                join ${users} u on u.id = s.user_id
                join ${roles} r on r.id = u.role_id
               where s.id = ${sessionId} and s.user_id = ${userId} and s.revoked_at is null
                 and s.expires_at > ${now.toISOString()} and u.active = true
               limit 1) caller
        left join lateral (${accessRowsOf(sql`caller.organization_id`, sql`caller.user_id`)}) acl on true
       order by acl.own`);
    const [first] = result.rows;
    if (!first) return undefined;
    return {
      organizationId: first.organization_id,
      role: first.role as RoleTitle,
      access: effectiveOf(result.rows),
    };
  }
}

/** One row of a member's ACL: a role's (own false) or their own setting of a service, with one permission. */
type AccessRow = {
  own: boolean | null;
  service: string | null;
  enabled: boolean | null;
  attribute: string | null;
  value: string | null;
};

/** The ACL rows of a member, their role's and their own, both filtered by the organisation's id. */
function accessRowsOf(organizationId: SQL, userId: SQL): SQL {
  return sql`
      select false as own, ral.service, ral.enabled, rp.attribute, rp.value
        from ${users} u
        join ${roleAccessLevels} ral on ral.organization_id = u.organization_id and ral.role_id = u.role_id
        left join ${rolePermissions} rp on rp.role_access_level_id = ral.id
       where u.id = ${userId} and u.organization_id = ${organizationId}
      union all
      select true as own, ual.service, ual.enabled, up.attribute, up.value
        from ${userAccessLevels} ual
        left join ${userPermissions} up on up.user_access_level_id = ual.id
       where ual.user_id = ${userId} and ual.organization_id = ${organizationId}`;
}

/** Folds ACL rows, role rows first, over the defaults: a member's own setting is applied last and wins. */
function effectiveOf(rows: AccessRow[]): EffectiveAccess {
  const access: EffectiveAccess = {
    services: { ...DEFAULT_ACCESS.services },
    permissions: { ...DEFAULT_ACCESS.permissions },
  };
  for (const row of rows) {
    if (row.service && isService(row.service) && row.enabled !== null)
      access.services[row.service] = row.enabled;
    if (row.attribute && isAttribute(row.attribute) && row.value !== null) {
      access.permissions[row.attribute] = Number(row.value);
    }
  }
  return access;
}

import {
  ACCESS_PERMISSIONS,
  ACCESS_SERVICES,
  DEFAULT_ACCESS,
  memberAccessRefusal,
  roleAccessRefusal,
  accessMessages,
  permissionsOf,
  type AccessService as ServiceName,
  type RoleAcl,
  type RolePermission,
  type UserAcl,
  type UserPermission,
} from '@cumulo/contract';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { forbidden, notFound } from '../../errors.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import type { BusMessage } from '../../realtime/events.ts';
import type { AccessRepo } from './access.repo.ts';

const hasPermissions = (service: ServiceName) => permissionsOf(service).length > 0;

/**
 * Per-role and per-user service ACLs and permission values (spec 002 §3, §5, §6; README here). Owners and Admins
 * read and change role ACLs, but nobody changes the Owner role's and only an Owner the Admin role's; a member's own
 * ACLs are changed by an Owner (anyone's but an Owner's) or an Admin (Users' only), never by the member. Each change
 * is audited in its own transaction.
 */
export class AccessService {
  constructor(
    private readonly repo: AccessRepo,
    /** Tells the realtime hub to read the organisation's ACLs again (`$access-changed`). */
    private readonly publish: (message: BusMessage) => Promise<void> = async () => undefined,
  ) {}

  /** GET /role_access_levels/role_acls: every role's ACLs, created on first read. */
  async roleAcls(principal: Principal): Promise<RoleAcl[]> {
    authorize(principal, 'access.role');
    await this.repo.ensureRoleAcls(principal.organizationId);
    const rows = await this.repo.roleAcls(principal.organizationId);
    const order = (service: ServiceName) => Object.keys(ACCESS_SERVICES).indexOf(service);
    return rows
      .sort((a, b) => a.roleId - b.roleId || order(a.service) - order(b.service))
      .map((row) => ({
        id: row.id,
        role_id: row.roleId,
        service: row.service,
        title: ACCESS_SERVICES[row.service],
        enabled: row.enabled,
        has_permissions: hasPermissions(row.service),
      }));
  }

  async rolePermissions(principal: Principal, aclId: string): Promise<RolePermission[]> {
    await this.#roleAcl(principal, aclId);
    authorize(principal, 'access.role');
    return (await this.repo.rolePermissions(aclId)).map((row) => ({
      id: row.id,
      attribute: row.attribute,
      title: ACCESS_PERMISSIONS[row.attribute].title,
      value: row.value,
    }));
  }

  async setRoleAcl(principal: Principal, aclId: string, enabled: boolean) {
    const acl = await this.#changeableRoleAcl(principal, aclId);
    await this.repo.transaction(async (tx) => {
      await tx.setRoleAcl(principal.organizationId, acl.id, enabled);
      await recordAudit(tx.orm, principal, {
        entity: 'Role permission',
        type: 'Modified',
        resource: `${acl.roleTitle}: ${ACCESS_SERVICES[acl.service]}`,
        resourceId: acl.id,
        changes: changesOf({ enabled: acl.enabled }, { enabled }),
      });
    });
    await this.#changed(principal.organizationId);
    return { message: accessMessages.saved };
  }

  async setRolePermission(principal: Principal, aclId: string, permissionId: string, value: number) {
    const acl = await this.#changeableRoleAcl(principal, aclId);
    const permission = (await this.repo.rolePermissions(acl.id)).find((row) => row.id === permissionId);
    if (!permission) throw notFound();
    await this.repo.transaction(async (tx) => {
      await tx.setRolePermission(acl.id, permission.id, value);
      await recordAudit(tx.orm, principal, {
        entity: 'Role permission',
        type: 'Modified',
        resource: `${acl.roleTitle}: ${ACCESS_SERVICES[acl.service]}`,
        resourceId: acl.id,
        changes: changesOf({ [permission.attribute]: permission.value }, { [permission.attribute]: value }),
      });
    });
    await this.#changed(principal.organizationId);
    return { message: accessMessages.saved };
  }

  /** GET /user_access_levels/user_acls/{userId}: the member's effective ACLs; the member may read their own. */
  async userAcls(principal: Principal, userId: string): Promise<UserAcl[]> {
    const member = await this.#member(principal, userId);
    if (member.id !== principal.userId) authorize(principal, 'access.user');
    await this.repo.ensureRoleAcls(principal.organizationId);
    await this.repo.ensureUserAcls(principal.organizationId, member.id);
    const roleEnabled = new Map(
      (await this.repo.roleAcls(principal.organizationId, member.roleId)).map((row) => [
        row.service,
        row.enabled,
      ]),
    );
    const own = await this.repo.userAcls(principal.organizationId, member.id);
    const order = (service: ServiceName) => Object.keys(ACCESS_SERVICES).indexOf(service);
    return own
      .sort((a, b) => order(a.service) - order(b.service))
      .map((row) => ({
        id: row.id,
        service: row.service,
        title: ACCESS_SERVICES[row.service],
        enabled: row.enabled ?? roleEnabled.get(row.service) ?? DEFAULT_ACCESS.services[row.service],
        has_permissions: hasPermissions(row.service),
        follows_role: row.enabled === null,
      }));
  }

  async userPermissions(principal: Principal, aclId: string): Promise<UserPermission[]> {
    const { acl, member } = await this.#userAcl(principal, aclId);
    if (member.id !== principal.userId) authorize(principal, 'access.user');
    const roleValues = await this.repo.rolePermissionValues(
      principal.organizationId,
      member.roleId,
      acl.service,
    );
    return (await this.repo.userPermissions(acl.id)).map((row) => ({
      id: row.id,
      attribute: row.attribute,
      title: ACCESS_PERMISSIONS[row.attribute].title,
      value: row.value ?? roleValues.get(row.attribute) ?? DEFAULT_ACCESS.permissions[row.attribute],
      follows_role: row.value === null,
    }));
  }

  async setUserAcl(principal: Principal, aclId: string, enabled: boolean | null) {
    const { acl, member } = await this.#changeableUserAcl(principal, aclId);
    await this.repo.transaction(async (tx) => {
      await tx.setUserAcl(principal.organizationId, acl.id, enabled);
      await recordAudit(tx.orm, principal, {
        entity: 'User permission',
        type: 'Modified',
        resource: `${member.email}: ${ACCESS_SERVICES[acl.service]}`,
        resourceId: acl.id,
        changes: changesOf({ enabled: acl.enabled }, { enabled }),
      });
    });
    await this.#changed(principal.organizationId);
    return { message: accessMessages.saved };
  }

  async setUserPermission(principal: Principal, aclId: string, permissionId: string, value: number | null) {
    const { acl, member } = await this.#changeableUserAcl(principal, aclId);
    const permission = (await this.repo.userPermissions(acl.id)).find((row) => row.id === permissionId);
    if (!permission) throw notFound();
    await this.repo.transaction(async (tx) => {
      await tx.setUserPermission(acl.id, permission.id, value);
      await recordAudit(tx.orm, principal, {
        entity: 'User permission',
        type: 'Modified',
        resource: `${member.email}: ${ACCESS_SERVICES[acl.service]}`,
        resourceId: acl.id,
        changes: changesOf({ [permission.attribute]: permission.value }, { [permission.attribute]: value }),
      });
    });
    await this.#changed(principal.organizationId);
    return { message: accessMessages.saved };
  }

  /** Live events of a service stop reaching members whose ACL of it went off, without a reconnect. */
  async #changed(organizationId: string) {
    await this.publish({ type: '$access-changed', organizationId }).catch(() => undefined);
  }

  async #roleAcl(principal: Principal, aclId: string) {
    const acl = await this.repo.roleAcl(principal.organizationId, aclId);
    if (!acl) throw notFound();
    return acl;
  }

  /** An organisation cannot lock its Owners out; an Admin cannot change what Admins themselves may do. */
  async #changeableRoleAcl(principal: Principal, aclId: string) {
    const acl = await this.#roleAcl(principal, aclId);
    authorize(principal, 'access.role');
    const refusal = roleAccessRefusal(principal.role, acl.roleId);
    if (refusal) throw forbidden(refusal);
    return acl;
  }

  async #member(principal: Principal, userId: string) {
    const member = await this.repo.member(principal.organizationId, userId);
    if (!member) throw notFound();
    return member;
  }

  async #userAcl(principal: Principal, aclId: string) {
    const acl = await this.repo.userAcl(principal.organizationId, aclId);
    if (!acl) throw notFound();
    return { acl, member: await this.#member(principal, acl.userId) };
  }

  /** Like the activate rule of spec 002 §6: never one's own; an Owner anyone's but an Owner's, an Admin Users'. */
  async #changeableUserAcl(principal: Principal, aclId: string) {
    const found = await this.#userAcl(principal, aclId);
    authorize(principal, 'access.user');
    const refusal = memberAccessRefusal(
      { id: principal.userId, role: principal.role },
      { id: found.member.id, role: found.member.roleTitle },
    );
    if (refusal) throw forbidden(refusal);
    return found;
  }
}

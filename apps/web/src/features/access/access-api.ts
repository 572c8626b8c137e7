import {
  messageAnswer,
  roleAcls,
  rolePermissions,
  userAcls,
  userPermissions,
  type RoleAcl,
  type RolePermission,
  type UserAcl,
  type UserPermission,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';

const id = encodeURIComponent;

/** Every role's service ACLs (GET /role_access_levels/role_acls). */
export async function fetchRoleAcls(): Promise<RoleAcl[]> {
  return roleAcls.parse(await api.get('/role_access_levels/role_acls'));
}

export async function fetchRolePermissions(aclId: string): Promise<RolePermission[]> {
  return rolePermissions.parse(await api.get(`/role_access_levels/${id(aclId)}/role_permissions`));
}

export async function setRoleAcl(aclId: string, enabled: boolean): Promise<string> {
  return messageAnswer.parse(
    await api.put(`/role_access_levels/${id(aclId)}`, { role_access_level: { enabled } }, { silent: true }),
  ).message;
}

export async function setRolePermission(aclId: string, permissionId: string, value: number): Promise<string> {
  return messageAnswer.parse(
    await api.put(
      `/role_access_levels/${id(aclId)}/role_permissions/${id(permissionId)}`,
      { role_permission: { value } },
      { silent: true },
    ),
  ).message;
}

/** A member's effective ACLs (GET /user_access_levels/user_acls/{userId}). */
export async function fetchUserAcls(userId: string): Promise<UserAcl[]> {
  return userAcls.parse(await api.get(`/user_access_levels/user_acls/${id(userId)}`));
}

export async function fetchUserPermissions(aclId: string): Promise<UserPermission[]> {
  return userPermissions.parse(await api.get(`/user_access_levels/${id(aclId)}/user_permissions/`));
}

export async function setUserAcl(aclId: string, enabled: boolean | null): Promise<string> {
  return messageAnswer.parse(
    await api.put(`/user_access_levels/${id(aclId)}`, { user_access_level: { enabled } }, { silent: true }),
  ).message;
}

export async function setUserPermission(
  aclId: string,
  permissionId: string,
  value: number | null,
): Promise<string> {
  return messageAnswer.parse(
    await api.put(
      `/user_access_levels/${id(aclId)}/user_permissions/${id(permissionId)}`,
      { user_permission: { value } },
      { silent: true },
    ),
  ).message;
}

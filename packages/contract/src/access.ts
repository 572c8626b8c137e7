import { z } from 'zod';
import { formatBytes } from './format.ts';
import { ROLE_ID } from './constants.ts';
import { messages } from './messages.ts';
import {
  ACCESS_ATTRIBUTES,
  ACCESS_PERMISSIONS,
  ACCESS_SERVICES,
  ACCESS_SERVICE_NAMES,
  UNLIMITED,
  accessAttribute,
  accessService,
  type AccessAttribute,
  type AccessService,
} from './access-services.ts';

export * from './access-services.ts';

/**
 * Per-role and per-user service ACLs with their permission values (spec 002 §3 Role, ACL, Permission; §5; §6). An
 * ACL turns one product area on or off for a role or a member; a permission caps what one call of that area may
 * move. The server enforces both (apps/server/src/modules/access/README.md).
 */

/** The attributes of one service's permissions. */
export const permissionsOf = (service: AccessService): AccessAttribute[] =>
  ACCESS_ATTRIBUTES.filter((attribute) => ACCESS_PERMISSIONS[attribute].service === service);

/** The units a value is entered in (spec 002 §5); 'Unlimited' is sent as -1. */
export const PERMISSION_UNITS = {
  Bytes: 1,
  KB: 1024,
  MB: 1048576,
  GB: 1073741824,
  TB: 1099511627776,
} as const;
export type PermissionUnit = keyof typeof PERMISSION_UNITS | 'Unlimited';

/** The value sent for an amount in a unit: -1 for 'Unlimited', else amount × the unit's bytes. */
export function toPermissionValue(amount: number, unit: PermissionUnit): number {
  return unit === 'Unlimited' ? UNLIMITED : Math.round(amount * PERMISSION_UNITS[unit]);
}

/** How a value is shown in the form: the largest unit it is a whole number of, or 'Unlimited'. */
export function fromPermissionValue(value: number): { amount: number | null; unit: PermissionUnit } {
  if (value === UNLIMITED) return { amount: null, unit: 'Unlimited' };
  const units = Object.entries(PERMISSION_UNITS).reverse() as [keyof typeof PERMISSION_UNITS, number][];
  for (const [unit, bytes] of units) {
    if (value !== 0 && value % bytes === 0) return { amount: value / bytes, unit };
  }
  return { amount: value, unit: 'Bytes' };
}

/** What a caller may use: one flag per service and the value of each permission (-1 unlimited). */
export interface EffectiveAccess {
  services: Record<AccessService, boolean>;
  permissions: Record<AccessAttribute, number>;
}

/** Today's behaviour, and every role's default: every service on, nothing capped. */
export const DEFAULT_ACCESS: EffectiveAccess = {
  services: Object.fromEntries(ACCESS_SERVICE_NAMES.map((service) => [service, true])) as Record<
    AccessService,
    boolean
  >,
  permissions: Object.fromEntries(ACCESS_ATTRIBUTES.map((attribute) => [attribute, UNLIMITED])) as Record<
    AccessAttribute,
    number
  >,
};

/** Whether `size` bytes fit under a permission value. */
export const withinLimit = (size: number, limit: number) => limit === UNLIMITED || size <= limit;

export const accessMessages = {
  /** Spec 002 §5. */
  required: (attribute: string) => `Please input your ${attribute}`,
  saved: 'Permission successfully updated.',
  serviceOff: (service: AccessService) =>
    `Your access to ${ACCESS_SERVICES[service]} is turned off. Ask an Owner or an Admin to turn it on.`,
  tooLarge: (attribute: AccessAttribute, size: number, limit: number) =>
    `This is ${formatBytes(size)}, more than your ${ACCESS_PERMISSIONS[attribute].title.toLowerCase()} of ` +
    `${formatBytes(limit)}. Ask an Owner or an Admin to raise it.`,
  ownerRoleFixed:
    "The Owner role's permissions cannot be changed, so that no organisation locks its Owners out.",
  adminRoleOwnerOnly: "Only an Owner can change the Admin role's permissions.",
  notYourOwn: 'You cannot change your own permissions.',
  ownersFixed: "An Owner's permissions cannot be changed.",
  adminChangesUsers: 'An Admin can only change the permissions of Users.',
  valueInvalid: 'Enter a whole number of bytes, or Unlimited.',
} as const;

/**
 * Why `viewer` may not change a role's ACLs (spec 002 §6 as this product applies it), or null when they may: nobody
 * changes the Owner role's, only an Owner the Admin role's, a User none. The server refuses in these words; the web
 * disables the toggles.
 */
export function roleAccessRefusal(viewer: string, roleId: number): string | null {
  if (viewer === 'User') return messages.forbidden;
  if (roleId === ROLE_ID.Owner) return accessMessages.ownerRoleFixed;
  if (roleId === ROLE_ID.Admin && viewer !== 'Owner') return accessMessages.adminRoleOwnerOnly;
  return null;
}

/**
 * Why `viewer` may not change `target`'s own ACLs, or null: like the activate rule of spec 002 §6, never one's
 * own; an Owner anyone's but an Owner's; an Admin only Users'.
 */
export function memberAccessRefusal(
  viewer: { id: string; role: string },
  target: { id: string; role: string },
): string | null {
  if (viewer.role === 'User') return messages.forbidden;
  if (viewer.id === target.id) return accessMessages.notYourOwn;
  if (target.role === 'Owner') return accessMessages.ownersFixed;
  if (viewer.role === 'Admin' && target.role !== 'User') return accessMessages.adminChangesUsers;
  return null;
}

/** A permission value: -1 (unlimited) or a whole number of bytes. */
export const permissionValue = z
  .int(accessMessages.valueInvalid)
  .min(UNLIMITED, accessMessages.valueInvalid)
  .max(Number.MAX_SAFE_INTEGER, accessMessages.valueInvalid);

/** One role ACL of GET /role_access_levels/role_acls (spec 002 §3 ACL). */
export const roleAcl = z.object({
  id: z.string(),
  role_id: z.number(),
  service: accessService,
  title: z.string(),
  enabled: z.boolean(),
  has_permissions: z.boolean(),
});
export type RoleAcl = z.infer<typeof roleAcl>;
export const roleAcls = z.array(roleAcl);

/** A permission (spec 002 §3): GET /role_access_levels/{id}/role_permissions. */
export const rolePermission = z.object({
  id: z.string(),
  attribute: accessAttribute,
  title: z.string(),
  value: z.number(),
});
export type RolePermission = z.infer<typeof rolePermission>;
export const rolePermissions = z.array(rolePermission);

/** A member's ACL: the effective `enabled`, and whether it follows the role (no setting of their own). */
export const userAcl = roleAcl.omit({ role_id: true }).extend({ follows_role: z.boolean() });
export type UserAcl = z.infer<typeof userAcl>;
export const userAcls = z.array(userAcl);

export const userPermission = rolePermission.extend({ follows_role: z.boolean() });
export type UserPermission = z.infer<typeof userPermission>;
export const userPermissions = z.array(userPermission);

export const roleAclBody = z.object({ role_access_level: z.object({ enabled: z.boolean() }) });
export const rolePermissionBody = z.object({ role_permission: z.object({ value: permissionValue }) });
/** null hands the setting back to the role. */
export const userAclBody = z.object({ user_access_level: z.object({ enabled: z.boolean().nullable() }) });
export const userPermissionBody = z.object({
  user_permission: z.object({ value: permissionValue.nullable() }),
});

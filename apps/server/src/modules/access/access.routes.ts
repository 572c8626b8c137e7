import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  messageAnswer,
  roleAclBody,
  roleAcls,
  rolePermissionBody,
  rolePermissions,
  userAclBody,
  userAcls,
  userPermissionBody,
  userPermissions,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { AccessService } from './access.service.ts';

/** Spec 002 §7 "Roles and access levels" (GET /roles is identity's). */
export function accessRoutes(service: AccessService, auth: AuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['roles'];
    const guarded = { preHandler: auth.requireAuth };
    const aclParams = z.object({ id: z.uuid() });
    const permissionParams = z.object({ id: z.uuid(), permId: z.uuid() });

    app.get(
      '/role_access_levels/role_acls',
      { ...guarded, schema: { tags, response: { 200: roleAcls } } },
      async (request) => service.roleAcls(principalOf(request)),
    );

    app.put(
      '/role_access_levels/:id',
      {
        ...guarded,
        schema: { tags, params: aclParams, body: roleAclBody, response: { 200: messageAnswer } },
      },
      async (request) =>
        service.setRoleAcl(principalOf(request), request.params.id, request.body.role_access_level.enabled),
    );

    app.get(
      '/role_access_levels/:id/role_permissions',
      { ...guarded, schema: { tags, params: aclParams, response: { 200: rolePermissions } } },
      async (request) => service.rolePermissions(principalOf(request), request.params.id),
    );

    app.put(
      '/role_access_levels/:id/role_permissions/:permId',
      {
        ...guarded,
        schema: {
          tags,
          params: permissionParams,
          body: rolePermissionBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) =>
        service.setRolePermission(
          principalOf(request),
          request.params.id,
          request.params.permId,
          request.body.role_permission.value,
        ),
    );

    app.get(
      '/user_access_levels/user_acls/:id',
      {
        ...guarded,
        schema: {
          tags,
          description:
            "A member's effective ACLs (id: the member's id); `follows_role` when they have no own setting.",
          params: aclParams,
          response: { 200: userAcls },
        },
      },
      async (request) => service.userAcls(principalOf(request), request.params.id),
    );

    app.put(
      '/user_access_levels/:id',
      {
        ...guarded,
        schema: {
          tags,
          description: '`enabled: null` hands the setting back to the role.',
          params: aclParams,
          body: userAclBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) =>
        service.setUserAcl(principalOf(request), request.params.id, request.body.user_access_level.enabled),
    );

    // The spec's call ends with a slash; the router ignores trailing slashes, so both spellings answer.
    app.get(
      '/user_access_levels/:id/user_permissions',
      { ...guarded, schema: { tags, params: aclParams, response: { 200: userPermissions } } },
      async (request) => service.userPermissions(principalOf(request), request.params.id),
    );

    app.put(
      '/user_access_levels/:id/user_permissions/:permId',
      {
        ...guarded,
        schema: {
          tags,
          description: '`value: null` hands the value back to the role.',
          params: permissionParams,
          body: userPermissionBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) =>
        service.setUserPermission(
          principalOf(request),
          request.params.id,
          request.params.permId,
          request.body.user_permission.value,
        ),
    );
  };
}

import { Alert, App, Card, Flex, Typography } from 'antd';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { ROLES, roleAccessRefusal, type RoleAcl, type RolePermission } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { fetchRoleAcls, fetchRolePermissions, setRoleAcl, setRolePermission } from './access-api.ts';
import { AclRows, type AclRow } from './AclRows.tsx';

/** /roles ("Permissions"): each role's service ACLs and permission values (spec 002 §2, §6). */
export function RolesPage() {
  useDocumentTitle('Permissions');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { data: viewer } = useProfile();
  const acls = useQuery({ queryKey: queryKeys.roleAcls, queryFn: fetchRoleAcls });
  const withPermissions = (acls.data ?? []).filter((acl) => acl.has_permissions);
  const permissions = useQueries({
    queries: withPermissions.map((acl) => ({
      queryKey: queryKeys.rolePermissions(acl.id),
      queryFn: () => fetchRolePermissions(acl.id),
    })),
  });
  const permissionsOf = (acl: AclRow) => {
    const index = withPermissions.findIndex((candidate) => candidate.id === acl.id);
    return index < 0 ? undefined : permissions[index]?.data;
  };
  const done = {
    onSuccess: (text: string) => {
      void message.success(text);
      void queryClient.invalidateQueries({ queryKey: ['access'] });
      void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
    },
    onError: (error: unknown) => void message.error(describeError(error)),
  };
  const toggle = useMutation({
    mutationFn: ({ acl, enabled }: { acl: AclRow; enabled: boolean }) => setRoleAcl(acl.id, enabled),
    ...done,
  });
  const saveValue = useMutation({
    mutationFn: ({ acl, permission, value }: { acl: AclRow; permission: RolePermission; value: number }) =>
      setRolePermission(acl.id, permission.id, value),
    ...done,
  });

  if (acls.isPending || !viewer) return <PageSpinner />;
  if (acls.isError) return <Alert type="error" showIcon title={describeError(acls.error)} />;
  const byRole = (roleId: number): RoleAcl[] => acls.data.filter((acl) => acl.role_id === roleId);
  return (
    <Flex vertical gap={16} style={{ maxWidth: 820 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Permissions
      </Typography.Title>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        Turn a product area on or off for everyone of a role, and cap what one transfer or upload may move. A
        member&apos;s own settings on their page take precedence.
      </Typography.Paragraph>
      {ROLES.map((role) => {
        const refusal = roleAccessRefusal(viewer.role.title, role.id);
        return (
          <Card key={role.id} title={role.title} aria-label={`${role.title} role`}>
            {refusal && (
              <Typography.Paragraph type="secondary" style={{ marginTop: 0 }}>
                {refusal}
              </Typography.Paragraph>
            )}
            <AclRows
              acls={byRole(role.id)}
              refusal={refusal}
              onToggle={(acl, enabled) => toggle.mutateAsync({ acl, enabled })}
              permissionsOf={permissionsOf}
              onSaveValue={(acl, permission, value) => saveValue.mutateAsync({ acl, permission, value })}
            />
          </Card>
        );
      })}
    </Flex>
  );
}

import { Alert, App, Card, Typography } from 'antd';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { memberAccessRefusal, type RolePermission, type UserProfile } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { fetchUserAcls, fetchUserPermissions, setUserAcl, setUserPermission } from './access-api.ts';
import { AclRows, type AclRow } from './AclRows.tsx';

/** The per-service section of /users/{id}: the member's toggles and values, and which follow their role. */
export function MemberAccess({ member, viewer }: { member: UserProfile; viewer: UserProfile }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const acls = useQuery({ queryKey: queryKeys.userAcls(member.id), queryFn: () => fetchUserAcls(member.id) });
  const withPermissions = (acls.data ?? []).filter((acl) => acl.has_permissions);
  const permissions = useQueries({
    queries: withPermissions.map((acl) => ({
      queryKey: queryKeys.userPermissions(acl.id),
      queryFn: () => fetchUserPermissions(acl.id),
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
    },
    onError: (error: unknown) => void message.error(describeError(error)),
  };
  const toggle = useMutation({
    mutationFn: ({ acl, enabled }: { acl: AclRow; enabled: boolean }) => setUserAcl(acl.id, enabled),
    ...done,
  });
  const saveValue = useMutation({
    mutationFn: ({ acl, permission, value }: { acl: AclRow; permission: RolePermission; value: number }) =>
      setUserPermission(acl.id, permission.id, value),
    ...done,
  });
  const refusal = memberAccessRefusal(
    { id: viewer.id, role: viewer.role.title },
    { id: member.id, role: member.role.title },
  );
  return (
    <Card title="Permissions" aria-label="Service permissions">
      {refusal && (
        <Typography.Paragraph type="secondary" style={{ marginTop: 0 }}>
          {refusal}
        </Typography.Paragraph>
      )}
      {acls.isPending ? (
        <PageSpinner />
      ) : acls.isError ? (
        <Alert type="error" showIcon title={describeError(acls.error)} />
      ) : (
        <AclRows
          acls={acls.data}
          refusal={refusal}
          onToggle={(acl, enabled) => toggle.mutateAsync({ acl, enabled })}
          permissionsOf={permissionsOf}
          onSaveValue={(acl, permission, value) => saveValue.mutateAsync({ acl, permission, value })}
        />
      )}
    </Card>
  );
}

import { Alert, App, Card, Descriptions, Flex, Select, Tag, Typography } from 'antd';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { ROLE_ID, assignableRoles, mayChangeRole, type UserProfile } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { DateText } from '../../ui/DateText.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { MemberAccess } from '../access/MemberAccess.tsx';
import { changeMemberRole, fetchMember } from './team-api.ts';
import { MemberAvatar, ROLE_COLORS } from './UserCard.tsx';

/** /users/{id}: a member's details and role (spec 002 §2, §6). */
export function UserDetailPage() {
  useDocumentTitle('User Details');
  const { id = '' } = useParams();
  const { data: viewer } = useProfile();
  const member = useQuery({ queryKey: queryKeys.member(id), queryFn: () => fetchMember(id) });
  if (member.isPending || !viewer) return <PageSpinner />;
  if (member.isError) return <Alert type="error" showIcon title={describeError(member.error)} />;
  return <MemberDetails member={member.data} viewer={viewer} />;
}

function MemberDetails({ member, viewer }: { member: UserProfile; viewer: UserProfile }) {
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const name = `${member.first_name} ${member.last_name}`;
  const change = useMutation({
    mutationFn: (roleId: number) => changeMemberRole(member.id, roleId),
    onSuccess: (text) => {
      void message.success(text);
      void queryClient.invalidateQueries({ queryKey: queryKeys.members });
      // The member's own service ACLs and permission values went back to the new role's. The values are kept by
      // ACL id, not by member, so everything under ['access'] is read again, as MemberAccess does after a save.
      void queryClient.invalidateQueries({ queryKey: ['access'] });
    },
    onError: (error) => void message.error(describeError(error)),
  });
  const ask = (roleId: number, title: string) =>
    modal.confirm({
      title: `Change ${name}'s role to ${title}?`,
      content:
        roleId === ROLE_ID.Owner
          ? "Their permissions return to the new role's defaults, and an Owner's role cannot be changed afterwards."
          : "Their permissions return to the new role's defaults.",
      okText: 'Change role',
      onOk: () => change.mutateAsync(roleId),
    });
  // Spec 002 §6: the role selector is hidden for an Owner; nobody changes their own role; an Admin only a User's.
  const canChange = mayChangeRole(
    { id: viewer.id, role: viewer.role.title },
    { id: member.id, role: member.role.title },
  );
  return (
    <Flex vertical gap={16} style={{ maxWidth: 720 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        User Details
      </Typography.Title>
      <Card>
        <Flex gap={16} align="center" style={{ marginBottom: 16 }}>
          <MemberAvatar member={member} size={64} />
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {name}
            </Typography.Title>
            <Tag color={ROLE_COLORS[member.role.title] ?? 'default'}>{member.role.title}</Tag>
            {!member.active && <Tag color="red">Deactivated</Tag>}
          </div>
        </Flex>
        <Descriptions column={1} bordered size="small">
          <Descriptions.Item label="Email">{member.email}</Descriptions.Item>
          <Descriptions.Item label="Active since">
            <DateText value={member.activation_date ?? member.created_at} />
          </Descriptions.Item>
          {canChange && (
            <Descriptions.Item label="Role">
              <Select
                aria-label="Role"
                style={{ minWidth: 160 }}
                value={member.role.id}
                loading={change.isPending}
                options={assignableRoles(viewer.role.title, 'change').map((title) => ({
                  value: ROLE_ID[title],
                  label: title,
                }))}
                onChange={(roleId: number) =>
                  ask(roleId, Object.entries(ROLE_ID).find(([, value]) => value === roleId)?.[0] ?? '')
                }
              />
            </Descriptions.Item>
          )}
        </Descriptions>
      </Card>
      <MemberAccess member={member} viewer={viewer} />
    </Flex>
  );
}

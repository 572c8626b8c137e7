import { Alert, Button, Col, Flex, Row, Typography } from 'antd';
import { UserAddOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { fetchMembers } from './team-api.ts';
import { UserCard } from './UserCard.tsx';
import { PendingInvitations } from './PendingInvitations.tsx';

/** /users: the organisation's members as user cards (spec 002 §2 Settings). */
export function UsersPage() {
  useDocumentTitle('Users');
  const { data: profile } = useProfile();
  const members = useQuery({ queryKey: queryKeys.members, queryFn: fetchMembers });
  return (
    <Flex vertical gap={16}>
      <Flex justify="space-between" align="center">
        <Typography.Title level={2} style={{ margin: 0 }}>
          Users
        </Typography.Title>
        <Link to="/users/invite">
          <Button type="primary" icon={<UserAddOutlined />}>
            Invite Users
          </Button>
        </Link>
      </Flex>
      {members.isPending || !profile ? (
        <PageSpinner />
      ) : members.isError ? (
        <Alert type="error" showIcon title={describeError(members.error)} />
      ) : (
        <Row gutter={[16, 16]}>
          {members.data.map((member) => (
            <Col key={member.id} xs={24} md={12} xl={8}>
              <UserCard member={member} viewer={{ id: profile.id, role: profile.role.title }} />
            </Col>
          ))}
        </Row>
      )}
      <PendingInvitations />
    </Flex>
  );
}

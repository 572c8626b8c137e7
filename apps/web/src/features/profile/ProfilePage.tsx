import { Alert, Avatar, Card, Descriptions, Flex, Space, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import type { UserProfile } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { DateText } from '../../ui/DateText.tsx';
import { PlanUsageCard } from '../billing/PlanUsageCard.tsx';
import { TransferAgentsCard } from '../agent/TransferAgentsCard.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from './useProfile.ts';

const ROLE_COLORS: Record<string, string> = { Owner: 'gold', Admin: 'blue', User: 'default' };

function initials(profile: UserProfile): string {
  return `${profile.first_name.charAt(0)}${profile.last_name.charAt(0)}`.toUpperCase();
}

/** /profile — the account card, plan usage and cloud services (spec 002 §2 Settings area). */
export function ProfilePage() {
  useDocumentTitle('Profile');
  const { data: profile, error, isPending } = useProfile();
  if (isPending) return <PageSpinner />;
  if (!profile) return <Alert type="error" showIcon title={describeError(error)} />;
  const fullName = `${profile.first_name} ${profile.last_name}`;
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%', maxWidth: 720 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Profile
      </Typography.Title>
      <Card>
        <Flex gap={16} align="center" style={{ marginBottom: 16 }}>
          <Avatar size={64} src={profile.pictureUrl ?? undefined}>
            {initials(profile)}
          </Avatar>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {fullName}
            </Typography.Title>
            <Tag color={ROLE_COLORS[profile.role.title] ?? 'default'}>{profile.role.title}</Tag>
          </div>
        </Flex>
        <Descriptions column={1} bordered size="small">
          <Descriptions.Item label="Email">{profile.email}</Descriptions.Item>
          <Descriptions.Item label="Company">{profile.company || '—'}</Descriptions.Item>
          <Descriptions.Item label="Organization">{profile.organization.name}</Descriptions.Item>
          <Descriptions.Item label="Active since">
            <DateText value={profile.activation_date ?? profile.created_at} />
          </Descriptions.Item>
          <Descriptions.Item label="Multi-factor authentication">
            {profile.mfa_enabled ? 'Enabled' : 'Not enabled'}
          </Descriptions.Item>
        </Descriptions>
        <Flex wrap gap={16} style={{ marginTop: 16 }}>
          <Link to="/profile/edit">Edit profile</Link>
          <Link to="/profile/changepassword">Change password</Link>
          <Link to="/mfa">Multi-factor authentication</Link>
        </Flex>
      </Card>
      {/* Spec 002 §2: the plan usage card sits between the account card and Cloud services. */}
      <PlanUsageCard profile={profile} />
      <Card title="Cloud services">
        <Flex wrap gap={16}>
          <Link to="/addProvider">Add your cloud account</Link>
          <Link to="/S3Direct">Upload files directly to your buckets</Link>
        </Flex>
      </Card>
      {/* Paired transfer agents (issue 27), shown while the member's ftX service is on. */}
      {profile.acl.services.ftx !== false ? <TransferAgentsCard profile={profile} /> : null}
    </Space>
  );
}

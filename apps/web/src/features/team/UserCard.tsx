import { App, Avatar, Card, Flex, Switch, Tag, Typography } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { mayToggleActive, type MemberCard } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { DateText } from '../../ui/DateText.tsx';
import { setMemberActive } from './team-api.ts';

export const ROLE_COLORS: Record<string, string> = { Owner: 'gold', Admin: 'blue', User: 'default' };

const initials = (member: Pick<MemberCard, 'first_name' | 'last_name'>) =>
  `${member.first_name.charAt(0)}${member.last_name.charAt(0)}`.toUpperCase();

/** The avatar (or initials) of a member. */
export function MemberAvatar({
  member,
  size,
}: {
  member: Pick<MemberCard, 'first_name' | 'last_name' | 'pictureUrl'>;
  size?: number;
}) {
  return (
    <Avatar size={size ?? 48} src={member.pictureUrl ?? undefined}>
      {initials(member)}
    </Avatar>
  );
}

/**
 * A user card (spec 002 "Other shared UI"): avatar or initials, name, active-since date, e-mail, role badge and the
 * Active switch, enabled only by the rule of spec 002 §6 (the server applies the same rule).
 */
export function UserCard({ member, viewer }: { member: MemberCard; viewer: { id: string; role: string } }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (active: boolean) => setMemberActive(member.id, active),
    onSuccess: (text) => {
      void message.success(text);
      void queryClient.invalidateQueries({ queryKey: queryKeys.members });
    },
    onError: (error) => void message.error(describeError(error)),
  });
  const name = `${member.first_name} ${member.last_name}`;
  const enabled = mayToggleActive(viewer, { id: member.id, role: member.role.title });
  return (
    <Card size="small" data-testid="user-card" aria-label={name}>
      <Flex gap={12} align="center">
        <MemberAvatar member={member} />
        <Flex vertical style={{ flex: 1, minWidth: 0 }}>
          <Link to={`/users/${member.id}`}>
            <Typography.Text strong>{name}</Typography.Text>
          </Link>
          <Typography.Text type="secondary" ellipsis>
            {member.email}
          </Typography.Text>
          <Typography.Text type="secondary">
            Active since <DateText value={member.activation_date ?? member.created_at} />
          </Typography.Text>
        </Flex>
        <Flex vertical align="end" gap={8}>
          <Tag color={ROLE_COLORS[member.role.title] ?? 'default'}>{member.role.title}</Tag>
          <Switch
            aria-label={`Active: ${name}`}
            checked={member.active}
            disabled={!enabled}
            loading={toggle.isPending}
            onChange={(active) => toggle.mutate(active)}
          />
        </Flex>
      </Flex>
    </Card>
  );
}

import {
  memberCards,
  messageAnswer,
  pendingInvitations,
  userProfile,
  type InviteRow,
  type MemberCard,
  type PendingInvitation,
  type UserProfile,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';

/** The organisation's members (GET /users). */
export async function fetchMembers(): Promise<MemberCard[]> {
  return memberCards.parse(await api.get('/users'));
}

/** One member's profile (GET /users/{id}). */
export async function fetchMember(id: string): Promise<UserProfile> {
  return userProfile.parse(await api.get(`/users/${encodeURIComponent(id)}`));
}

/** POST /users/invite; the screen shows the refusals itself. */
export async function inviteUsers(rows: InviteRow[]): Promise<string> {
  return messageAnswer.parse(await api.post('/users/invite', rows, { silent: true })).message;
}

export async function setMemberActive(id: string, active: boolean): Promise<string> {
  const path = `/users/${encodeURIComponent(id)}/${active ? 'activate' : 'deactivate'}`;
  return messageAnswer.parse(await api.put(path, undefined, { silent: true })).message;
}

export async function changeMemberRole(id: string, roleId: number): Promise<string> {
  return messageAnswer.parse(
    await api.put(`/users/${encodeURIComponent(id)}`, { role_id: roleId }, { silent: true }),
  ).message;
}

/** The invitations nobody accepted yet (GET /users/invitations). */
export async function fetchPendingInvitations(): Promise<PendingInvitation[]> {
  return pendingInvitations.parse(await api.get('/users/invitations'));
}

export async function resendInvitation(id: string): Promise<string> {
  const path = `/users/invitations/${encodeURIComponent(id)}/resend`;
  return messageAnswer.parse(await api.post(path, undefined, { silent: true })).message;
}

export async function cancelInvitation(id: string): Promise<string> {
  const path = `/users/invitations/${encodeURIComponent(id)}`;
  return messageAnswer.parse(await api.delete(path, { silent: true })).message;
}

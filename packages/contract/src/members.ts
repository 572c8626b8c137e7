import { z } from 'zod';
import type { RoleTitle } from './constants.ts';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN, NAME_MAX_LENGTH } from './validation.ts';
import { text } from './text.ts';
import { role } from './api.ts';

/** The team screens' words (spec 002 §8 toasts, and the refusals of the §6 rules). */
export const memberMessages = {
  invitesSent: (n: number) => `${n} invites successfully sent.`,
  activated: 'User successfully activated',
  deactivated: 'User successfully deactivated',
  roleUpdated: 'Role successfully updated.',
  noCompleteRow: 'Fill in the first name, last name, email and role of at least one user.',
  inviteAsOwner: 'Users cannot be invited as Owner.',
  emailTaken: 'This email already belongs to a user or has a pending invitation.',
  emailTwice: 'This email is in the list twice.',
  notYourself: 'You cannot change your own access.',
  adminActivatesUsers: 'An Admin can only activate or deactivate Users.',
  adminChangesUsersRoles: 'An Admin can only change the role of Users.',
  ownerRoleFixed: "An Owner's role cannot be changed.",
  ownerMakesOwners: 'Only an Owner can make someone Owner.',
  seatNotice: (price: number) => `Each new user will be $${price}/month.`,
  /* Texts the spec leaves to us ("not shown"). */
  inviteResent: 'Invitation sent again. The earlier link no longer works.',
  inviteCancelled: 'Invitation cancelled. Its link no longer works.',
  noPendingInvites: 'No pending invitations',
} as const;

/** The code of the invite refusal while the organisation has no card: the web sends the inviter to /billing. */
export const CARD_REQUIRED = 'CARD_REQUIRED';

/** A user card (spec 002 "Other shared UI", §3 User): GET /users answers the organisation's members. */
export const memberCard = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  pictureUrl: z.string().nullable(),
  created_at: z.string(),
  activation_date: z.string().nullable(),
  active: z.boolean(),
  role,
});
export type MemberCard = z.infer<typeof memberCard>;
export const memberCards = z.array(memberCard);

/** GET /users/invitations (not in the spec): the invitations nobody has accepted yet, expired ones included. */
export const pendingInvitation = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role,
  invited_by: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  expired: z.boolean(),
});
export type PendingInvitation = z.infer<typeof pendingInvitation>;
export const pendingInvitations = z.array(pendingInvitation);

const rowText = (max: number) => text({ trim: true, max }).optional().nullable();

/** A role id as sent: roles are few, and anything past PostgreSQL's smallint is no role (not a 500). */
const roleId = z.int().min(-32768).max(32767);

/** One row of the invite form as sent; a row counts only when all four fields are filled (spec 002 §5). */
export const inviteRow = z.object({
  first_name: rowText(NAME_MAX_LENGTH),
  last_name: rowText(NAME_MAX_LENGTH),
  email: rowText(EMAIL_MAX_LENGTH),
  role_id: roleId.optional().nullable(),
});
export type InviteRow = z.infer<typeof inviteRow>;
/** POST /users/invite: an array of rows (at most 50 at once). */
export const inviteBody = z.array(inviteRow).max(50);

export interface CompleteInvite {
  /** Where the row was in the list sent, for field messages (`{index}.email`). */
  index: number;
  first_name: string;
  last_name: string;
  /** Lower-cased. */
  email: string;
  role_id: number;
}

/** The rows that count: all four fields filled, trimmed, the e-mail lower-cased. */
export function completeInviteRows(rows: readonly InviteRow[]): CompleteInvite[] {
  return rows.flatMap((row, index) => {
    const first = row.first_name?.trim();
    const last = row.last_name?.trim();
    const email = row.email?.trim().toLowerCase();
    if (!first || !last || !email || row.role_id == null) return [];
    return [{ index, first_name: first, last_name: last, email, role_id: row.role_id }];
  });
}

/** Whether an e-mail of a complete row has the shape of an address. */
export const isInviteEmail = (email: string) => EMAIL_PATTERN.test(email);

export const roleChangeBody = z.object({ role_id: roleId });

/**
 * Spec 002 §6: the Active toggle is enabled only if the target is not oneself and the viewer is Owner, or the
 * viewer is Admin and the target is a User. The server applies the same rule.
 */
export function mayToggleActive(viewer: { id: string; role: string }, target: { id: string; role: string }) {
  if (viewer.id === target.id) return false;
  return viewer.role === 'Owner' || (viewer.role === 'Admin' && target.role === 'User');
}

/**
 * Whose role a viewer may change: never their own nor an Owner's, and an Admin only a User's, as with the Active
 * toggle; otherwise an Admin could demote another Admin and then deactivate them or change their permissions.
 */
export function mayChangeRole(viewer: { id: string; role: string }, target: { id: string; role: string }) {
  if (viewer.id === target.id || target.role === 'Owner') return false;
  return viewer.role === 'Owner' || (viewer.role === 'Admin' && target.role === 'User');
}

/** The roles a viewer may give someone: never Owner through an invite; an Admin never makes Owners. */
export function assignableRoles(viewerRole: string, purpose: 'invite' | 'change'): RoleTitle[] {
  if (purpose === 'invite' || viewerRole !== 'Owner') return ['Admin', 'User'];
  return ['Owner', 'Admin', 'User'];
}

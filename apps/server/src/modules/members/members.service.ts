import {
  CARD_REQUIRED,
  INVITATION_TTL_SECONDS,
  ROLE_ID,
  roleTitleOf,
  billingMessages,
  completeInviteRows,
  isInviteEmail,
  mayChangeRole,
  mayToggleActive,
  memberMessages,
  messages,
  type InviteRow,
  type MemberCard,
  type PendingInvitation,
} from '@cumulo/contract';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { badRequest, forbidden, notFound, type FieldErrors } from '../../errors.ts';
import { hashToken, newInviteToken } from '../../crypto/tokens.ts';
import type { MailService, OutgoingMail } from '../../mail/mail.service.ts';
import type { Logger } from '../../logger.ts';
import type { BusMessage } from '../../realtime/events.ts';
import { changesOf, recordAudit, type AuditActor, type AuditEvent } from '../audit/audit.writer.ts';
import type { EntitlementsService } from '../billing/entitlements.service.ts';
import { invitationMail } from '../identity/identity.mail.ts';
import { AccessRepo } from '../access/access.repo.ts';
import type { InvitationRow, MemberRow, MembersRepo } from './members.repo.ts';

const cardOf = (row: MemberRow): MemberCard => ({
  id: row.id,
  first_name: row.firstName,
  last_name: row.lastName,
  email: row.email,
  pictureUrl: null,
  created_at: row.createdAt.toISOString(),
  activation_date: row.emailVerifiedAt?.toISOString() ?? null,
  active: row.active,
  role: row.role,
});

const invitationAdded = (invitation: InvitationRow): AuditEvent => ({
  entity: 'Invitation',
  type: 'Added',
  resource: invitation.email,
  resourceId: invitation.id,
  changes: changesOf(null, {
    email: invitation.email,
    first_name: invitation.firstName,
    last_name: invitation.lastName,
    role: roleTitleOf(invitation.roleId),
  }),
});

/**
 * The organisation's members (spec 002 §2 /users, §6): listing, inviting, (de)activating and changing roles. Each
 * change is one repo transaction, with its audit entry.
 */
export class MembersService {
  constructor(
    private readonly repo: MembersRepo,
    private readonly entitlements: EntitlementsService,
    private readonly mail: MailService,
    private readonly publicUrl: string,
    private readonly log: Logger,
    private readonly publish: (message: BusMessage) => Promise<void>,
  ) {}

  async list(principal: Principal): Promise<MemberCard[]> {
    return (await this.repo.listMembers(principal.organizationId)).map(cardOf);
  }

  /** Invites the complete rows (spec 002 §5); refuses the whole list when any of them cannot be invited. */
  async invite(principal: Principal, rows: readonly InviteRow[]) {
    authorize(principal, 'member.invite');
    const complete = completeInviteRows(rows);
    if (complete.length === 0) throw badRequest(memberMessages.noCompleteRow);
    // Each member is a paid seat: an organisation without a card adds none (the web sends the inviter to /billing).
    if (!(await this.entitlements.standing(principal.organizationId)).hasCard) {
      throw forbidden(billingMessages.userAddNeedsCard, CARD_REQUIRED);
    }
    const taken = await this.repo.takenEmails(
      principal.organizationId,
      complete.map((row) => row.email),
    );
    const errors: FieldErrors = {};
    const seen = new Set<string>();
    for (const row of complete) {
      const problem = !isInviteEmail(row.email)
        ? messages.emailInvalid
        : taken.has(row.email)
          ? memberMessages.emailTaken
          : seen.has(row.email)
            ? memberMessages.emailTwice
            : null;
      if (problem) errors[`${row.index}.email`] = [problem];
      if (row.role_id === ROLE_ID.Owner) errors[`${row.index}.role_id`] = [memberMessages.inviteAsOwner];
      else if (!(await this.repo.roleExists(row.role_id)))
        errors[`${row.index}.role_id`] = [messages.notFound];
      seen.add(row.email);
    }
    const first = Object.values(errors)[0]?.[0];
    if (first) throw badRequest(first, { ...errors, base: [first] });

    const expiresAt = new Date(Date.now() + INVITATION_TTL_SECONDS * 1000);
    const invites = complete.map((row) => ({
      row,
      token: newInviteToken(row.email, row.first_name, row.last_name, principal.organizationId),
    }));
    await this.repo.transaction(async (tx) => {
      const created = await tx.createInvitations(
        invites.map(({ row, token }) => ({
          organizationId: principal.organizationId,
          email: row.email,
          firstName: row.first_name,
          lastName: row.last_name,
          roleId: row.role_id,
          tokenHash: hashToken(token),
          invitedBy: principal.userId,
          expiresAt,
        })),
      );
      await recordAudit(tx.orm, principal, created.map(invitationAdded));
    });
    for (const { row, token } of invites) {
      void this.#sendQuietly(
        invitationMail(
          row.email,
          row.first_name,
          `${this.publicUrl}/signup?invite_token=${encodeURIComponent(token)}`,
        ),
      );
    }
    return { message: memberMessages.invitesSent(invites.length) };
  }

  /** Spec 002 §6: never oneself; an Owner (de)activates anyone else, an Admin only Users. */
  async setActive(principal: Principal, userId: string, active: boolean) {
    const target = await this.#member(principal, userId);
    authorize(principal, 'member.activate');
    if (target.id === principal.userId) throw forbidden(memberMessages.notYourself);
    if (
      !mayToggleActive(
        { id: principal.userId, role: principal.role },
        { id: target.id, role: target.role.title },
      )
    ) {
      throw forbidden(memberMessages.adminActivatesUsers);
    }
    return this.#applyActive(principal, target, active);
  }

  /**
   * The instance operator's Active/Deactivate of any organisation's member (modules/admin): the admin service
   * checked the caller is an operator and found the member's organisation; never oneself. The entry lands in that
   * organisation's trail with the operator as author, and deactivation ends the sessions as an Owner's does.
   */
  async setActiveByOperator(operator: Principal, organizationId: string, userId: string, active: boolean) {
    const target = await this.repo.findMember(organizationId, userId);
    if (!target) throw notFound();
    if (target.id === operator.userId) throw forbidden(memberMessages.notYourself);
    return this.#applyActive({ organizationId, userId: operator.userId }, target, active);
  }

  /**
   * One invitation by the instance operator into `organizationId` (modules/admin "Add New User"): the same
   * invitation row, audit entry and mail as an Owner's, with the role the admin service chose (Owner for an
   * organisation's first member). No card or seat check: those are a tenant paying for the seats it adds, and the
   * operator adds a member to someone else's organisation (README of modules/admin).
   */
  async inviteByOperator(
    operator: Principal,
    organizationId: string,
    row: { email: string; first_name: string; last_name: string },
    roleId: number,
  ) {
    if ((await this.repo.takenEmails(organizationId, [row.email])).has(row.email)) {
      throw badRequest(memberMessages.emailTaken, { email: [memberMessages.emailTaken] });
    }
    const token = newInviteToken(row.email, row.first_name, row.last_name, organizationId);
    await this.repo.transaction(async (tx) => {
      const [invitation] = await tx.createInvitations([
        {
          organizationId,
          email: row.email,
          firstName: row.first_name,
          lastName: row.last_name,
          roleId,
          tokenHash: hashToken(token),
          invitedBy: operator.userId,
          expiresAt: new Date(Date.now() + INVITATION_TTL_SECONDS * 1000),
        },
      ]);
      if (!invitation) throw new Error('invitation insert returned nothing');
      await recordAudit(tx.orm, { organizationId, userId: operator.userId }, invitationAdded(invitation));
    });
    void this.#sendQuietly(
      invitationMail(
        row.email,
        row.first_name,
        `${this.publicUrl}/signup?invite_token=${encodeURIComponent(token)}`,
      ),
    );
  }

  /** Whether the organisation has an Owner, or a live invitation that will make one (modules/admin). */
  hasOwner(organizationId: string): Promise<boolean> {
    return this.repo.hasOwner(organizationId);
  }

  async #applyActive(actor: AuditActor, target: MemberRow, active: boolean) {
    const revoked = await this.repo.transaction(async (tx) => {
      await tx.setActive(actor.organizationId, target.id, active);
      await recordAudit(tx.orm, actor, {
        entity: 'User',
        type: 'Modified',
        resource: target.email,
        resourceId: target.id,
        changes: changesOf({ active: target.active }, { active }),
      });
      // A deactivated member's bearer stops at once: the auth hook also checks users.active, and the ended
      // sessions do not come back when they are activated again.
      return active ? [] : tx.revokeSessions(actor.organizationId, target.id);
    });
    if (revoked.length) await this.publish({ type: '$session-revoked', sessionIds: revoked });
    return { message: active ? memberMessages.activated : memberMessages.deactivated };
  }

  /**
   * Spec 002 §6: nobody changes their own role nor an Owner's (the selector is hidden for an Owner); only an Owner
   * makes someone Owner.
   */
  async changeRole(principal: Principal, userId: string, roleId: number) {
    const target = await this.#member(principal, userId);
    authorize(principal, 'member.role');
    if (target.id === principal.userId) throw forbidden(memberMessages.notYourself);
    if (target.role.id === ROLE_ID.Owner) throw forbidden(memberMessages.ownerRoleFixed);
    if (
      !mayChangeRole(
        { id: principal.userId, role: principal.role },
        { id: target.id, role: target.role.title },
      )
    ) {
      throw forbidden(memberMessages.adminChangesUsersRoles);
    }
    if (roleId === ROLE_ID.Owner && principal.role !== 'Owner') {
      throw forbidden(memberMessages.ownerMakesOwners);
    }
    if (!(await this.repo.roleExists(roleId))) {
      throw badRequest(messages.notFound, { role_id: [messages.notFound] });
    }
    await this.repo.transaction(async (tx) => {
      await tx.setRole(principal.organizationId, target.id, roleId);
      await recordAudit(tx.orm, principal, {
        entity: 'User',
        type: 'Modified',
        resource: target.email,
        resourceId: target.id,
        changes: changesOf({ role: target.role.title }, { role: roleTitleOf(roleId) }),
      });
      // Spec 002 §6: the member's own ACL settings go back to following the role, with the role change or not at all.
      await new AccessRepo(tx.orm).resetMember(principal.organizationId, target.id);
    });
    // The member's ACL follows the new role now: the realtime hub reads it again.
    await this.publish({ type: '$access-changed', organizationId: principal.organizationId });
    return { message: memberMessages.roleUpdated };
  }

  /** The invitations nobody accepted yet (not in the spec: what a team admin needs to follow them up). */
  async pendingInvitations(principal: Principal): Promise<PendingInvitation[]> {
    authorize(principal, 'member.invite');
    const now = Date.now();
    return (await this.repo.pendingInvitations(principal.organizationId)).map((row) => ({
      id: row.id,
      email: row.email,
      first_name: row.firstName,
      last_name: row.lastName,
      role: row.role,
      invited_by: row.invitedBy || null,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
      expired: row.expiresAt.getTime() <= now,
    }));
  }

  /** Mails a pending invitation again with a new token and a new expiry; the earlier link stops working. */
  async resendInvitation(principal: Principal, id: string) {
    authorize(principal, 'member.invite');
    const token = await this.repo.transaction(async (tx) => {
      const row = await tx.lockPendingInvitation(principal.organizationId, id);
      if (!row) throw notFound();
      const fresh = newInviteToken(row.email, row.firstName, row.lastName, principal.organizationId);
      const expiresAt = new Date(Date.now() + INVITATION_TTL_SECONDS * 1000);
      await tx.renewInvitation(principal.organizationId, id, hashToken(fresh), expiresAt);
      await recordAudit(tx.orm, principal, {
        entity: 'Invitation',
        type: 'Modified',
        resource: row.email,
        resourceId: row.id,
        changes: changesOf({ expires_at: row.expiresAt }, { expires_at: expiresAt }),
      });
      return { fresh, row };
    });
    void this.#sendQuietly(
      invitationMail(
        token.row.email,
        token.row.firstName,
        `${this.publicUrl}/signup?invite_token=${encodeURIComponent(token.fresh)}`,
      ),
    );
    return { message: memberMessages.inviteResent };
  }

  /** Withdraws a pending invitation: its link finds nothing any more. */
  async cancelInvitation(principal: Principal, id: string) {
    authorize(principal, 'member.invite');
    await this.repo.transaction(async (tx) => {
      const row = await tx.lockPendingInvitation(principal.organizationId, id);
      if (!row) throw notFound();
      await tx.deleteInvitation(principal.organizationId, id);
      await recordAudit(tx.orm, principal, {
        entity: 'Invitation',
        type: 'Deleted',
        resource: row.email,
        resourceId: row.id,
        changes: changesOf({ email: row.email, first_name: row.firstName, last_name: row.lastName }, null),
      });
    });
    return { message: memberMessages.inviteCancelled };
  }

  async #member(principal: Principal, userId: string) {
    const member = await this.repo.findMember(principal.organizationId, userId);
    if (!member) throw notFound();
    return member;
  }

  /** Sends without failing the caller: a mail that cannot go out is logged, the inviter can invite again. */
  async #sendQuietly(mail: OutgoingMail) {
    await this.mail
      .send(mail)
      .catch((error: unknown) => this.log.error({ err: error, subject: mail.subject }, 'mail failed'));
  }
}

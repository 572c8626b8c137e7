import { hash, verify } from '@node-rs/argon2';
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { authenticator as baseAuthenticator } from 'otplib';
import QRCode from 'qrcode';
import {
  INVITATION_TTL_SECONDS,
  RECOVERY_CODE_ALPHABET,
  RECOVERY_CODE_COUNT,
  RECOVERY_CODE_LENGTH,
  RESET_LINK_TTL_SECONDS,
  ROLE_ID,
  roleTitleOf,
  USER_TYPE_ALL_PROVIDERS,
  VERIFICATION_LINK_TTL_SECONDS,
  messages,
  type EffectiveAccess,
  type UserProfile,
} from '@cumulo/contract';
import { authorize } from '../../authz/policy.ts';
import type { Principal } from '../../authz/principal.ts';
import { AppError, badRequest, forbidden, notFound } from '../../errors.ts';
import { hashToken, newInviteToken, newLinkToken } from '../../crypto/tokens.ts';
import type { SecretBox } from '../../crypto/keys.ts';
import type { MailService, OutgoingMail } from '../../mail/mail.service.ts';
import type { Logger } from '../../logger.ts';
import type { BusMessage } from '../../realtime/events.ts';
import { changesOf, recordAudit, type AuditEvent } from '../audit/audit.writer.ts';
import type { IdentityRepo, TokenKind, UserRow } from './identity.repo.ts';
import type { MailLimiter, SignInLimiter } from './sign-in-limiter.ts';
import type { EntitlementsService } from '../billing/entitlements.service.ts';
import {
  alreadyRegisteredMail,
  invitationMail,
  resetMail,
  verificationMail,
  welcomeCustomerMail,
} from './identity.mail.ts';

/** argon2id with the OWASP-recommended minimum cost (19 MiB, 2 passes). */
export const ARGON2 = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const TOTP_STEP_SECONDS = 30;
const totp = baseAuthenticator.clone({ window: 1, step: TOTP_STEP_SECONDS });
const TOTP_SHAPE = /^\d{6}$/;
/** Long enough for the browser's redirect to reach /login and post the code back, short enough to be useless later. */
const SSO_SIGN_IN_CODE_TTL_SECONDS = 60;

/** A TOTP check: accepted, wrong, or right but its time step already accepted once (a replay). */
type CodeVerdict = 'ok' | 'wrong' | 'replayed';

const codeRefusal = (verdict: Exclude<CodeVerdict, 'ok'>) =>
  verdict === 'replayed' ? messages.mfaCodeAlreadyUsed : messages.wrongMfaCode;

/** Lower case without the dash or spaces, so `ABCDE-FGHJK`, `abcde fghjk` and `abcdefghjk` are the same code. */
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[- ]/g, '');

export interface ClientInfo {
  ip: string;
  userAgent?: string;
}

export type LoginResult = { challenge: 0; jwtToken: string } | { challenge: 1; session: string };

/** The audit entry of a member joining an organisation through an invitation (by password or single sign-on). */
export const memberJoined = (user: UserRow): AuditEvent => ({
  entity: 'User',
  type: 'Added',
  resource: user.email,
  resourceId: user.id,
  changes: changesOf(null, {
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    role: roleTitleOf(user.roleId),
  }),
});

/**
 * The tokens of a sign-in and the caller's ACL, as http/auth.ts's AuthService gives them: named here so that the
 * service does not import http/.
 */
export interface SignInTokens {
  readonly sessionTtl: number;
  requestToken(): Promise<string>;
  mfaSession(userId: string): Promise<string>;
  mfaSessionUser(token: string): Promise<string>;
  sessionToken(userId: string, sessionId: string, organizationId: string): Promise<string>;
  accessOf(organizationId: string, userId: string): Promise<EffectiveAccess>;
}

/** Sign-up, sign-in (with MFA), e-mailed links and the caller's own profile. */
export class IdentityService {
  #dummyHash: Promise<string> | undefined;

  constructor(
    private readonly repo: IdentityRepo,
    private readonly auth: SignInTokens,
    private readonly limiter: SignInLimiter,
    private readonly mailLimiter: MailLimiter,
    private readonly mail: MailService,
    private readonly secrets: SecretBox,
    /** HMAC key of the recovery codes, derived from the master key (see #recoveryHash). */
    private readonly recoveryCodeKey: Buffer,
    private readonly publicUrl: string,
    private readonly log: Logger,
    private readonly publish: (message: BusMessage) => Promise<void>,
    /** The profile's packages, quota and trial state come from billing's one answer. */
    private readonly entitlements: EntitlementsService,
    /** The operator rule (modules/admin): the first account, or an address of OPERATOR_EMAILS. */
    private readonly isOperator: (userId: string) => Promise<boolean> = async () => false,
  ) {}

  requestToken() {
    return this.auth.requestToken();
  }

  async login(username: string, password: string, client: ClientInfo): Promise<LoginResult> {
    await this.limiter.check(username, client.ip);
    const user = await this.repo.findUserByEmail(username);
    // Verify against a dummy hash for unknown names so timing does not tell which addresses exist.
    const ok = user
      ? await verify(user.passwordHash, password)
      : await verify(await this.#dummy(), password).then(() => false);
    if (!user || !ok) {
      await this.limiter.recordFailure(username, client.ip);
      throw new AppError(401, 'WRONG_CREDENTIALS', messages.wrongCredentials);
    }
    if (!user.active)
      throw forbidden(
        'Your account has been deactivated. Please contact your organisation Owner.',
        'INACTIVE',
      );
    if (!user.emailVerifiedAt) {
      throw new AppError(403, 'EMAIL_NOT_VERIFIED', messages.emailNotVerified);
    }
    if (user.mfaSecret) {
      return { challenge: 1, session: await this.auth.mfaSession(user.id) };
    }
    await this.limiter.recordSuccess(username);
    return { challenge: 0, jwtToken: await this.#startSession(user, client) };
  }

  /**
   * The single-use code a single sign-on callback hands the browser (modules/identity README "Single sign-on"); the
   * browser exchanges it at POST /oauth for what Login answers, so the bearer is stored as after a password.
   */
  async issueSsoSignInCode(user: UserRow): Promise<string> {
    return this.#issueLink(user, 'sso_sign_in', SSO_SIGN_IN_CODE_TTL_SECONDS);
  }

  /**
   * POST /oauth: the provider proved the user, so no password; an account with MFA still answers challenge 1 and
   * needs its TOTP code, as a password sign-in does: the second factor is ours, not the provider's.
   */
  async ssoSignIn(code: string, client: ClientInfo): Promise<LoginResult> {
    const row = await this.repo.consumeToken(hashToken(code), 'sso_sign_in');
    const user = row && (await this.repo.findUserInOrg(row.organizationId, row.userId));
    if (!user) throw new AppError(401, 'SSO_FAILED', messages.ssoFailed);
    if (!user.active) throw forbidden(messages.accountDeactivated, 'INACTIVE');
    if (user.mfaSecret) return { challenge: 1, session: await this.auth.mfaSession(user.id) };
    return { challenge: 0, jwtToken: await this.#startSession(user, client) };
  }

  async mfaRespond(session: string, userCode: string, client: ClientInfo): Promise<string> {
    const userId = await this.auth.mfaSessionUser(session);
    const user = await this.repo.findUserById(userId);
    if (!user || !user.active || !user.mfaSecret)
      throw new AppError(401, 'MFA_SESSION', messages.mfaSessionExpired);
    await this.limiter.check(user.email, client.ip);
    if (TOTP_SHAPE.test(userCode)) {
      const verdict = await this.#acceptCode(user, user.mfaSecret, userCode);
      if (verdict !== 'ok') {
        // A replayed code counts like a wrong one: the distinct answer must not become a fast oracle.
        await this.limiter.recordFailure(user.email, client.ip);
        throw new AppError(
          401,
          verdict === 'replayed' ? 'MFA_CODE_USED' : 'WRONG_MFA_CODE',
          codeRefusal(verdict),
        );
      }
    } else if (
      !(await this.repo.consumeRecoveryCode(user.organizationId, user.id, this.#recoveryHash(userCode)))
    ) {
      await this.limiter.recordFailure(user.email, client.ip);
      throw new AppError(401, 'WRONG_RECOVERY_CODE', messages.wrongRecoveryCode);
    }
    await this.limiter.recordSuccess(user.email);
    return this.#startSession(user, client);
  }

  async logout(principal: Principal) {
    await this.repo.revokeSession(principal.organizationId, principal.sessionId);
    await this.publish({ type: '$session-revoked', sessionIds: [principal.sessionId] });
  }

  async signup(
    input: {
      email: string;
      password: string;
      first_name: string;
      last_name: string;
      company?: string | null;
      referrer_id?: string | number | null;
      invite_token?: string | null;
    },
    client: ClientInfo,
  ) {
    if (input.invite_token) {
      await this.completeInvitation({
        token: input.invite_token,
        password: input.password,
        firstname: input.first_name,
        lastname: input.last_name,
      });
      return { email: input.email, message: messages.signupDone };
    }
    await this.mailLimiter.countRequest(client.ip);
    const existing = await this.repo.findUserByEmail(input.email);
    if (existing) {
      // Same answer as a new sign-up, so the form does not reveal who has an account; the owner is told by mail.
      if (await this.mailLimiter.mayMail(existing.email)) {
        void this.#sendQuietly(alreadyRegisteredMail(existing.email, `${this.publicUrl}/login`));
      }
      return { email: input.email, message: messages.signupDone };
    }
    const passwordHash = await hash(input.password, ARGON2);
    const created = await this.repo
      .transaction(async (tx) => {
        const organization = await tx.createOrganization(
          input.company?.trim() || `${input.first_name} ${input.last_name}'s organisation`,
        );
        return tx.createUser({
          organizationId: organization.id,
          roleId: ROLE_ID.Owner,
          email: input.email,
          passwordHash,
          firstName: input.first_name,
          lastName: input.last_name,
          company: input.company?.trim() || null,
          referrerId: input.referrer_id == null ? null : String(input.referrer_id),
        });
      })
      .catch((error: unknown) => {
        // Two sign-ups of one address at once: the unique index decides, the loser gets the same answer.
        if ((error as { cause?: { code?: string } }).cause?.code === '23505') return null;
        throw error;
      });
    if (created) await this.#sendVerification(created);
    return { email: input.email, message: messages.signupDone };
  }

  async verifyUser(token: string) {
    const row = await this.repo.consumeToken(hashToken(token), 'verify_email');
    if (!row) throw badRequest(messages.verifyLinkInvalid);
    await this.repo.updateUser(row.organizationId, row.userId, { emailVerifiedAt: new Date() });
    return { message: messages.accountVerified };
  }

  async resendVerification(email: string | undefined, client: ClientInfo) {
    await this.mailLimiter.countRequest(client.ip);
    const user = email ? await this.repo.findUserByEmail(email) : undefined;
    if (user && !user.emailVerifiedAt && user.active) await this.#sendVerification(user);
    return { message: messages.resetEmailSent };
  }

  async forgotPassword(email: string, client: ClientInfo) {
    await this.mailLimiter.countRequest(client.ip);
    const user = await this.repo.findUserByEmail(email);
    if (user && user.active && (await this.mailLimiter.mayMail(user.email))) {
      const token = await this.#issueLink(user, 'reset_password', RESET_LINK_TTL_SECONDS);
      // Not awaited: answering at once whatever the address keeps the timing from revealing accounts.
      void this.#sendQuietly(
        resetMail(user.email, user.firstName, `${this.publicUrl}/resetpassword/${token}`),
      );
    }
    return { message: messages.resetEmailSent };
  }

  async resetPassword(token: string, password: string) {
    const passwordHash = await hash(password, ARGON2);
    const reset = await this.repo.transaction(async (tx) => {
      const row = await tx.consumeToken(hashToken(token), 'reset_password');
      if (!row) throw badRequest(messages.resetLinkInvalid);
      // Following the e-mailed link also proves the address.
      const user = await tx.findUserInOrg(row.organizationId, row.userId);
      await tx.updateUser(row.organizationId, row.userId, {
        passwordHash,
        emailVerifiedAt: user?.emailVerifiedAt ?? new Date(),
      });
      return { email: user?.email, sessions: await tx.revokeUserSessions(row.organizationId, row.userId) };
    });
    // The owner proved the mailbox: whatever an attacker's failures made the account wait is lifted.
    if (reset.email) await this.limiter.recordSuccess(reset.email);
    if (reset.sessions.length) await this.publish({ type: '$session-revoked', sessionIds: reset.sessions });
    return { message: messages.passwordReset };
  }

  /** Creates one invitation and e-mails its link; returns the token (tests arrange members with it; POST /users/invite is the members module's). */
  async invite(
    principal: Principal,
    input: { email: string; firstName: string; lastName: string; roleId: number },
  ): Promise<string> {
    authorize(principal, 'member.invite');
    if (input.roleId === ROLE_ID.Owner) throw badRequest('An invitation cannot make someone Owner.');
    const token = newInviteToken(input.email, input.firstName, input.lastName, principal.organizationId);
    await this.repo.createInvitation({
      organizationId: principal.organizationId,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      roleId: input.roleId,
      tokenHash: hashToken(token),
      invitedBy: principal.userId,
      expiresAt: new Date(Date.now() + INVITATION_TTL_SECONDS * 1000),
    });
    void this.#sendQuietly(
      invitationMail(
        input.email,
        input.firstName,
        `${this.publicUrl}/signup?token=${encodeURIComponent(token)}`,
      ),
    );
    return token;
  }

  async signupInfo(token: string) {
    const invitation = await this.repo.findLiveInvitation(hashToken(token));
    if (!invitation) throw badRequest(messages.inviteInvalid);
    return { email: invitation.email, firstname: invitation.firstName, lastname: invitation.lastName };
  }

  async completeInvitation(input: { token: string; password: string; firstname: string; lastname: string }) {
    const passwordHash = await hash(input.password, ARGON2);
    await this.repo.transaction(async (tx) => {
      const invitation = await tx.acceptInvitation(hashToken(input.token));
      if (!invitation) throw badRequest(messages.inviteInvalid);
      if (await tx.findUserByEmail(invitation.email)) {
        throw badRequest('An account with this e-mail already exists. Please sign in instead.');
      }
      const joined = await tx.createUser({
        organizationId: invitation.organizationId,
        roleId: invitation.roleId,
        email: invitation.email,
        passwordHash,
        firstName: input.firstname,
        lastName: input.lastname,
        // The invitation link reached this mailbox, which proves the address.
        emailVerifiedAt: new Date(),
      });
      // The invitee joins by their own act, so they are the entry's author.
      await recordAudit(
        tx.orm,
        { organizationId: joined.organizationId, userId: joined.id },
        memberJoined(joined),
      );
    });
    return { message: messages.signupDone };
  }

  /**
   * The account of a new desktop customer (POST /billing/desktop/subscriptions/new_customer): a new organisation
   * and its Owner, unverified and without a usable password until they follow the e-mailed link. An address that
   * already has an account gets a mail instead and null, with the caller answering the same either way.
   */
  async openCustomerAccount(
    input: { email: string; firstName: string; lastName: string },
    client: ClientInfo,
  ): Promise<{ organizationId: string; userId: string } | null> {
    await this.mailLimiter.countRequest(client.ip);
    const existing = await this.repo.findUserByEmail(input.email);
    if (existing) {
      if (await this.mailLimiter.mayMail(existing.email)) {
        void this.#sendQuietly(alreadyRegisteredMail(existing.email, `${this.publicUrl}/login`));
      }
      return null;
    }
    // Nobody knows this password: the Owner sets theirs through the e-mailed link.
    const passwordHash = await hash(randomBytes(32).toString('base64url'), ARGON2);
    return this.repo
      .transaction(async (tx) => {
        const organization = await tx.createOrganization(
          `${input.firstName} ${input.lastName}'s organisation`.trim(),
        );
        const user = await tx.createUser({
          organizationId: organization.id,
          roleId: ROLE_ID.Owner,
          email: input.email,
          passwordHash,
          firstName: input.firstName,
          lastName: input.lastName,
        });
        return { organizationId: organization.id, userId: user.id };
      })
      .catch((error: unknown) => {
        if ((error as { cause?: { code?: string } }).cause?.code === '23505') return null;
        throw error;
      });
  }

  /** Undoes an account opened for a customer whose card or subscription then failed. */
  async discardCustomerAccount(organizationId: string) {
    await this.repo.deleteOrganization(organizationId);
  }

  /** Mails a new customer the link that sets their password (the reset-password link, which also verifies). */
  async mailPasswordSetup(organizationId: string, userId: string) {
    const user = await this.repo.findUserInOrg(organizationId, userId);
    if (!user || !(await this.mailLimiter.mayMail(user.email))) return;
    const token = await this.#issueLink(user, 'reset_password', RESET_LINK_TTL_SECONDS);
    void this.#sendQuietly(
      welcomeCustomerMail(user.email, user.firstName, `${this.publicUrl}/resetpassword/${token}`),
    );
  }

  /** The caller's own profile; their ACL is the one this request's sign-in check loaded. */
  async profile(principal: Principal): Promise<UserProfile> {
    return this.#profileOf(principal.organizationId, principal.userId, principal.access);
  }

  /** Another member's profile: 404 unless they belong to the caller's organisation. */
  async memberProfile(principal: Principal, userId: string): Promise<UserProfile> {
    return this.#profileOf(
      principal.organizationId,
      userId,
      userId === principal.userId ? principal.access : undefined,
    );
  }

  async updateProfile(
    principal: Principal,
    input: { first_name: string; last_name: string; slack_on_sidebar?: boolean; slack_on_popup?: boolean },
  ) {
    await this.repo.updateUser(principal.organizationId, principal.userId, {
      firstName: input.first_name,
      lastName: input.last_name,
      slackOnSidebar: input.slack_on_sidebar,
      slackOnPopup: input.slack_on_popup,
    });
    return this.profile(principal);
  }

  async changePassword(principal: Principal, oldPassword: string, newPassword: string, client: ClientInfo) {
    const user = await this.repo.findUserInOrg(principal.organizationId, principal.userId);
    if (!user) throw notFound();
    // Wrong old passwords count in the sign-in back-off, as in renewRecoveryCodes: a stolen session or an unlocked
    // browser must not guess the password here without limit.
    await this.limiter.check(user.email, client.ip);
    if (!(await verify(user.passwordHash, oldPassword))) {
      await this.limiter.recordFailure(user.email, client.ip);
      throw badRequest(messages.wrongOldPassword, { old_password: [messages.wrongOldPassword] });
    }
    await this.limiter.recordSuccess(user.email);
    const passwordHash = await hash(newPassword, ARGON2);
    await this.repo.updateUser(principal.organizationId, principal.userId, { passwordHash });
    // Every earlier sign-in ends, this one included; the caller continues with the new token.
    const revoked = await this.repo.revokeUserSessions(principal.organizationId, principal.userId);
    await this.publish({ type: '$session-revoked', sessionIds: revoked });
    return { message: messages.passwordChanged, jwtToken: await this.#startSession(user, client) };
  }

  /** Starts MFA enrolment: a new secret, kept sealed as pending until a code proves the app has it. */
  async generateMfa(principal: Principal) {
    const user = await this.repo.findUserInOrg(principal.organizationId, principal.userId);
    if (!user) throw notFound();
    const secret = totp.generateSecret();
    await this.repo.updateUser(principal.organizationId, principal.userId, {
      mfaPendingSecret: this.secrets.seal(secret),
    });
    const otpauthUrl = totp.keyuri(user.email, 'Cumulo', secret);
    return {
      secret,
      otpauth_url: otpauthUrl,
      qr_code: await QRCode.toDataURL(otpauthUrl, { margin: 1, width: 220 }),
    };
  }

  async setMfa(principal: Principal, enabled: boolean, userCode: string) {
    const user = await this.repo.findUserInOrg(principal.organizationId, principal.userId);
    if (!user) throw notFound();
    if (enabled) {
      if (!user.mfaPendingSecret) throw badRequest('Start again: generate a new QR code first.');
      const verdict = await this.#acceptCode(user, user.mfaPendingSecret, userCode);
      if (verdict !== 'ok') throw badRequest(codeRefusal(verdict), { userCode: [codeRefusal(verdict)] });
      const pendingSecret = user.mfaPendingSecret;
      const recovery = this.#newRecoveryCodes();
      await this.repo.transaction(async (tx) => {
        await tx.updateUser(principal.organizationId, principal.userId, {
          mfaSecret: pendingSecret,
          mfaPendingSecret: null,
        });
        await tx.replaceRecoveryCodes(principal.organizationId, principal.userId, recovery.hashes);
      });
      // The only time the codes leave the server: the database keeps their hashes alone.
      return { message: messages.mfaEnabled, recovery_codes: recovery.codes };
    }
    if (!user.mfaSecret) return { message: messages.mfaDisabled };
    const verdict = await this.#acceptCode(user, user.mfaSecret, userCode);
    if (verdict !== 'ok') throw badRequest(codeRefusal(verdict), { userCode: [codeRefusal(verdict)] });
    await this.repo.transaction(async (tx) => {
      await tx.updateUser(principal.organizationId, principal.userId, {
        mfaSecret: null,
        mfaPendingSecret: null,
      });
      await tx.deleteRecoveryCodes(principal.organizationId, principal.userId);
    });
    return { message: messages.mfaDisabled };
  }

  /** How many unused recovery codes the caller has; the codes themselves are never read back. */
  async recoveryCodesStatus(principal: Principal) {
    const user = await this.repo.findUserInOrg(principal.organizationId, principal.userId);
    if (!user) throw notFound();
    if (!user.mfaSecret) return { remaining: 0 };
    return { remaining: await this.repo.unusedRecoveryCodes(principal.organizationId, principal.userId) };
  }

  /**
   * Ten new recovery codes in place of all earlier ones, proven by the current password or a current TOTP code.
   * Wrong proofs count in the sign-in back-off, so a stolen session cannot be used to guess the password here.
   */
  async renewRecoveryCodes(
    principal: Principal,
    proof: { password?: string; userCode?: string },
    client: ClientInfo,
  ) {
    const user = await this.repo.findUserInOrg(principal.organizationId, principal.userId);
    if (!user) throw notFound();
    if (!user.mfaSecret) throw badRequest('Turn on multi-factor authentication first.');
    await this.limiter.check(user.email, client.ip);
    if (proof.userCode !== undefined) {
      const verdict = await this.#acceptCode(user, user.mfaSecret, proof.userCode);
      if (verdict !== 'ok') {
        await this.limiter.recordFailure(user.email, client.ip);
        throw badRequest(codeRefusal(verdict), { userCode: [codeRefusal(verdict)] });
      }
    } else if (!(await verify(user.passwordHash, proof.password ?? ''))) {
      await this.limiter.recordFailure(user.email, client.ip);
      throw badRequest(messages.wrongOldPassword, { password: [messages.wrongOldPassword] });
    }
    const recovery = this.#newRecoveryCodes();
    await this.repo.replaceRecoveryCodes(principal.organizationId, principal.userId, recovery.hashes);
    return { message: messages.recoveryCodesRenewed, recovery_codes: recovery.codes };
  }

  roles() {
    return this.repo.roles();
  }

  /**
   * A member's profile. Every read that does not need another's answer runs at once (the web app reads this on
   * every page load): the member and their organisation, the billing standing, the packages and the ACL, then the
   * quota counters of the standing's period.
   */
  async #profileOf(
    organizationId: string,
    userId: string,
    ownAccess?: EffectiveAccess,
  ): Promise<UserProfile> {
    const [row, standing, packages, access] = await Promise.all([
      this.repo.profileRow(organizationId, userId),
      this.entitlements.standing(organizationId),
      this.entitlements.heldPackages(organizationId),
      ownAccess ?? this.auth.accessOf(organizationId, userId),
    ]);
    if (!row) throw notFound();
    const { user, organization, role, hasWasabiAccount } = row;
    const quota = await this.entitlements.usage(organizationId, standing);
    return {
      id: user.id,
      first_name: user.firstName,
      last_name: user.lastName,
      email: user.email,
      company: user.company,
      pictureUrl: null,
      created_at: user.createdAt.toISOString(),
      activation_date: user.emailVerifiedAt?.toISOString() ?? null,
      active: user.active,
      role: { id: role.id, title: role.title },
      packages,
      has_billing_info: standing.hasCard,
      in_trial: standing.inTrial,
      // A trial may try native S3 uploads (counted against its s3_native quota); a plan says whether it includes them.
      package: { has_s3_native: standing.plan?.has_s3_native ?? true },
      referrer_id: user.referrerId,
      slack_on_sidebar: user.slackOnSidebar,
      slack_on_popup: user.slackOnPopup,
      mfa_enabled: user.mfaSecret !== null,
      userType: organization.userType ?? USER_TYPE_ALL_PROVIDERS,
      organization: {
        id: organization.id,
        name: organization.name,
        is_cbs: organization.isCbs,
        confirmed_wasabi: organization.confirmedWasabi,
        confirmed_c2c: organization.confirmedC2c,
        confirmed_ftx: organization.confirmedFtx,
      },
      // Spec 001 §6: the direct Wasabi screen needs acl.has_wasabi, held by organisations with a Wasabi account
      // (without one the screen has no bucket to show, and the dashboard offers to add one). `services` and
      // `permissions` are the member's effective service ACL (spec 002 §6), so the web hides what is off.
      acl: { ...access, has_wasabi: hasWasabiAccount },
      quota,
      // The web shows the operator's console from it; the admin routes check the same rule again (403).
      operator: await this.isOperator(userId),
    };
  }

  async #startSession(user: UserRow, client: ClientInfo) {
    const sessionId = await this.repo.createSession({
      organizationId: user.organizationId,
      userId: user.id,
      expiresAt: new Date(Date.now() + this.auth.sessionTtl * 1000),
      ip: client.ip,
      userAgent: client.userAgent?.slice(0, 300),
    });
    return this.auth.sessionToken(user.id, sessionId, user.organizationId);
  }

  /**
   * Checks a TOTP code against a sealed secret (one step of clock drift either way) and marks its time step
   * used, so a code seen by someone else cannot be replayed within its validity.
   */
  async #acceptCode(user: UserRow, sealedSecret: string, code: string): Promise<CodeVerdict> {
    const delta = totp.checkDelta(code, this.secrets.open(sealedSecret));
    if (delta === null) return 'wrong';
    const step = Math.floor(Date.now() / 1000 / TOTP_STEP_SECONDS) + delta;
    return (await this.repo.claimTotpStep(user.organizationId, user.id, step)) ? 'ok' : 'replayed';
  }

  /** Ten new codes as shown to the user (`xxxxx-xxxxx`), and the keyed hashes that are all the database keeps. */
  #newRecoveryCodes(): { codes: string[]; hashes: string[] } {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const chars = Array.from(
        { length: RECOVERY_CODE_LENGTH },
        () => RECOVERY_CODE_ALPHABET[randomInt(RECOVERY_CODE_ALPHABET.length)],
      ).join('');
      const half = RECOVERY_CODE_LENGTH / 2;
      return `${chars.slice(0, half)}-${chars.slice(half)}`;
    });
    return { codes, hashes: codes.map((code) => this.#recoveryHash(code)) };
  }

  /**
   * HMAC-SHA-256 under a key derived from the master key, not argon2: each code is ~48 random bits, so a slow hash
   * adds nothing against online guessing (the sign-in back-off bounds that) and the stolen table alone is useless
   * without the key. Being deterministic, it lets a code be found by an indexed equality and spent in one UPDATE,
   * where salted argon2 would mean loading and verifying every row of the user.
   */
  #recoveryHash(code: string): string {
    return createHmac('sha256', this.recoveryCodeKey).update(normaliseRecoveryCode(code)).digest('hex');
  }

  /** A new single-use link token of `kind`; earlier unused ones of the same kind stop working. */
  async #issueLink(user: UserRow, kind: TokenKind, ttlSeconds: number): Promise<string> {
    const token = newLinkToken();
    await this.repo.expireUnusedTokens(user.id, kind);
    await this.repo.createToken({
      organizationId: user.organizationId,
      userId: user.id,
      kind,
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    });
    return token;
  }

  async #sendVerification(user: UserRow) {
    if (!(await this.mailLimiter.mayMail(user.email))) return;
    const token = await this.#issueLink(user, 'verify_email', VERIFICATION_LINK_TTL_SECONDS);
    void this.#sendQuietly(verificationMail(user.email, user.firstName, `${this.publicUrl}/verify/${token}`));
  }

  /** Sends without failing the caller: a mail that cannot go out is logged, the user can ask again. */
  async #sendQuietly(mail: OutgoingMail) {
    await this.mail
      .send(mail)
      .catch((error: unknown) => this.log.error({ err: error, subject: mail.subject }, 'mail failed'));
  }

  #dummy() {
    this.#dummyHash ??= hash(randomBytes(16).toString('hex'), ARGON2);
    return this.#dummyHash;
  }
}

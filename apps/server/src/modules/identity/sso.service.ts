import { hash } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { ROLE_ID, messages, type SsoErrorCode } from '@cumulo/contract';
import { AppError } from '../../errors.ts';
import { hashToken } from '../../crypto/tokens.ts';
import type { Logger } from '../../logger.ts';
import type { IdentityRepo, UserRow } from './identity.repo.ts';
import { recordAudit } from '../audit/audit.writer.ts';
import {
  ARGON2,
  memberJoined,
  type ClientInfo,
  type IdentityService,
  type LoginResult,
} from './identity.service.ts';
import { SsoRepo } from './sso.repo.ts';

type SsoServiceName = 'Google' | 'OIDC';

/** One OpenID Connect client the operator configured (an operator setting, so its issuer is trusted). */
interface SsoProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface SsoOptions {
  google?: SsoProvider;
  oidc?: SsoProvider & { name: string };
  /** `${PUBLIC_URL}/api/oauth/callback`: the redirect URI registered at every provider. */
  redirectUri: string;
}

/** Claims the sign-in reads, from the ID token or, when it carries no e-mail, from the userinfo endpoint. */
interface SignedInPerson {
  issuer: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  givenName?: string;
  familyName?: string;
  name?: string;
}

/** How long a started sign-in may take at the provider before its state stops working. */
export const SSO_FLOW_TTL_SECONDS = 600;
const SCOPE = 'openid email profile';

/** A refusal the callback sends back to /login as a code (the page shows the contract's message for it). */
const ssoRefusal = (code: SsoErrorCode, message: string, status = 401) => new AppError(status, code, message);

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/**
 * Google and generic OpenID Connect sign-in (authorization code with PKCE, state and nonce, through openid-client).
 * The callback resolves the provider's person to a user, then hands the browser a single-use code that POST /oauth
 * exchanges for the product's own session, through IdentityService as a password sign-in would.
 */
export class SsoService {
  readonly #configurations = new Map<SsoServiceName, Promise<oidc.Configuration>>();
  readonly #sso: SsoRepo;

  constructor(
    private readonly identityRepo: IdentityRepo,
    private readonly identity: IdentityService,
    private readonly options: SsoOptions,
    private readonly log: Logger,
    /** Bounds the flows one client address starts; each holds a row until it ends or expires. */
    private readonly startLimiter?: { count(ip: string): Promise<void> },
  ) {
    this.#sso = new SsoRepo(identityRepo.orm);
  }

  /** Which buttons the sign-in pages show. */
  providers() {
    return {
      google: this.options.google !== undefined,
      oidc: this.options.oidc ? { name: this.options.oidc.name } : null,
    };
  }

  /** Starts a sign-in: a flow row keyed by the state's hash, and the provider URL to send the browser to. */
  async start(service: SsoServiceName, ip: string): Promise<{ authorizationUrl: string; state: string }> {
    const configuration = await this.#configuration(service);
    await this.startLimiter?.count(ip);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    await this.#sso.createFlow({
      stateHash: hashToken(state),
      service,
      codeVerifier,
      nonce,
      expiresAt: new Date(Date.now() + SSO_FLOW_TTL_SECONDS * 1000),
    });
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.options.redirectUri,
      scope: SCOPE,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { authorizationUrl: url.href, state };
  }

  /**
   * The provider's redirect back. `query` is the callback's query string; `browserState` the state this browser
   * started with (its cookie), so a callback link made in another browser (login CSRF) is refused, and the flow
   * row is deleted on first use, so a replayed state is refused too. Returns the code for POST /oauth.
   */
  async callback(
    query: string,
    browserState: string | undefined,
  ): Promise<{ code: string; service: SsoServiceName }> {
    const callbackUrl = new URL(this.options.redirectUri);
    callbackUrl.search = query;
    const state = callbackUrl.searchParams.get('state');
    if (!state || !browserState || state !== browserState) throw ssoRefusal('SSO_FAILED', messages.ssoFailed);
    const flow = await this.#sso.takeFlow(hashToken(state));
    if (!flow) throw ssoRefusal('SSO_FAILED', messages.ssoFailed);
    const configuration = await this.#configuration(flow.service);
    const person = await this.#exchange(configuration, callbackUrl, { ...flow, state }).catch(
      (error: unknown) => {
        // The provider's refusal (a cancelled sign-in, a bad code) or a token that does not verify.
        this.log.warn({ err: error, service: flow.service }, 'single sign-on callback refused');
        throw ssoRefusal('SSO_FAILED', messages.ssoFailed);
      },
    );
    const user = await this.#userFor(person);
    return { code: await this.identity.issueSsoSignInCode(user), service: flow.service };
  }

  /** POST /oauth: the code the callback handed out, for what Login answers (MFA included). */
  signIn(code: string, client: ClientInfo): Promise<LoginResult> {
    return this.identity.ssoSignIn(code, client);
  }

  async #exchange(
    configuration: oidc.Configuration,
    callbackUrl: URL,
    flow: { codeVerifier: string; nonce: string; state: string },
  ): Promise<SignedInPerson> {
    const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token claims');
    // Providers that keep the ID token small (oidc-provider by default) give the e-mail at userinfo only.
    const details: Record<string, unknown> =
      typeof claims.email === 'string'
        ? claims
        : { ...(await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub)), ...claims };
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: text(details.email)?.toLowerCase(),
      emailVerified: details.email_verified === true || details.email_verified === 'true',
      givenName: text(details.given_name),
      familyName: text(details.family_name),
      name: text(details.name),
    };
  }

  /**
   * The user behind a provider identity: the one linked already; else, for a verified e-mail only, the account of
   * that address (linked now), a pending invitation's organisation and role, or a new organisation as its Owner.
   */
  async #userFor(person: SignedInPerson): Promise<UserRow> {
    const linked = await this.#sso.findIdentity(person.issuer, person.subject);
    if (linked) {
      const user = await this.identityRepo.findUserInOrg(linked.organizationId, linked.userId);
      if (user) return user;
    }
    const email = person.email;
    if (!email || !person.emailVerified) {
      throw ssoRefusal('SSO_EMAIL_NOT_VERIFIED', messages.ssoEmailNotVerified, 403);
    }
    // Nobody knows this password: the user signs in through the provider, or sets one by "forgot password".
    const passwordHash = await hash(randomBytes(32).toString('base64url'), ARGON2);
    return this.identityRepo.transaction(async (tx) => {
      const sso = new SsoRepo(tx.orm);
      const link = (user: UserRow) =>
        sso.linkIdentity({
          organizationId: user.organizationId,
          userId: user.id,
          issuer: person.issuer,
          subject: person.subject,
          email,
        });
      const existing = await tx.findUserByEmail(email);
      if (existing) {
        // Someone may have registered this address without owning it; linking would hand them the account.
        if (!existing.emailVerifiedAt) {
          throw ssoRefusal('SSO_ACCOUNT_NOT_CONFIRMED', messages.ssoAccountNotConfirmed, 403);
        }
        await link(existing);
        return existing;
      }
      const firstName = person.givenName ?? person.name?.split(' ')[0] ?? email.split('@')[0] ?? email;
      const lastName = person.familyName ?? person.name?.split(' ').slice(1).join(' ') ?? '';
      const invitation = await sso.acceptInvitationOf(email);
      const organizationId =
        invitation?.organizationId ??
        (await tx.createOrganization(`${firstName} ${lastName}`.trim() + "'s organisation")).id;
      const user = await tx.createUser({
        organizationId,
        roleId: invitation?.roleId ?? ROLE_ID.Owner,
        email,
        passwordHash,
        firstName,
        lastName,
        // The provider vouched for the address (email_verified), as the e-mailed link does for sign-up.
        emailVerifiedAt: new Date(),
      });
      await link(user);
      if (invitation) await recordAudit(tx.orm, { organizationId, userId: user.id }, memberJoined(user));
      return user;
    });
  }

  /** The provider's metadata, discovered once per process; a failed discovery is tried again next time. */
  #configuration(service: SsoServiceName): Promise<oidc.Configuration> {
    const provider = service === 'Google' ? this.options.google : this.options.oidc;
    if (!provider) throw ssoRefusal('SSO_NOT_CONFIGURED', messages.ssoNotConfigured, 404);
    let configuration = this.#configurations.get(service);
    if (!configuration) {
      // Plain http only for an issuer the operator configured that way (a provider on the same host or in tests).
      const insecure = new URL(provider.issuer).protocol === 'http:';
      configuration = oidc
        .discovery(
          new URL(provider.issuer),
          provider.clientId,
          undefined,
          oidc.ClientSecretPost(provider.clientSecret),
          { execute: insecure ? [oidc.allowInsecureRequests] : [], timeout: 10 },
        )
        .catch((error: unknown) => {
          this.#configurations.delete(service);
          this.log.error({ err: error, issuer: provider.issuer }, 'single sign-on discovery failed');
          throw new AppError(502, 'SOMETHING_WENT_WRONG', messages.generic);
        });
      this.#configurations.set(service, configuration);
    }
    return configuration;
  }
}

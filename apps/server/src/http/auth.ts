import type { FastifyReply, FastifyRequest } from 'fastify';
import { SignJWT } from 'jose';
import {
  AGENT_AUTH_SCHEME,
  MFA_SESSION_TTL_SECONDS,
  agentMessages,
  REQUEST_TOKEN_TTL_SECONDS,
  apiKeyMessages,
  messages,
  type EffectiveAccess,
  type RoleTitle,
} from '@cumulo/contract';
import type { ApiKeyAuthenticator, DeviceAuthenticator, Principal } from '../authz/principal.ts';
import { Hs256Verifier } from '../crypto/jwt-hs256.ts';
import { deriveKey } from '../crypto/keys.ts';
import { AppError, forbidden, unauthorized } from '../errors.ts';

/** Reads a member's effective service ACL, and a session bearer's caller with it (modules/access's repo). */
export interface AccessLoader {
  effective(organizationId: string, userId: string): Promise<EffectiveAccess>;
  /** The live session's organisation, role and ACL, or undefined (revoked, expired, user deactivated). */
  sessionCaller(
    sessionId: string,
    userId: string,
    now: Date,
  ): Promise<{ organizationId: string; role: RoleTitle; access: EffectiveAccess } | undefined>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

const ISSUER = 'cumulo';
type Purpose = 'session' | 'request' | 'mfa';

/** Signs and checks the JWTs Cumulo issues; session tokens are also checked against the sessions table. */
export class AuthService {
  readonly #key: Uint8Array;
  readonly #verifier: Hs256Verifier;

  constructor(
    master: Buffer,
    private readonly sessionTtlSeconds: number,
    private readonly access: AccessLoader,
    private readonly apiKeys?: ApiKeyAuthenticator,
    private readonly devices?: DeviceAuthenticator,
  ) {
    this.#key = new Uint8Array(deriveKey(master, 'jwt'));
    this.#verifier = new Hs256Verifier(this.#key);
  }

  get sessionTtl() {
    return this.sessionTtlSeconds;
  }

  /** A member's effective service ACL (their profile shows it). */
  accessOf(organizationId: string, userId: string): Promise<EffectiveAccess> {
    return this.access.effective(organizationId, userId);
  }

  async #sign(purpose: Purpose, claims: Record<string, string>, subject: string, ttlSeconds: number) {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(purpose)
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.#key);
  }

  /** The payload of a valid token of this purpose with a subject, or null (signed with jose, checked in process). */
  #verify(purpose: Purpose, token: string) {
    const payload = this.#verifier.verify(token, { issuer: ISSUER, audience: purpose });
    if (!payload || typeof payload.sub !== 'string' || !payload.sub) return null;
    return payload as typeof payload & { sub: string };
  }

  sessionToken(userId: string, sessionId: string, organizationId: string) {
    return this.#sign('session', { sid: sessionId, org: organizationId }, userId, this.sessionTtlSeconds);
  }

  /** A short-lived form token for the sign-in calls (spec: requestToken). */
  requestToken() {
    return this.#sign('request', {}, 'anonymous', REQUEST_TOKEN_TTL_SECONDS);
  }

  async checkRequestToken(token: string) {
    if (!this.#verify('request', token)) {
      throw new AppError(400, 'REQUEST_TOKEN', messages.requestTokenInvalid, {
        requestToken: [messages.requestTokenInvalid],
      });
    }
  }

  /** The `session` of an MFA challenge: proves the password step passed for this user, for 5 minutes. */
  mfaSession(userId: string) {
    return this.#sign('mfa', {}, userId, MFA_SESSION_TTL_SECONDS);
  }

  async mfaSessionUser(token: string): Promise<string> {
    const payload = this.#verify('mfa', token);
    if (!payload) throw new AppError(401, 'MFA_SESSION', messages.mfaSessionExpired);
    return payload.sub;
  }

  /** Verifies a session bearer and that its session is live and its user active; null when not. */
  async verifyBearer(token: string): Promise<Principal | null> {
    const payload = this.#verify('session', token);
    if (!payload) return null;
    const sid = typeof payload.sid === 'string' ? payload.sid : null;
    if (!sid || !/^[0-9a-f-]{36}$/i.test(sid)) return null;
    // One round trip: the session's checks and the caller's ACL together (every authenticated request pays it).
    const caller = await this.access.sessionCaller(sid, payload.sub, new Date());
    if (!caller) return null;
    return { userId: payload.sub, sessionId: sid, ...caller };
  }

  /**
   * Fastify preHandler for every guarded route: a session bearer (`Authorization: Bearer <jwt>`), or an API key
   * as HTTP Basic (`Authorization: Basic base64(<access_key>:<secret_key>)`, what `curl -u` sends).
   */
  readonly requireAuth = async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers.authorization;
    let principal: Principal | null = null;
    if (header?.startsWith('Bearer ')) {
      principal = await this.verifyBearer(header.slice(7).trim());
    } else if (header?.startsWith('Basic ') && this.apiKeys) {
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const key =
        colon > 0
          ? await this.apiKeys.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1), request.ip)
          : null;
      // A key acts with its creator's ACL as it is now, so turning a service off reaches their keys at once.
      if (key) principal = { ...key, access: await this.access.effective(key.organizationId, key.userId) };
    } else if (header?.startsWith(`${AGENT_AUTH_SCHEME} `)) {
      principal = await this.#device(request, header.slice(AGENT_AUTH_SCHEME.length + 1).trim());
    }
    if (!principal) throw unauthorized();
    request.principal = principal;
  };

  /**
   * A device token's principal. Its failures answer 401 in the agent's words (the agent then asks to pair again);
   * a live device on a route outside its allowlist answers 403, before the route's handler reads anything.
   */
  async #device(request: FastifyRequest, token: string): Promise<Principal> {
    const device = this.devices && token ? await this.devices.authenticate(token) : null;
    if (!this.devices || !device) throw new AppError(401, 'DEVICE_UNKNOWN', agentMessages.deviceUnknown);
    if (!this.devices.routes.has(`${request.method} ${request.routeOptions.url ?? ''}`)) {
      throw forbidden(agentMessages.deviceForbidden, 'DEVICE_FORBIDDEN');
    }
    // Like an API key, a device acts with its member's ACL as it is now.
    return { ...device, access: await this.access.effective(device.organizationId, device.userId) };
  }

  /** For the calls only a transfer agent makes (`Authorization: Agent <token>`): anything else is 401. */
  readonly requireDevice = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (!header?.startsWith(`${AGENT_AUTH_SCHEME} `)) {
      throw new AppError(401, 'DEVICE_UNKNOWN', agentMessages.deviceUnknown);
    }
    await this.requireAuth(request, reply);
  };

  /** For what only a sign-in may do (manage API keys, password, MFA, sign out): an API key or a device gets 403. */
  readonly requireSession = async (request: FastifyRequest, reply: FastifyReply) => {
    await this.requireAuth(request, reply);
    if (request.principal?.apiKeyId) throw forbidden(apiKeyMessages.sessionOnly, 'SESSION_ONLY');
    // Unreachable while the device allowlist names no session route; kept so adding one cannot open it.
    if (request.principal?.deviceId) throw forbidden(agentMessages.deviceForbidden, 'DEVICE_FORBIDDEN');
  };
}

/** The caller, for handlers behind requireAuth. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

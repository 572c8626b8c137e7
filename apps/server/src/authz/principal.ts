import type { EffectiveAccess, RoleTitle } from '@cumulo/contract';

/**
 * Who is calling: the HTTP auth hook (http/auth.ts) sets it on the request and the services take it as their
 * caller (it fits policy.ts's `Actor`). It lives beside the policy, not in http/, so services never import http/.
 */
export interface Principal {
  userId: string;
  organizationId: string;
  /** The sign-in session; empty for an API key call, which cannot reach the routes that use it (requireSession). */
  sessionId: string;
  role: RoleTitle;
  /** Set when the call authenticated with an API key instead of a sign-in session. */
  apiKeyId?: string;
  /**
   * Set when the call authenticated with a transfer agent's device token (`Authorization: Agent <token>`): the
   * device acts as its member, on the few routes the agent makes only (modules/agent/README.md).
   */
  deviceId?: string;
  /** The member's effective service ACL, loaded once per request (modules/access): `authorize` reads it. */
  access: EffectiveAccess;
}

/** Checks an API key presented with HTTP Basic (modules/api-keys); the auth hook adds the creator's ACL. */
export interface ApiKeyAuthenticator {
  authenticate(accessKey: string, secret: string, ip: string): Promise<Omit<Principal, 'access'> | null>;
}

/** Checks a transfer agent's device token (modules/agent); the auth hook adds the member's ACL. */
export interface DeviceAuthenticator {
  /** The live device's member, or null (unknown or revoked token, member deactivated). */
  authenticate(token: string): Promise<Omit<Principal, 'access'> | null>;
  /** `METHOD /api/route/:param` of every route a device may call; everything else answers it 403. */
  readonly routes: ReadonlySet<string>;
}

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Provider from 'oidc-provider';
import { authenticator } from 'otplib';
import { ROLE_ID, SSO_START_LIMIT, messages } from '@cumulo/contract';
import { callApi, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';
import { createLogger } from '../../logger.ts';
import { SsoService } from './sso.service.ts';

const PUBLIC_URL = 'http://cumulo.test';
const REDIRECT_URI = `${PUBLIC_URL}/api/oauth/callback`;
const CLIENT = { client_id: 'cumulo', client_secret: 'cumulo-test-secret' };

interface ProviderAccount {
  email: string;
  email_verified: boolean;
  given_name: string;
  family_name: string;
}

/** The people the local provider knows, by the login typed into its sign-in form. */
const accounts = new Map<string, ProviderAccount>();
let serial = 0;
function providerAccount(name: string, emailVerified = true, email?: string) {
  const login = `${name}-${++serial}`;
  accounts.set(login, {
    email: email ?? `${login}@example.com`,
    email_verified: emailVerified,
    given_name: name,
    family_name: 'Sso',
  });
  return { login, email: email ?? `${login}@example.com` };
}

/** A real OpenID Connect provider (npm oidc-provider) on 127.0.0.1, with its development login and consent forms. */
async function startProvider() {
  const listener = http.createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  const issuer = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        ...CLIENT,
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    cookies: { keys: ['sso-int-spec'] },
    // Explicit lifetimes, which also keep the provider from printing a notice per artifact kind.
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
  });
  listener.on('request', provider.callback());
  return { issuer, close: () => new Promise<void>((resolve) => listener.close(() => resolve())) };
}

/**
 * Signs `login` in at the provider as a browser would: follows its redirects with its cookies and submits its login
 * and consent forms, until it redirects to Cumulo's callback, whose URL it returns.
 */
async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      body: form,
      redirect: 'manual',
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value && !/expires=Thu, 01 Jan 1970/i.test(cookie)) jar.set(name, value);
      else jar.delete(name);
    }
    form = undefined;
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(REDIRECT_URI)) return next;
      url = next.href;
      continue;
    }
    const page = await res.text();
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (!prompt || !action)
      throw new Error(`provider answered ${res.status} without a form: ${page.slice(0, 300)}`);
    url = new URL(action, url).href;
    form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
  }
  throw new Error('the provider never redirected back');
}

let server: TestServer;
let provider: Awaited<ReturnType<typeof startProvider>>;

beforeAll(async () => {
  provider = await startProvider();
  server = await startTestServer({
    PUBLIC_URL,
    // Both buttons point at the local provider; Google's issuer is overridable for exactly this.
    GOOGLE_CLIENT_ID: CLIENT.client_id,
    GOOGLE_CLIENT_SECRET: CLIENT.client_secret,
    GOOGLE_ISSUER: provider.issuer,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: CLIENT.client_id,
    OIDC_CLIENT_SECRET: CLIENT.client_secret,
    OIDC_NAME: 'Acme SSO',
    // No private address allowed to tenants: the operator's issuer on 127.0.0.1 must work regardless.
    ALLOWED_PRIVATE_ENDPOINTS: '',
  });
});

afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** Starts a sign-in as the login page does, returning the provider URL and this browser's state cookie. */
async function startFlow(service: 'Google' | 'OIDC') {
  const res = await server.app.inject({ method: 'POST', url: '/api/oauth/start', payload: { service } });
  expect(res.statusCode).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly/);
  return {
    authorizationUrl: String((res.json() as { authorization_url: string }).authorization_url),
    cookie: setCookie.split(';')[0] ?? '',
  };
}

/** The browser arriving at Cumulo's callback; returns the fragment /login is sent to. */
async function callback(callbackUrl: URL, cookie: string | undefined) {
  const res = await server.app.inject({
    method: 'GET',
    url: `${callbackUrl.pathname}${callbackUrl.search}`,
    headers: cookie ? { cookie } : {},
  });
  expect(res.statusCode).toBe(303);
  const location = new URL(String(res.headers.location));
  expect(location.href.startsWith(`${PUBLIC_URL}/login#`)).toBe(true);
  return new URLSearchParams(location.hash.slice(1));
}

/** The whole sign-in of `login` through `service`, up to the answer of POST /oauth. */
async function ssoSignIn(service: 'Google' | 'OIDC', login: string) {
  const flow = await startFlow(service);
  const fragment = await callback(await signInAtProvider(flow.authorizationUrl, login), flow.cookie);
  const code = fragment.get('sso');
  if (!code) return { error: fragment.get('sso_error'), status: 0, body: {} as Record<string, unknown> };
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/oauth',
    payload: { service, token: code },
  });
  return { error: null, code, status: res.statusCode, body: res.json() as Record<string, unknown> };
}

async function profileOf(jwtToken: unknown) {
  const res = await callApi(server, 'GET', '/api/users/_me', String(jwtToken));
  expect(res.status).toBe(200);
  return res.body as {
    id: string;
    email: string;
    role: { id: number };
    organization: { id: string };
    operator: boolean;
  };
}

const identitiesOf = async (userId: string) =>
  (
    await server.db.pool.query('select issuer, subject, email from user_identities where user_id = $1', [
      userId,
    ])
  ).rows;

describe('single sign-on against a real OpenID provider (oidc-provider on 127.0.0.1)', () => {
  it('tells the sign-in pages which buttons to show', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/authentication/providers' });
    expect(res.json()).toEqual({ google: true, oidc: { name: 'Acme SSO' } });
    const unconfigured = new SsoService(
      server.services.identityRepo,
      server.services.identity,
      { redirectUri: REDIRECT_URI },
      createLogger('silent'),
    );
    expect(unconfigured.providers()).toEqual({ google: false, oidc: null });
  });

  it('gives a new person a new organisation as its Owner, and the same account on the next sign-in', async () => {
    const person = providerAccount('newcomer');
    const first = await ssoSignIn('OIDC', person.login);
    expect(first.status).toBe(200);
    expect(first.body.challenge).toBe(0);
    const profile = await profileOf(first.body.jwtToken);
    expect(profile.email).toBe(person.email);
    expect(profile.role.id).toBe(ROLE_ID.Owner);
    // The first account of this fresh install, though it came through single sign-on: its operator (modules/admin).
    expect(profile.operator).toBe(true);

    const again = await ssoSignIn('OIDC', person.login);
    const second = await profileOf(again.body.jwtToken);
    expect(second.id).toBe(profile.id);
    expect(second.organization.id).toBe(profile.organization.id);
    expect(await identitiesOf(profile.id)).toEqual([
      { issuer: provider.issuer, subject: person.login, email: person.email },
    ]);
  });

  it('signs an invited address into the inviting organisation with the invited role (Google button)', async () => {
    const owner = await signedInMember(server, 'inviter');
    const person = providerAccount('invitee');
    await server.services.identity.invite(owner.principal, {
      email: person.email,
      firstName: 'Invited',
      lastName: 'Person',
      roleId: ROLE_ID.User,
    });
    const signedIn = await ssoSignIn('Google', person.login);
    const profile = await profileOf(signedIn.body.jwtToken);
    expect(profile.organization.id).toBe(owner.principal.organizationId);
    expect(profile.role.id).toBe(ROLE_ID.User);
    expect(profile.operator).toBe(false);
    const invitation = await server.db.pool.query('select accepted_at from invitations where email = $1', [
      person.email,
    ]);
    expect(invitation.rows[0]?.accepted_at).not.toBeNull();
    // The audit trail says they joined, by their own act.
    const joined = await server.db.pool.query(
      'select entity, type, author_user_id from audits where organization_id = $1 and resource = $2',
      [owner.principal.organizationId, person.email],
    );
    expect(joined.rows).toEqual([{ entity: 'User', type: 'Added', author_user_id: profile.id }]);
  });

  it('links a verified e-mail to the existing account, but never an unverified one', async () => {
    const member = await signedInMember(server, 'existing');
    const unverified = providerAccount('claimer', false, member.email);
    const refused = await ssoSignIn('OIDC', unverified.login);
    expect(refused.error).toBe('SSO_EMAIL_NOT_VERIFIED');
    expect(await identitiesOf(member.principal.userId)).toEqual([]);

    const verified = providerAccount('owner-of-address', true, member.email);
    const signedIn = await ssoSignIn('OIDC', verified.login);
    expect((await profileOf(signedIn.body.jwtToken)).id).toBe(member.principal.userId);
    expect(await identitiesOf(member.principal.userId)).toHaveLength(1);
  });

  it('refuses a forged state, a callback in another browser and a replayed callback', async () => {
    const person = providerAccount('replayer');
    const flow = await startFlow('OIDC');
    const callbackUrl = await signInAtProvider(flow.authorizationUrl, person.login);

    const forged = new URL(callbackUrl);
    forged.searchParams.set('state', 'forged-state-value');
    expect((await callback(forged, 'cumulo_sso_state=forged-state-value')).get('sso_error')).toBe(
      'SSO_FAILED',
    );
    // The link carried to another browser (login CSRF) lacks this browser's state cookie.
    expect((await callback(callbackUrl, undefined)).get('sso_error')).toBe('SSO_FAILED');

    const fragment = await callback(callbackUrl, flow.cookie);
    const code = fragment.get('sso');
    expect(code).toBeTruthy();
    expect((await callback(callbackUrl, flow.cookie)).get('sso_error')).toBe('SSO_FAILED');

    // The code handed to the browser works once.
    const exchange = () =>
      server.app.inject({ method: 'POST', url: '/api/oauth', payload: { service: 'OIDC', token: code } });
    expect((await exchange()).statusCode).toBe(200);
    const reused = await exchange();
    expect(reused.statusCode).toBe(401);
    expect(reused.json()).toMatchObject({ message: messages.ssoFailed });
  });

  it('slows a client address that starts too many sign-ins, and not the others', async () => {
    const start = (remoteAddress: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/oauth/start',
        payload: { service: 'OIDC' },
        remoteAddress,
      });
    for (let i = 0; i < SSO_START_LIMIT.perIp; i += 1) {
      expect((await start('203.0.113.9')).statusCode).toBe(200);
    }
    const refused = await start('203.0.113.9');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toMatchObject({ message: messages.tooManySsoStarts });
    expect((await start('203.0.113.10')).statusCode).toBe(200);
  });

  it('still asks a member with MFA for the authenticator code', async () => {
    const member = await signedInMember(server, 'second-factor');
    const { secret } = await server.services.identity.generateMfa(member.principal);
    await server.services.identity.setMfa(member.principal, true, authenticator.generate(secret));
    const person = providerAccount('mfa', true, member.email);
    const signedIn = await ssoSignIn('OIDC', person.login);
    expect(signedIn.body).toEqual({ challenge: 1, session: expect.any(String) });
    expect(signedIn.body.jwtToken).toBeUndefined();
  });
});

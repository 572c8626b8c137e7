import http from 'node:http';
import Provider from 'oidc-provider';

export const E2E_OIDC_CLIENT = { client_id: 'cumulo-e2e', client_secret: 'cumulo-e2e-secret' };

/**
 * A real OpenID Connect provider (npm oidc-provider, its development login and consent pages) for /oktalogin:
 * whatever login is typed in its form signs in as `<login>@example.com`, a verified address.
 */
export async function startOidcProvider(redirectUri: string) {
  const listener = http.createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  const issuer = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const provider = new Provider(issuer, {
    clients: [
      { ...E2E_OIDC_CLIENT, redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post' },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    cookies: { keys: ['cumulo-e2e'] },
    // Explicit lifetimes, which also keep the provider from printing a notice per artifact kind.
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        email: `${id}@example.com`,
        email_verified: true,
        given_name: id,
        family_name: 'Sso',
      }),
    }),
  });
  listener.on('request', provider.callback());
  return { issuer, close: () => new Promise<void>((resolve) => listener.close(() => resolve())) };
}

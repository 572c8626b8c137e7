import { createHmac, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { Hs256Verifier } from './jwt-hs256.ts';

const key = new Uint8Array(randomBytes(32));
const verifier = new Hs256Verifier(key);
const expected = { issuer: 'cumulo', audience: 'session' };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** A token signed the way http/auth.ts signs one (jose's SignJWT). */
const signed = (claims: Record<string, unknown> = {}, ttl = '60s', audience = 'session') =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('cumulo')
    .setAudience(audience)
    .setSubject('user-1')
    .setIssuedAt()
    .setExpirationTime(ttl)
    .sign(key);

/** A token with any header and payload, HMAC-signed with the right key (what jose would never produce). */
const forged = (header: unknown, payload: unknown, signWith: Uint8Array = key) => {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', signWith).update(input).digest('base64url')}`;
};

const joseAccepts = (token: string) =>
  jwtVerify(token, key, { issuer: 'cumulo', audience: 'session', algorithms: ['HS256'] }).then(
    () => true,
    () => false,
  );

describe('Hs256Verifier', () => {
  it('accepts the tokens jose signs and answers their payload', async () => {
    const token = await signed({ sid: 's-1', org: 'o-1' });
    expect(verifier.verify(token, expected)).toMatchObject({
      sub: 'user-1',
      sid: 's-1',
      org: 'o-1',
      iss: 'cumulo',
      aud: 'session',
    });
    expect(await joseAccepts(token)).toBe(true);
  });

  it('refuses a changed payload, a changed or re-encoded signature, another key, and a token of another purpose', async () => {
    const token = await signed({ sid: 's-1' });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const otherPayload = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'user-2' });
    const flipped = Buffer.from(signature, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    const refused = [
      `${header}.${otherPayload}.${signature}`,
      `${header}.${payload}.${flipped.toString('base64url')}`,
      `${header}.${payload}.${signature}A`,
      `${header}.${payload}.${signature.slice(0, -1)}`,
      forged(JSON.parse(Buffer.from(header, 'base64url').toString()), { sub: 'x' }, randomBytes(32)),
      await signed({ sid: 's-1' }, '60s', 'request'),
    ];
    for (const candidate of refused) {
      expect(verifier.verify(candidate, expected), candidate).toBeNull();
      expect(await joseAccepts(candidate), candidate).toBe(false);
    }
    // Stricter than jose, which decodes a padded signature to the same bytes: one encoding per token.
    expect(verifier.verify(`${header}.${payload}.${signature}=`, expected)).toBeNull();
    expect(await joseAccepts(`${header}.${payload}.${signature}=`)).toBe(true);
  });

  it('refuses any algorithm but HS256, and the JWS extensions Cumulo never uses', async () => {
    const claims = { iss: 'cumulo', aud: 'session', sub: 'user-1', exp: now() + 60 };
    const unsigned = `${b64({ alg: 'none' })}.${b64(claims)}.`;
    const refused = [
      unsigned,
      forged({ alg: 'HS512' }, claims),
      forged({ alg: 'hs256' }, claims),
      forged({ alg: 'RS256' }, claims),
      forged({}, claims),
      forged({ alg: 'HS256', crit: ['exp'] }, claims),
      forged({ alg: 'HS256', b64: false, crit: ['b64'] }, claims),
    ];
    for (const candidate of refused) expect(verifier.verify(candidate, expected), candidate).toBeNull();
    // The same claims under the one accepted header pass: the refusals above are the header's.
    expect(verifier.verify(forged({ alg: 'HS256', typ: 'JWT' }, claims), expected)).toMatchObject(claims);
  });

  it('checks the claims as jose does: issuer, audience, expiry, not-before, issued-at', async () => {
    const base = { iss: 'cumulo', aud: 'session', sub: 'user-1', exp: now() + 60 };
    const cases: Array<[unknown, boolean]> = [
      [base, true],
      [{ ...base, aud: ['other', 'session'] }, true],
      [{ ...base, nbf: now() }, true],
      [{ ...base, iss: 'someone' }, false],
      [{ ...base, iss: undefined }, false],
      [{ ...base, aud: 'request' }, false],
      [{ ...base, aud: ['request'] }, false],
      [{ ...base, exp: now() }, false],
      [{ ...base, exp: now() - 1 }, false],
      [{ ...base, exp: String(now() + 60) }, false],
      [{ ...base, nbf: now() + 30 }, false],
      [{ ...base, nbf: 'soon' }, false],
      [{ ...base, iat: 'today' }, false],
      [[base], false],
      ['cumulo', false],
      [null, false],
    ];
    for (const [payload, accepted] of cases) {
      const token = forged({ alg: 'HS256' }, payload);
      expect(verifier.verify(token, expected) !== null, JSON.stringify(payload)).toBe(accepted);
      expect(await joseAccepts(token), JSON.stringify(payload)).toBe(accepted);
    }
    // Stricter than jose on purpose: every token Cumulo signs expires.
    const { exp: _exp, ...noExpiry } = base;
    expect(verifier.verify(forged({ alg: 'HS256' }, noExpiry), expected)).toBeNull();
  });

  it('refuses what is not a compact JWS without throwing', () => {
    const token = forged({ alg: 'HS256' }, { iss: 'cumulo', aud: 'session', exp: now() + 60 });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const malformed = [
      '',
      '.',
      '..',
      `${header}.${payload}`,
      `${token}.${signature}`,
      `${header}.${payload}.${signature}.`,
      `${header}.${payload}.sig nature`,
      `${header}+.${payload}.${signature}`,
      `${Buffer.from('{not json').toString('base64url')}.${payload}.${signature}`,
      `\u0000.\ud800.${signature}`,
    ];
    for (const candidate of malformed) expect(verifier.verify(candidate, expected), candidate).toBeNull();
  });
});

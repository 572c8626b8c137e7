import { createHash, randomBytes } from 'node:crypto';

/** A URL-safe random token for e-mailed links; only its hash is stored. */
export function newLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * An invitation token in the format of spec 000 §3: base64 of five parts joined by '//' (e-mail, first name, last
 * name, then the inviting organisation's id and a random secret). The secret makes it unguessable; the server
 * keeps only its hash, so a token is checked by lookup, never decoded: the sign-up page pre-fills its form from
 * GET /user/signupinfo, which also tells a canceled, used or expired link at once.
 */
export function newInviteToken(email: string, firstName: string, lastName: string, organizationId: string) {
  // A name holding '//' would add a part; one slash keeps the five parts the web splits on.
  const part = (s: string) => s.replaceAll('//', '/');
  return Buffer.from(
    [part(email), part(firstName), part(lastName), organizationId, newLinkToken()].join('//'),
  ).toString('base64');
}

import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * Checks the HS256 JWTs Cumulo signs itself (jose's SignJWT in http/auth.ts), synchronously.
 *
 * Every signed-in request checks one. jose verifies through WebCrypto, which runs each HMAC as an asynchronous job
 * on libuv's thread pool: about 0.1 ms of work plus a trip through the pool and back into the event loop, which
 * under load is one more queue each request waits in (bench/load, bench/RESULTS.md "load"). node:crypto's HMAC
 * of a few hundred bytes takes microseconds on the calling thread.
 *
 * Strict by design, and no looser than jose's `jwtVerify(token, key, { issuer, audience, algorithms: ['HS256'] })`
 * anywhere: the compact form of exactly three base64url segments; a header that is a JSON object naming `HS256`
 * with no `crit` and no `b64` (extensions Cumulo never uses); the signature compared in constant time and only in
 * its canonical encoding; a payload that is a JSON object whose `iss` and `aud` match, whose `exp` is a number in
 * the future (required: every token Cumulo signs has one), whose `nbf`, if any, is not in the future, and whose
 * `iat`, if any, is a number. The times are whole seconds, as jose compares them, with no tolerance.
 */
export class Hs256Verifier {
  readonly #key: KeyObject;

  constructor(key: Uint8Array) {
    this.#key = createSecretKey(key);
  }

  /** The payload of a valid token, or null (why is never told: a caller answers every refusal alike). */
  verify(
    token: string,
    expected: { issuer: string; audience: string },
    nowMs = Date.now(),
  ): (Record<string, unknown> & { sub?: unknown }) | null {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [header64, payload64, signature64] = parts as [string, string, string];
    if (!BASE64URL.test(header64) || !BASE64URL.test(payload64) || !BASE64URL.test(signature64)) return null;

    const header = jsonObjectOf(header64);
    if (!header || header.alg !== 'HS256' || 'crit' in header || 'b64' in header) return null;

    const signature = Buffer.from(signature64, 'base64url');
    // Only the one encoding of the 32 bytes: no trailing bits or characters that decode to the same signature.
    if (signature.length !== SIGNATURE_BYTES || signature.toString('base64url') !== signature64) return null;
    const expectedSignature = createHmac('sha256', this.#key).update(`${header64}.${payload64}`).digest();
    if (!timingSafeEqual(signature, expectedSignature)) return null;

    const payload = jsonObjectOf(payload64);
    if (!payload) return null;
    if (payload.iss !== expected.issuer) return null;
    const audience = payload.aud;
    if (Array.isArray(audience) ? !audience.includes(expected.audience) : audience !== expected.audience) {
      return null;
    }
    const now = Math.floor(nowMs / 1000);
    if (typeof payload.exp !== 'number' || !Number.isFinite(payload.exp) || payload.exp <= now) return null;
    if (payload.nbf !== undefined && (typeof payload.nbf !== 'number' || payload.nbf > now)) return null;
    if (payload.iat !== undefined && typeof payload.iat !== 'number') return null;
    return payload;
  }
}

const SIGNATURE_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function jsonObjectOf(segment: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

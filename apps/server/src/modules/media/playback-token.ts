import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What an HLS playback token lets its holder read: the playlists under one folder of one bucket of one account,
 * until `expiresAt`. hls.js fetches without the member's Authorization header, so the capability travels in the
 * URL; it is signed, not stored, so no table grows with every Play.
 */
export interface PlaybackGrant {
  organizationId: string;
  cloudAccountId: string;
  bucket: string;
  /** '' for the bucket's top, else a prefix ending with '/'. */
  folder: string;
  expiresAt: Date;
}

/** Why a token does not open: tampered or malformed tokens are `invalid`, good ones past their time `expired`. */
type OpenedToken = { kind: 'valid'; grant: PlaybackGrant } | { kind: 'invalid' } | { kind: 'expired' };

/** The signed payload: short keys keep the URL short (the folder can be 1 KB already). */
interface TokenPayload {
  o: string;
  a: string;
  b: string;
  f: string;
  /** Expiry, seconds since the epoch. */
  e: number;
}

/** Signs and checks playback tokens: `base64url(payload JSON).base64url(HMAC-SHA-256)`. */
export class PlaybackTokens {
  /** `key`: a purpose-bound key derived from the master key (`deriveKey(master, 'media-playback-tokens')`). */
  constructor(private readonly key: Buffer) {}

  sign(grant: PlaybackGrant): string {
    const payload: TokenPayload = {
      o: grant.organizationId,
      a: grant.cloudAccountId,
      b: grant.bucket,
      f: grant.folder,
      e: Math.floor(grant.expiresAt.getTime() / 1000),
    };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.#mac(body).toString('base64url')}`;
  }

  open(token: string, now = new Date()): OpenedToken {
    const dot = token.indexOf('.');
    if (dot < 1) return { kind: 'invalid' };
    const body = token.slice(0, dot);
    const presented = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = this.#mac(body);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      return { kind: 'invalid' };
    }
    const payload = parsePayload(Buffer.from(body, 'base64url').toString('utf8'));
    if (!payload) return { kind: 'invalid' };
    if (payload.e * 1000 <= now.getTime()) return { kind: 'expired' };
    return {
      kind: 'valid',
      grant: {
        organizationId: payload.o,
        cloudAccountId: payload.a,
        bucket: payload.b,
        folder: payload.f,
        expiresAt: new Date(payload.e * 1000),
      },
    };
  }

  #mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}

/** Only our own signature got here, but a payload of another shape (an older format) still must not throw. */
function parsePayload(json: string): TokenPayload | null {
  try {
    const value = JSON.parse(json) as Partial<TokenPayload>;
    const { o, a, b, f, e } = value;
    if (typeof o !== 'string' || typeof a !== 'string' || typeof b !== 'string') return null;
    if (typeof f !== 'string' || typeof e !== 'number') return null;
    return { o, a, b, f, e };
  } catch {
    return null;
  }
}

import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { SHARE_ACCESS_LIMIT, sharingMessages } from '@cumulo/contract';
import { tooManyRequests } from '../../errors.ts';

/**
 * Counts failed tries on the public share calls in PostgreSQL (shared by every web process), like the sign-in
 * limiter: wrong passwords per share and client address, and every failure (unknown link included) per address,
 * so nobody can guess a share's password or sweep for tokens from one place.
 */
export class ShareAccessLimiter {
  readonly #perShareIp: RateLimiterPostgres;
  readonly #perIp: RateLimiterPostgres;

  constructor(
    pool: pg.Pool,
    limits: { perShareIp: number; perIp: number; windowSeconds: number } = SHARE_ACCESS_LIMIT,
  ) {
    const common = { storeClient: pool, storeType: 'pool', tableName: 'sign_in_limits', tableCreated: true };
    this.#perShareIp = new RateLimiterPostgres({
      ...common,
      keyPrefix: 'share',
      points: limits.perShareIp,
      duration: limits.windowSeconds,
    });
    this.#perIp = new RateLimiterPostgres({
      ...common,
      keyPrefix: 'share-ip',
      points: limits.perIp,
      duration: limits.windowSeconds,
    });
  }

  /** Throws 429 when this address has used up its tries, on this share or overall. */
  async check(shareKey: string, ip: string) {
    const [share, addr] = await Promise.all([this.#perShareIp.get(`${shareKey}:${ip}`), this.#perIp.get(ip)]);
    const blocked = [
      { res: share, limit: this.#perShareIp.points },
      { res: addr, limit: this.#perIp.points },
    ].filter((x) => x.res && x.res.consumedPoints >= x.limit);
    if (blocked.length > 0) {
      throw tooManyRequests(
        Math.max(...blocked.map((b) => (b.res?.msBeforeNext ?? 1000) / 1000)),
        sharingMessages.tooManyTries,
      );
    }
  }

  async recordFailure(shareKey: string, ip: string) {
    await Promise.all([this.#perShareIp.penalty(`${shareKey}:${ip}`, 1), this.#perIp.penalty(ip, 1)]).catch(
      (error: unknown) => {
        if (!(error instanceof RateLimiterRes)) throw error;
      },
    );
  }
}

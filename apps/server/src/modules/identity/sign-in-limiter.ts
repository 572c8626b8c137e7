import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { MAIL_LIMIT, SIGN_IN_LIMIT, messages } from '@cumulo/contract';
import { tooManyRequests } from '../../http/errors.ts';

/**
 * Counts failed sign-in steps per user name and per client address in PostgreSQL, so every web process
 * shares the same counters. A blocked key answers 429 before the password is even checked.
 */
export class SignInLimiter {
  readonly #perUser: RateLimiterPostgres;
  readonly #perIp: RateLimiterPostgres;

  constructor(
    pool: pg.Pool,
    limits: { perUser: number; perIp: number; windowSeconds: number } = SIGN_IN_LIMIT,
  ) {
    const common = { storeClient: pool, storeType: 'pool', tableName: 'sign_in_limits', tableCreated: true };
    this.#perUser = new RateLimiterPostgres({
      ...common,
      keyPrefix: 'user',
      points: limits.perUser,
      duration: limits.windowSeconds,
    });
    this.#perIp = new RateLimiterPostgres({
      ...common,
      keyPrefix: 'ip',
      points: limits.perIp,
      duration: limits.windowSeconds,
    });
  }

  /** Throws 429 when either counter is used up. */
  async check(username: string, ip: string) {
    const [user, addr] = await Promise.all([this.#perUser.get(username), this.#perIp.get(ip)]);
    const blocked = [
      { res: user, limit: this.#perUser.points },
      { res: addr, limit: this.#perIp.points },
    ].filter((x) => x.res && x.res.consumedPoints >= x.limit);
    if (blocked.length > 0) {
      throw tooManyRequests(Math.max(...blocked.map((b) => (b.res?.msBeforeNext ?? 1000) / 1000)));
    }
  }

  async recordFailure(username: string, ip: string) {
    await Promise.all([this.#perUser.penalty(username, 1), this.#perIp.penalty(ip, 1)]).catch(
      (error: unknown) => {
        if (!(error instanceof RateLimiterRes)) throw error;
      },
    );
  }

  async recordSuccess(username: string) {
    await this.#perUser.delete(username);
  }
}

/**
 * Bounds the mails an anonymous visitor can trigger, so the public forms cannot flood someone's mailbox.
 * Too many from one client address answers 429; too many to one address is dropped silently, since saying
 * so would reveal that the address has an account.
 */
export class MailLimiter {
  readonly #perAddress: RateLimiterPostgres;
  readonly #perIp: RateLimiterPostgres;

  constructor(
    pool: pg.Pool,
    limits: { perAddress: number; perIp: number; windowSeconds: number } = MAIL_LIMIT,
  ) {
    const common = { storeClient: pool, storeType: 'pool', tableName: 'sign_in_limits', tableCreated: true };
    this.#perAddress = new RateLimiterPostgres({
      ...common,
      keyPrefix: 'mail-to',
      points: limits.perAddress,
      duration: limits.windowSeconds,
    });
    this.#perIp = new RateLimiterPostgres({
      ...common,
      keyPrefix: 'mail-ip',
      points: limits.perIp,
      duration: limits.windowSeconds,
    });
  }

  /** Counts a request from `ip`; throws 429 when that client has asked for too many mails. */
  async countRequest(ip: string) {
    try {
      await this.#perIp.consume(ip, 1);
    } catch (error) {
      if (error instanceof RateLimiterRes)
        throw tooManyRequests(error.msBeforeNext / 1000, messages.tooManyMails);
      throw error;
    }
  }

  /** True while `address` may receive another mail in the window. */
  async mayMail(address: string): Promise<boolean> {
    try {
      await this.#perAddress.consume(address, 1);
      return true;
    } catch (error) {
      if (error instanceof RateLimiterRes) return false;
      throw error;
    }
  }
}

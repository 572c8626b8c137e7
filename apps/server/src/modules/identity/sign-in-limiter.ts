import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { MAIL_LIMIT, SIGN_IN_BACKOFF, messages } from '@cumulo/contract';
import { tooManyRequests } from '../../errors.ts';

type SignInBackoff = {
  [K in keyof typeof SIGN_IN_BACKOFF]: number;
};

/**
 * How long the next try must wait after `failures` failed steps of one key: nothing while the free tries last,
 * then the first delay, doubling with each further failure up to the cap.
 */
export function backoffSeconds(
  failures: number,
  free: number,
  schedule: SignInBackoff = SIGN_IN_BACKOFF,
): number {
  if (failures < free) return 0;
  const doublings = Math.min(failures - free, 30);
  return Math.min(schedule.maxDelaySeconds, schedule.firstDelaySeconds * 2 ** doublings);
}

/** One scope of the back-off (user names or client addresses): a failure counter and the wait it imposes. */
class BackoffScope {
  readonly #failures: RateLimiterPostgres;
  readonly #waits: RateLimiterPostgres;

  constructor(
    pool: pg.Pool,
    prefix: string,
    private readonly free: number,
    private readonly schedule: SignInBackoff,
  ) {
    const common = { storeClient: pool, storeType: 'pool', tableName: 'sign_in_limits', tableCreated: true };
    this.#failures = new RateLimiterPostgres({
      ...common,
      keyPrefix: `${prefix}-failures`,
      points: Number.MAX_SAFE_INTEGER,
      duration: schedule.forgetAfterSeconds,
    });
    this.#waits = new RateLimiterPostgres({ ...common, keyPrefix: `${prefix}-wait`, points: 1, duration: 1 });
  }

  /** Seconds the key must still wait, 0 when it may try. */
  async waitSeconds(key: string): Promise<number> {
    const wait = await this.#waits.get(key);
    return wait && wait.consumedPoints > 1 ? wait.msBeforeNext / 1000 : 0;
  }

  async recordFailure(key: string) {
    const counted = await this.#failures.penalty(key, 1);
    const delay = backoffSeconds(counted.consumedPoints, this.free, this.schedule);
    if (delay > 0) await this.#waits.block(key, delay);
  }

  async forget(key: string) {
    await Promise.all([this.#failures.delete(key), this.#waits.delete(key)]);
  }
}

/**
 * Slows repeated failed sign-in steps per user name and per client address with an exponential back-off kept in
 * PostgreSQL, so every web process shares it. A key that must wait answers 429 with Retry-After before the
 * password is checked; once the wait has passed one more try is allowed. Nothing locks an account: its owner gets
 * in after the wait, or at once through the e-mailed password reset, which clears the account's counters.
 */
export class SignInLimiter {
  readonly #perUser: BackoffScope;
  readonly #perIp: BackoffScope;

  /** `scope` keeps another kind of credential (API keys) apart, so its failures never slow password sign-in. */
  constructor(pool: pg.Pool, schedule: SignInBackoff = SIGN_IN_BACKOFF, scope = '') {
    this.#perUser = new BackoffScope(pool, `${scope}user`, schedule.freePerUser, schedule);
    this.#perIp = new BackoffScope(pool, `${scope}ip`, schedule.freePerIp, schedule);
  }

  /** Throws 429 while the user name or the client address must still wait. */
  async check(username: string, ip: string) {
    const waits = await Promise.all([
      this.#perUser.waitSeconds(userKey(username)),
      this.#perIp.waitSeconds(ip),
    ]);
    const wait = Math.max(...waits);
    if (wait > 0) throw tooManyRequests(wait, messages.signInWait(wait));
  }

  async recordFailure(username: string, ip: string) {
    await Promise.all([this.#perUser.recordFailure(userKey(username)), this.#perIp.recordFailure(ip)]);
  }

  /** A successful sign-in or password reset: the account's own failures are forgotten (its address's are not). */
  async recordSuccess(username: string) {
    await this.#perUser.forget(userKey(username));
  }
}

/** User names are e-mail addresses: one account, one key, however the name was typed. */
const userKey = (username: string) => username.trim().toLowerCase();

/** Counts requests per client address in a window; past the limit a request answers 429 with Retry-After. */
export class AddressLimiter {
  readonly #limiter: RateLimiterPostgres;

  constructor(
    pool: pg.Pool,
    keyPrefix: string,
    limit: { perIp: number; windowSeconds: number },
    private readonly refusal: string,
  ) {
    this.#limiter = new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'sign_in_limits',
      tableCreated: true,
      keyPrefix,
      points: limit.perIp,
      duration: limit.windowSeconds,
    });
  }

  /** Counts a request from `ip`; throws 429 when that client has made too many. */
  async count(ip: string) {
    try {
      await this.#limiter.consume(ip, 1);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw tooManyRequests(error.msBeforeNext / 1000, this.refusal);
      throw error;
    }
  }
}

/**
 * Bounds the mails an anonymous visitor can trigger, so the public forms cannot flood someone's mailbox.
 * Too many from one client address answers 429; too many to one address is dropped silently, since saying
 * so would reveal that the address has an account.
 */
export class MailLimiter {
  readonly #perAddress: RateLimiterPostgres;
  readonly #perIp: AddressLimiter;

  constructor(
    pool: pg.Pool,
    limits: { perAddress: number; perIp: number; windowSeconds: number } = MAIL_LIMIT,
  ) {
    this.#perAddress = new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'sign_in_limits',
      tableCreated: true,
      keyPrefix: 'mail-to',
      points: limits.perAddress,
      duration: limits.windowSeconds,
    });
    this.#perIp = new AddressLimiter(pool, 'mail-ip', limits, messages.tooManyMails);
  }

  /** Counts a request from `ip`; throws 429 when that client has asked for too many mails. */
  async countRequest(ip: string) {
    await this.#perIp.count(ip);
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

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  API_KEY_ACCESS_KEY_PATTERN,
  API_KEY_LAST_USED_RESOLUTION_SECONDS,
  API_KEY_SECRET_PATTERN,
  apiKeyMessages,
  type ApiKeyView,
  type CreatedApiKey,
} from '@cumulo/contract';
import type { ApiKeyAuthenticator, Principal } from '../../authz/principal.ts';
import { notFound } from '../../errors.ts';
import type { SignInLimiter } from '../identity/sign-in-limiter.ts';
import { changesOf, recordAudit } from '../audit/audit.writer.ts';
import type { ApiKeyRow, ApiKeysRepo } from './api-keys.repo.ts';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** 'CK' and 18 base32 characters; 256 is a multiple of 32, so each byte's low 5 bits are uniform. */
const newAccessKey = () => `CK${[...randomBytes(18)].map((byte) => BASE32[byte & 31]).join('')}`;

const viewOf = (row: ApiKeyRow): ApiKeyView => ({
  id: row.id,
  access_key: row.accessKey,
  created_date: row.createdAt.toISOString(),
  last_used: row.lastUsedAt?.toISOString() ?? null,
  active: row.active,
});

/**
 * A member's API keys (spec 002 §7 "API keys") and the check of a presented key. Each member lists, creates,
 * deactivates and deletes only their own keys, so no role rule applies (README "Authorization"); an Owner or Admin
 * cuts off another member's keys by deactivating that member. Managing keys needs a sign-in session
 * (`requireSession` on the routes), so a leaked key cannot mint more keys.
 *
 * The secret has 256 random bits, so it is stored as an HMAC-SHA-256 under a key derived from the master key,
 * not a slow password hash: guessing it is hopeless either way, a slow hash would cost every API call tens of
 * milliseconds of CPU, and the HMAC key means a copy of the table alone cannot even check a guess.
 */
export class ApiKeysService implements ApiKeyAuthenticator {
  constructor(
    private readonly repo: ApiKeysRepo,
    private readonly limiter: SignInLimiter,
    private readonly hmacKey: Buffer,
  ) {}

  #hash(secret: string) {
    return createHmac('sha256', this.hmacKey).update(secret).digest('base64url');
  }

  /** GET /apikey/ListApiKey: the caller's keys, newest first, without secrets. */
  async list(principal: Principal): Promise<ApiKeyView[]> {
    return (await this.repo.list(principal.organizationId, principal.userId)).map(viewOf);
  }

  /** POST /apikey/CreateKey: a new key for the caller; the only answer that holds its secret. */
  async create(principal: Principal): Promise<CreatedApiKey> {
    const secret = randomBytes(32).toString('base64url');
    const row = await this.repo.transaction(async (tx) => {
      const created = await tx.insert({
        organizationId: principal.organizationId,
        userId: principal.userId,
        accessKey: newAccessKey(),
        secretHash: this.#hash(secret),
      });
      // The access key names the key; the secret (nor its hash) never enters the trail.
      await recordAudit(tx.orm, principal, {
        entity: 'API key',
        type: 'Added',
        resource: created.accessKey,
        resourceId: created.id,
        changes: changesOf(null, { access_key: created.accessKey, active: created.active }),
      });
      return created;
    });
    return { ...viewOf(row), secret_key: secret, message: apiKeyMessages.created };
  }

  /** PUT /apikey/UpdateApiKey?id: turns one of the caller's keys off or on; 404 for any other key. */
  async setActive(principal: Principal, id: string, active: boolean) {
    const row = await this.repo.transaction(async (tx) => {
      const before = await tx.lockOwn(principal.organizationId, principal.userId, id);
      const after = before && (await tx.update(principal.organizationId, principal.userId, id, { active }));
      if (!before || !after) return null;
      await recordAudit(tx.orm, principal, {
        entity: 'API key',
        type: 'Modified',
        resource: after.accessKey,
        resourceId: after.id,
        changes: changesOf({ active: before.active }, { active: after.active }),
      });
      return after;
    });
    if (!row) throw notFound();
    return { message: active ? apiKeyMessages.activated : apiKeyMessages.deactivated, key: viewOf(row) };
  }

  /** DELETE /apikey/DeleteApiKey?id: the key stops working with the next call; 404 for any other key. */
  async remove(principal: Principal, id: string) {
    const row = await this.repo.transaction(async (tx) => {
      const gone = await tx.update(principal.organizationId, principal.userId, id, {
        deletedAt: new Date(),
        active: false,
      });
      if (gone) {
        await recordAudit(tx.orm, principal, {
          entity: 'API key',
          type: 'Deleted',
          resource: gone.accessKey,
          resourceId: gone.id,
          changes: changesOf({ access_key: gone.accessKey }, null),
        });
      }
      return gone;
    });
    if (!row) throw notFound();
    return { message: apiKeyMessages.deleted };
  }

  /**
   * The caller behind `accessKey`:`secret`, acting as the key's creator, or null. Failed tries slow further tries
   * of that access key and of that client address like failed sign-ins (429 with Retry-After), in their own
   * counters, so they never slow the creator's password sign-in.
   */
  async authenticate(
    accessKey: string,
    secret: string,
    ip: string,
  ): Promise<Omit<Principal, 'access'> | null> {
    await this.limiter.check(accessKey, ip);
    const key = API_KEY_ACCESS_KEY_PATTERN.test(accessKey) ? await this.repo.live(accessKey) : null;
    const presented = Buffer.from(this.#hash(secret));
    const matches =
      key !== null &&
      API_KEY_SECRET_PATTERN.test(secret) &&
      timingSafeEqual(presented, Buffer.from(key.secretHash));
    if (!key || !matches) {
      await this.limiter.recordFailure(accessKey, ip);
      return null;
    }
    const now = new Date();
    const staleBefore = new Date(now.getTime() - API_KEY_LAST_USED_RESOLUTION_SECONDS * 1000);
    if (!key.lastUsedAt || key.lastUsedAt < staleBefore) {
      // Once a minute, with the stamp: a key used rightly forgets its failed tries.
      await Promise.all([this.repo.touch(key.id, now, staleBefore), this.limiter.recordSuccess(accessKey)]);
    }
    return {
      userId: key.userId,
      organizationId: key.organizationId,
      role: key.role,
      sessionId: '',
      apiKeyId: key.id,
    };
  }
}

import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS, TRIAL_QUOTAS, billingMessages, formatBytes } from '@cumulo/contract';
import { registerErrorHandler } from '../../http/error-handler.ts';
import { putCardOnFile, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';
import { QuotaExceeded } from './entitlements.ts';

const GiB = 1024 ** 3;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

async function counterOf(organizationId: string, quota: string, period: string) {
  const { rows } = await server.db.pool.query<{ used: string; reserved: string }>(
    'select used, reserved from quota_counters where organization_id = $1 and quota = $2 and period = $3',
    [organizationId, quota, period],
  );
  return { used: Number(rows[0]?.used ?? 0), reserved: Number(rows[0]?.reserved ?? 0) };
}

describe('entitlements against embedded PostgreSQL', () => {
  it('lets 20 concurrent reservations of an organisation in trial hold no more than its limit', async () => {
    const { principal } = await signedInMember(server, 'racer');
    const org = principal.organizationId;
    const limit = TRIAL_QUOTAS.c2c;
    // Each asks for 1/7 of the limit: at most 7 fit, whatever order PostgreSQL runs them in.
    const share = Math.floor(limit / 7);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        server.services.entitlements.reserve(org, 'c2c', `transfer:race-${i}`, share),
      ),
    );
    const held = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter(
      (r) => r.status === 'rejected' && r.reason instanceof QuotaExceeded,
    ).length;
    expect(held).toBe(7);
    expect(refused).toBe(13);
    const counter = await counterOf(org, 'c2c', 'trial');
    expect(counter.used + counter.reserved).toBeLessThanOrEqual(limit);
    expect(counter.reserved).toBe(held * share);
    const usage = await server.services.entitlements.remaining(org, 'c2c');
    expect(usage).toEqual({ used: held * share, total: limit, remaining: limit - held * share });
  });

  it('refuses with the transfers or encoding title and what is left, formatted 1024-based', async () => {
    const { principal } = await signedInMember(server, 'refused');
    const org = principal.organizationId;
    await server.services.entitlements.reserve(org, 'encoding', 'encode:a', TRIAL_QUOTAS.encoding - GiB);
    const error = await server.services.entitlements
      .reserve(org, 'encoding', 'encode:b', 2 * GiB)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExceeded);
    const refusal = error as QuotaExceeded;
    expect(refusal.title).toBe('Encoding Quota Limit');
    expect(refusal.remainingBytes).toBe(GiB);
    expect(refusal.message).toBe(billingMessages.quotaRemaining('1 GB'));
    const transfer = (await server.services.entitlements
      .reserve(org, 's3_acceleration', 'upload:x', TRIAL_QUOTAS.s3_acceleration + 1)
      .catch((e: unknown) => e)) as QuotaExceeded;
    expect(transfer).toBeInstanceOf(QuotaExceeded);
    expect(transfer.title).toBe('Transfers Quota Limit');
    expect(transfer.message).toBe(billingMessages.quotaRemaining(formatBytes(TRIAL_QUOTAS.s3_acceleration)));
    // Nothing was held by the refused reservations.
    expect(await counterOf(org, 'encoding', 'trial')).toEqual({
      used: 0,
      reserved: TRIAL_QUOTAS.encoding - GiB,
    });
  });

  it('answers a refusal over HTTP as 403 with message, title, quota and remaining bytes', async () => {
    const { principal } = await signedInMember(server, 'http');
    const app = Fastify();
    registerErrorHandler(app);
    app.post('/work', async () => {
      await server.services.entitlements.reserve(principal.organizationId, 'c2c', 'transfer:big', 11 * GiB);
      return { ok: true };
    });
    const res = await app.inject({ method: 'POST', url: '/work' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      message: billingMessages.quotaRemaining('10 GB'),
      title: 'Transfers Quota Limit',
      quota: 'c2c',
      remaining: 10 * GiB,
    });
    await app.close();
  });

  it('settles a reservation to what the work used, once, and records unreserved usage once', async () => {
    const { principal } = await signedInMember(server, 'settler');
    const org = principal.organizationId;
    const entitlements = server.services.entitlements;
    await entitlements.reserve(org, 'c2c', 'transfer:b1', 3 * GiB);
    await entitlements.reserve(org, 'c2c', 'transfer:b1', GiB);
    expect(await counterOf(org, 'c2c', 'trial')).toEqual({ used: 0, reserved: 4 * GiB });
    await entitlements.settle(org, 'c2c', 'transfer:b1', 2 * GiB);
    await entitlements.settle(org, 'c2c', 'transfer:b1', 2 * GiB);
    expect(await counterOf(org, 'c2c', 'trial')).toEqual({ used: 2 * GiB, reserved: 0 });
    await entitlements.record(org, 's3_native', 'upload:u1', GiB);
    await entitlements.record(org, 's3_native', 'upload:u1', GiB);
    expect(await counterOf(org, 's3_native', 'trial')).toEqual({ used: GiB, reserved: 0 });
    // A settle of work never reserved counts it once too.
    await entitlements.settle(org, 'wasabi', 'transfer:w1', GiB);
    await entitlements.settle(org, 'wasabi', 'transfer:w1', GiB);
    expect(await counterOf(org, 'wasabi', 'trial')).toEqual({ used: GiB, reserved: 0 });
  });

  it('lifts the refusal once a card is on file: the month counts, the total is the plan inclusion', async () => {
    const { principal } = await signedInMember(server, 'carded');
    const org = principal.organizationId;
    const entitlements = server.services.entitlements;
    await expect(entitlements.reserve(org, 'c2c', 'transfer:huge', 600 * GiB)).rejects.toBeInstanceOf(
      QuotaExceeded,
    );
    await putCardOnFile(server, org);
    await entitlements.reserve(org, 'c2c', 'transfer:huge', 600 * GiB);
    const month = new Date().toISOString().slice(0, 7);
    expect(await counterOf(org, 'c2c', month)).toEqual({ used: 0, reserved: 600 * GiB });
    const free = PLANS[0]?.included.c2c;
    expect(await entitlements.remaining(org, 'c2c')).toEqual({ used: 600 * GiB, total: free, remaining: 0 });
    // A quota the free plan names no inclusion for is unlimited once a card is on file.
    expect((await entitlements.remaining(org, 'encoding')).total).toBe(-1);
    expect(await entitlements.may(org, 'analytics')).toBe(false);
  });
});

describe('BILLING_ENTITLE_ALL against embedded PostgreSQL', () => {
  let open: TestServer;
  beforeAll(async () => {
    open = await startTestServer({ BILLING_ENTITLE_ALL: 'true' });
  });
  afterAll(async () => {
    await open?.stop();
  });

  it('holds every package and limits no quota', async () => {
    const { principal } = await signedInMember(open, 'private');
    const org = principal.organizationId;
    expect(await open.services.entitlements.may(org, 'analytics')).toBe(true);
    await open.services.entitlements.reserve(org, 'c2c', 'transfer:any', 100 * TRIAL_QUOTAS.c2c);
    expect((await open.services.entitlements.remaining(org, 'c2c')).total).toBe(-1);
  });
});

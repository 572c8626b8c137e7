import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAIL_LIMIT,
  PLANS,
  ROLE_ID,
  TRIAL_QUOTAS,
  billingMessages,
  messages,
  type NotificationItem,
  type PaymentProfileView,
  type BillingInfoView,
  type SubscriptionView,
  type UserProfile,
} from '@cumulo/contract';
import { linkToken, signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';
import { markInvoicePaid } from './billing.operator.ts';
import { GatewayWebhooks } from './billing-webhooks.service.ts';
import { BadSignature, type GatewayEvent } from './gateway.ts';
import { ManualGateway } from './gateways/manual.gateway.ts';

/** The manual gateway, except that it reads the events it was given, for a signature 'good'. */
class ScriptedGateway extends ManualGateway {
  readonly #events: GatewayEvent[] = [];
  queue(...events: GatewayEvent[]) {
    this.#events.push(...events);
  }
  override readWebhook(_raw: Buffer, signature: string | undefined): GatewayEvent {
    if (signature !== 'good') throw new BadSignature('forged');
    const next = this.#events.shift();
    if (!next) throw new Error('no event queued');
    return next;
  }
}

/**
 * The billing calls through the real web role with the manual gateway (the self-hosted default; no payment
 * company is involved), on embedded PostgreSQL with a real SMTP sink. Every answer and log line of the file is
 * kept, so the last test can search them and the database for the test card numbers.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const VISA = '4242424242424242';
const VISA_DEBIT = '4000056655665556';
const nextYear = new Date().getUTCFullYear() + 1;

let server: TestServer;
const logLines: string[] = [];
const answers: string[] = [];
let owner: Member;
let admin: Member;
let user: Member;
let stranger: Member;

async function call(method: Method, url: string, member: Member | null, body?: unknown) {
  const res = await server.app.inject({
    method,
    url,
    payload: body === undefined ? undefined : (body as object),
    headers: member ? { authorization: `Bearer ${member.token}` } : {},
  });
  answers.push(res.body);
  return { status: res.statusCode, body: res.body ? (res.json() as unknown) : undefined, raw: res.body };
}

const card = (number: string, extra: Record<string, unknown> = {}) => ({
  full_number: number,
  cvv: '123',
  expiration_month: 12,
  expiration_year: nextYear,
  first_name: 'Ada',
  last_name: 'Owner',
  billing_country: 'USA',
  billing_zip: '10001',
  ...extra,
});

const profile = async (member: Member) => (await call('GET', '/api/users/_me', member)).body as UserProfile;

/** The ISO time of the first of month `month` (1-based) of 2026, as the trail shows a period's end. */
const end = (month: number) => new Date(Date.UTC(2026, month - 1, 1)).toISOString();

async function rows(query: string, params: unknown[] = []) {
  return (await server.db.pool.query(query, params)).rows as Array<Record<string, unknown>>;
}

beforeAll(async () => {
  server = await startTestServer({}, logLines);
  owner = await signedInMember(server, 'owner');
  admin = await signedInMember(server, 'admin', { principal: owner.principal, roleId: ROLE_ID.Admin });
  user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
  stranger = await signedInMember(server, 'stranger');
});
afterAll(async () => {
  await server?.stop();
});

describe('billing calls with the manual gateway, on embedded PostgreSQL and an SMTP sink', () => {
  let planId: string;
  let cardId: string;

  it('shows a new organisation in trial with the trial quotas and no card', async () => {
    const me = await profile(owner);
    expect(me).toMatchObject({ in_trial: true, has_billing_info: false, packages: [] });
    expect(me.quota.c2c).toEqual({ used: 0, total: TRIAL_QUOTAS.c2c });
    expect(Object.keys(me.quota).sort()).toEqual(Object.keys(TRIAL_QUOTAS).sort());
    expect((await call('GET', '/api/billing/payment_profiles', owner)).body).toEqual({
      billing_payment_profiles: [],
    });
    const subscribe = await call('POST', '/api/billing/subscriptions/', owner, {
      product_handle: 'analytics',
    });
    expect(subscribe.status).toBe(400);
    expect((subscribe.body as { message: string }).message).toBe(billingMessages.noCardForSubscription);
  });

  it('refuses a bad card in the spec words and keeps nothing', async () => {
    const res = await call('POST', '/api/billing/payment_profiles', owner, {
      credit_card_attributes: card('4242424242424241'),
    });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toBe(billingMessages.cardNumber);
    const expired = await call('POST', '/api/billing/payment_profiles', owner, {
      credit_card_attributes: card(VISA, { expiration_year: 2001 }),
    });
    expect((expired.body as { message: string }).message).toBe(billingMessages.cardExpiry);
    const cvc = await call('POST', '/api/billing/payment_profiles', owner, {
      credit_card_attributes: card(VISA, { cvv: '12' }),
    });
    expect((cvc.body as { message: string }).message).toBe(billingMessages.cardCvc);
    expect(await rows('select id from payment_profiles')).toEqual([]);
  });

  it('adds a card (spaces removed), shows only the mask, and moves the organisation onto the free plan', async () => {
    const res = await call('POST', '/api/billing/payment_profiles', owner, {
      credit_card_attributes: card('4242 4242 4242 4242'),
    });
    expect(res.status).toBe(201);
    const answer = res.body as { message: string; payment_profile: PaymentProfileView };
    expect(answer.message).toBe(billingMessages.cardAdded);
    expect(answer.payment_profile).toMatchObject({
      masked_card_number: 'XXXX-XXXX-XXXX-4242',
      card_type: 'visa',
      expiration_year: nextYear,
      default: true,
    });
    cardId = answer.payment_profile.id;
    const list = (await call('GET', '/api/billing/payment_profiles', owner)).body as {
      billing_payment_profiles: PaymentProfileView[];
    };
    expect(list.billing_payment_profiles.map((p) => p.masked_card_number)).toEqual(['XXXX-XXXX-XXXX-4242']);

    const me = await profile(owner);
    expect(me).toMatchObject({ in_trial: false, has_billing_info: true, package: { has_s3_native: true } });
    expect(me.quota.c2c).toEqual({ used: 0, total: PLANS[0]?.included.c2c });
    expect(me.quota.encoding).toEqual({ used: 0, total: -1 });
    const info = (await call('GET', '/api/billing/billing_info', owner)).body as {
      plan: { handle: string };
      subscription_id: string;
      seats: number;
    };
    expect(info.plan.handle).toBe('free');
    // The Admin and the User are the seats (the first member is not one).
    expect(info.seats).toBe(2);
    planId = info.subscription_id;
    const products = (await call('GET', '/api/billing/products', user)).body as {
      plans: Array<{ title: string; current: boolean }>;
    };
    expect(products.plans.map((p) => [p.title, p.current])).toEqual([
      ['Free', true],
      ['Professional', false],
      ['Enterprise', false],
    ]);
  });

  it('adds first cards at once into one free plan and one default card', async () => {
    // Four different cards: the same number with another expiry is another card.
    const numbers = [VISA, VISA_DEBIT, VISA, VISA_DEBIT];
    const all = await Promise.all(
      numbers.map((number, i) =>
        call('POST', '/api/billing/payment_profiles', stranger, {
          credit_card_attributes: card(number, { expiration_month: 12 - Math.floor(i / 2) }),
        }),
      ),
    );
    expect(all.map((res) => res.status)).toEqual(numbers.map(() => 201));
    const org = stranger.principal.organizationId;
    expect(
      await rows(
        "select count(*)::int as n from subscriptions where organization_id = $1 and kind = 'plan'",
        [org],
      ),
    ).toEqual([{ n: 1 }]);
    expect(
      await rows(
        'select count(*)::int as n from payment_profiles where organization_id = $1 and is_default',
        [org],
      ),
    ).toEqual([{ n: 1 }]);
  });

  it('replaces a card: the new one added and default, the old one gone', async () => {
    const res = await call('PUT', `/api/billing/payment_profiles/${cardId}`, owner, {
      credit_card_attributes: card(VISA_DEBIT),
    });
    expect(res.status).toBe(200);
    const list = (await call('GET', '/api/billing/payment_profiles', owner)).body as {
      billing_payment_profiles: PaymentProfileView[];
    };
    expect(list.billing_payment_profiles.map((p) => [p.masked_card_number, p.default])).toEqual([
      ['XXXX-XXXX-XXXX-5556', true],
    ]);
    cardId = list.billing_payment_profiles[0]?.id ?? '';
  });

  it('refuses the same card twice, even sent twice at once; makes another card the default; keeps the Free plan', async () => {
    const twins = await signedInMember(server, 'twins');
    const cardsOf = async () =>
      (
        (await call('GET', '/api/billing/payment_profiles', twins)).body as {
          billing_payment_profiles: PaymentProfileView[];
        }
      ).billing_payment_profiles;
    const add = (number: string, extra: Record<string, unknown> = {}) =>
      call('POST', '/api/billing/payment_profiles', twins, { credit_card_attributes: card(number, extra) });
    const twice = await Promise.all([add(VISA), add(VISA), add(VISA)]);
    expect(twice.map((res) => res.status).sort()).toEqual([201, 400, 400]);
    for (const refused of twice.filter((res) => res.status === 400))
      expect((refused.body as { message: string }).message).toBe(billingMessages.cardAlreadySaved);
    // Spaces in the number do not make it another card.
    const spaced = await add(VISA.replace(/(\d{4})/g, '$1 ').trim());
    expect([spaced.status, (spaced.body as { message: string }).message]).toEqual([
      400,
      billingMessages.cardAlreadySaved,
    ]);
    expect((await add(VISA_DEBIT)).status).toBe(201);
    const [visa, debit] = await cardsOf();
    expect([visa?.masked_card_number, visa?.default, debit?.masked_card_number, debit?.default]).toEqual([
      'XXXX-XXXX-XXXX-4242',
      true,
      'XXXX-XXXX-XXXX-5556',
      false,
    ]);
    // Replacing a card by itself (new billing details) is no duplicate.
    const same = await call('PUT', `/api/billing/payment_profiles/${visa?.id}`, twins, {
      credit_card_attributes: card(VISA, { billing_zip: '94105' }),
    });
    expect(same.status, same.raw).toBe(200);

    const made = await call('PUT', `/api/billing/payment_profiles/${debit?.id}/default`, twins);
    expect(made.status, made.raw).toBe(200);
    expect(made.body).toMatchObject({
      message: billingMessages.cardMadeDefault('XXXX-XXXX-XXXX-5556'),
      payment_profile: { id: debit?.id, default: true },
    });
    // The default is listed first.
    expect((await cardsOf()).map((c) => [c.masked_card_number, c.default])).toEqual([
      ['XXXX-XXXX-XXXX-5556', true],
      ['XXXX-XXXX-XXXX-4242', false],
    ]);
    expect(
      await rows(
        `select changes from audits where organization_id = $1 and entity = 'Payment card' and type = 'Modified'`,
        [twins.principal.organizationId],
      ),
    ).toHaveLength(1);

    const info = (await call('GET', '/api/billing/billing_info', twins)).body as BillingInfoView;
    const cancel = await call('DELETE', `/api/billing/subscriptions/${info.subscription_id}`, twins);
    expect([cancel.status, (cancel.body as { message: string }).message]).toEqual([
      400,
      billingMessages.freePlanNotCancelable,
    ]);
    const after = (await call('GET', '/api/billing/billing_info', twins)).body as BillingInfoView;
    expect(after.subscriptions.map((row) => [row.product_handle, row.state])).toEqual([['free', 'active']]);
  });

  it('changes plan upward only: a downgrade, a quote plan and the same plan are refused', async () => {
    const same = await call('PUT', `/api/billing/subscriptions/${planId}/product_change/free`, owner);
    expect([same.status, (same.body as { message: string }).message]).toEqual([
      400,
      billingMessages.samePlan,
    ]);
    const quote = await call('PUT', `/api/billing/subscriptions/${planId}/product_change/Enterprise`, owner);
    expect([quote.status, (quote.body as { message: string }).message]).toEqual([
      400,
      billingMessages.quoteNeeded,
    ]);
    const up = await call('PUT', `/api/billing/subscriptions/${planId}/product_change/professional`, owner);
    expect(up.status).toBe(200);
    expect((up.body as { message: string }).message).toBe(billingMessages.subscribedTo('Professional'));
    expect((up.body as { subscription: SubscriptionView }).subscription).toMatchObject({
      product_handle: 'professional',
      price: 99,
      state: 'active',
    });
    const down = await call('PUT', `/api/billing/subscriptions/${planId}/product_change/free`, owner);
    expect([down.status, (down.body as { message: string }).message]).toEqual([
      400,
      billingMessages.downgrade,
    ]);
    expect((await profile(owner)).quota.encoding?.total).toBe(PLANS[1]?.included.encoding);
  });

  it('cancels at period end and reactivates, with every change in the append-only history in order', async () => {
    const cancel = await call('DELETE', `/api/billing/subscriptions/${planId}`, owner);
    expect(cancel.status).toBe(200);
    expect((cancel.body as { subscription: SubscriptionView }).subscription.state).toBe('pending_cancel');
    const again = await call('PUT', `/api/billing/subscriptions/${planId}/reactivate`, owner);
    expect((again.body as { subscription: SubscriptionView }).subscription.state).toBe('active');
    const twice = await call('PUT', `/api/billing/subscriptions/${planId}/reactivate`, owner);
    expect([twice.status, (twice.body as { message: string }).message]).toEqual([
      400,
      billingMessages.notScheduledToEnd,
    ]);
    const events = (await call('GET', `/api/billing/events/subscription/${planId}`, user)).body as {
      events: Array<{ type: string; author: string | null }>;
    };
    expect(events.events.map((e) => e.type)).toEqual([
      'created',
      'plan_changed',
      'cancel_scheduled',
      'reactivated',
    ]);
    expect(events.events[1]?.author).toBe(owner.email);
    await expect(server.db.pool.query("update subscription_events set type = 'forged'")).rejects.toThrow(
      /append-only/,
    );
    await expect(server.db.pool.query('delete from subscription_events')).rejects.toThrow(/append-only/);
  });

  it('validates coupons and subscribes to a package at the discounted price', async () => {
    await server.db.pool.query("insert into coupons (code, percent_off) values ('HALF', 50)");
    expect((await call('GET', '/api/billing/coupons/validate/half', user)).body).toMatchObject({
      valid: true,
      percent_off: 50,
    });
    expect((await call('GET', '/api/billing/coupons/validate/NOPE', user)).body).toMatchObject({
      valid: false,
      message: billingMessages.couponInvalid,
    });
    // Refused for its coupon or its plan, a subscription with a new card leaves the cards as they were.
    const cardsNow = async () =>
      (
        (await call('GET', '/api/billing/payment_profiles', owner)).body as {
          billing_payment_profiles: PaymentProfileView[];
        }
      ).billing_payment_profiles.map((p) => [p.masked_card_number, p.default]);
    const before = await cardsNow();
    const badCoupon = await call('POST', '/api/billing/subscriptions/', owner, {
      product_handle: 'analytics',
      coupon_code: 'NOPE',
      credit_card_attributes: card(VISA),
    });
    expect([badCoupon.status, (badCoupon.body as { message: string }).message]).toEqual([
      400,
      billingMessages.couponInvalid,
    ]);
    const samePlan = await call('POST', '/api/billing/subscriptions/', owner, {
      product_handle: 'professional',
      credit_card_attributes: card(VISA),
    });
    expect([samePlan.status, (samePlan.body as { message: string }).message]).toEqual([
      400,
      billingMessages.samePlan,
    ]);
    expect(await cardsNow()).toEqual(before);

    const res = await call('POST', '/api/billing/subscriptions/', owner, {
      product_handle: 'analytics',
      period: 'annually',
      coupon_code: 'half',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      message: billingMessages.subscribed,
      subscription: { product_handle: 'analytics', period: 'annually', price: 99.5, coupon_code: 'HALF' },
    });
    expect(await server.services.entitlements.may(owner.principal.organizationId, 'analytics')).toBe(true);
    expect((await profile(user)).packages).toEqual([{ title: 'Analytics' }]);
    const packages = (await call('GET', '/api/packages', user)).body as {
      packages: Array<{ handle: string; active: boolean }>;
    };
    expect(packages.packages.filter((p) => p.active).map((p) => p.handle)).toEqual(['analytics']);
    const twice = await call('POST', '/api/billing/subscriptions/', owner, { product_handle: 'analytics' });
    expect((twice.body as { message: string }).message).toBe(billingMessages.alreadyHeld);
  });

  it('refuses every change to a User and an Admin (403), and answers 404 for another organisation', async () => {
    const analytics = (await rows("select id from subscriptions where product_handle = 'analytics'"))[0]?.id;
    const changes: Array<[Method, string, unknown?]> = [
      ['POST', '/api/billing/payment_profiles', { credit_card_attributes: card(VISA) }],
      ['PUT', `/api/billing/payment_profiles/${cardId}`, { credit_card_attributes: card(VISA) }],
      ['POST', `/api/billing/payment_profiles/${cardId}`, { credit_card_attributes: card(VISA) }],
      ['DELETE', `/api/billing/payment_profiles/${cardId}`],
      ['PUT', `/api/billing/payment_profiles/${cardId}/default`],
      ['POST', '/api/billing/subscriptions/', { product_handle: 'finance' }],
      ['DELETE', `/api/billing/subscriptions/${String(analytics)}`],
      ['PUT', `/api/billing/subscriptions/${planId}/product_change/professional`],
      ['PUT', `/api/billing/subscriptions/${planId}/reactivate`],
    ];
    const before = await rows('select count(*)::int as n from subscription_events');
    for (const member of [user, admin]) {
      for (const [method, url, body] of changes) {
        const res = await call(method, url, member, body);
        expect(res.status, `${method} ${url}`).toBe(403);
        expect((res.body as { message: string }).message).toBe(billingMessages.ownerOnly);
      }
    }
    expect(await rows('select count(*)::int as n from subscription_events')).toEqual(before);
    expect(
      await rows(
        'select count(*)::int as n from payment_profiles where removed_at is null and organization_id = $1',
        [owner.principal.organizationId],
      ),
    ).toEqual([{ n: 1 }]);

    for (const [method, url, body] of [
      ['GET', `/api/billing/subscriptions/${planId}`],
      ['GET', `/api/billing/events/subscription/${planId}`],
      ['DELETE', `/api/billing/subscriptions/${planId}`],
      ['PUT', `/api/billing/subscriptions/${planId}/reactivate`],
      ['PUT', `/api/billing/payment_profiles/${cardId}`, { credit_card_attributes: card(VISA) }],
      ['DELETE', `/api/billing/payment_profiles/${cardId}`],
      ['PUT', `/api/billing/payment_profiles/${cardId}/default`],
    ] as Array<[Method, string, unknown?]>) {
      expect((await call(method, url, stranger, body)).status, `${method} ${url}`).toBe(404);
    }
  });

  it("brings a User's request to the Owners' bell and mailbox only", async () => {
    const res = await call('POST', '/api/packages/request_service', user, {
      service_name: 'finance',
      plan: 'monthly',
    });
    expect(res.status).toBe(200);
    expect((res.body as { message: string }).message).toBe(billingMessages.requestSent);
    const bell = async (member: Member) =>
      ((await call('GET', '/api/notifications', member)).body as NotificationItem[]).map((n) => n.title);
    expect(await bell(owner)).toContain('Finance is requested');
    expect(await bell(user)).not.toContain('Finance is requested');
    expect(await bell(admin)).not.toContain('Finance is requested');
    const mail = await server.mail.waitFor(owner.email, 'Finance is requested');
    expect(mail.body).toContain('asks you to activate the Finance package');
    expect(server.mail.received.filter((m) => m.subject === 'Finance is requested').map((m) => m.to)).toEqual(
      [[owner.email]],
    );
    const extension = await call('POST', '/api/quota/request_extension', admin, {
      message: 'More c2c, please',
    });
    expect((extension.body as { message: string }).message).toBe(billingMessages.requestSent);
    await server.mail.waitFor(owner.email, 'A quota extension is requested');
  });

  it('refuses packages to an organisation flagged is_cbs', async () => {
    await server.db.pool.query('update organizations set is_cbs = true where id = $1', [
      stranger.principal.organizationId,
    ]);
    const res = await call('POST', '/api/billing/subscriptions/', stranger, { product_handle: 'ftx' });
    expect([res.status, (res.body as { message: string }).message]).toEqual([
      403,
      billingMessages.cbsNoPurchase,
    ]);
  });

  it('refuses a new desktop customer whose coupon code is not valid, before any account exists', async () => {
    const email = `desktop.coupon.${Date.now()}@example.com`;
    const res = await call('POST', '/api/billing/desktop/subscriptions/new_customer', null, {
      customer_subscription: {
        subscription: {
          product_handle: 'free',
          coupon_code: 'NO-SUCH-CODE',
          customer_attributes: { first_name: 'Desk', last_name: 'Top', email },
          credit_card_attributes: card(VISA),
        },
      },
    });
    expect([res.status, (res.body as { message: string }).message]).toEqual([
      400,
      billingMessages.couponInvalid,
    ]);
    expect(await rows('select count(*)::int as n from users where lower(email) = $1', [email])).toEqual([
      { n: 0 },
    ]);
  });

  it('subscribes a new desktop customer signed out, and tells no one whether an address has an account', async () => {
    const email = `desktop.${Date.now()}@example.com`;
    const body = (address: string) => ({
      customer_subscription: {
        subscription: {
          product_handle: 'free',
          customer_attributes: { first_name: 'Desk', last_name: 'Top', email: address },
          credit_card_attributes: card(VISA),
        },
      },
    });
    const fresh = await call('POST', '/api/billing/desktop/subscriptions/new_customer', null, body(email));
    const known = await call(
      'POST',
      '/api/billing/desktop/subscriptions/new_customer',
      null,
      body(owner.email.toUpperCase()),
    );
    expect([fresh.status, fresh.raw]).toEqual([known.status, known.raw]);
    expect(fresh.body).toEqual({ message: messages.resetEmailSent });
    await server.mail.waitFor(owner.email, 'You already have a Cumulo account');
    expect(await rows('select count(*)::int as n from users where lower(email) = $1', [owner.email])).toEqual(
      [{ n: 1 }],
    );

    const welcome = await server.mail.waitFor(email, 'set your password');
    const token = linkToken(welcome, /\/resetpassword\/([\w-]+)/);
    const reset = await server.app.inject({
      method: 'POST',
      url: '/api/authentication/reset_password',
      payload: {
        password: 'Desk#top77',
        resetToken: token,
        requestToken: await server.services.identity.requestToken(),
      },
    });
    expect(reset.statusCode).toBe(200);
    const login = await server.services.identity.login(email, 'Desk#top77', { ip: '127.0.0.1' });
    expect(login.challenge).toBe(0);
    const [account] = await rows(
      `select r.title as role, s.product_handle, (select count(*)::int from payment_profiles p
         where p.organization_id = u.organization_id) as cards
       from users u join roles r on r.id = u.role_id
       join subscriptions s on s.organization_id = u.organization_id and s.kind = 'plan'
       where u.email = $1`,
      [email],
    );
    expect(account).toEqual({ role: 'Owner', product_handle: 'free', cards: 1 });
  });

  it('limits new customer requests per client address like the other public mail forms', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < MAIL_LIMIT.perIp + 1; i++) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/billing/desktop/subscriptions/new_customer',
        remoteAddress: '10.20.30.40',
        payload: {
          customer_subscription: {
            subscription: {
              product_handle: 'free',
              customer_attributes: { first_name: 'Many', email: owner.email },
              credit_card_attributes: card(VISA),
            },
          },
        },
      });
      answers.push(res.body);
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('serves every billing call in the OpenAPI document', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const billing = Object.entries(doc.paths)
      .filter(([path]) => /^\/api\/(billing|packages|quota)(\/|$)/.test(path))
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(billing).toEqual(
      [
        'GET /api/billing/products',
        'GET /api/packages',
        'POST /api/billing/subscriptions/',
        'POST /api/billing/desktop/subscriptions/new_customer',
        'GET /api/billing/subscriptions/{id}',
        'DELETE /api/billing/subscriptions/{id}',
        'PUT /api/billing/subscriptions/{id}/product_change/{productId}',
        'PUT /api/billing/subscriptions/{id}/reactivate',
        'GET /api/billing/events/subscription/{id}',
        'GET /api/billing/billing_info',
        'GET /api/billing/payment_profiles',
        'POST /api/billing/payment_profiles',
        'PUT /api/billing/payment_profiles/{id}',
        'POST /api/billing/payment_profiles/{id}',
        'DELETE /api/billing/payment_profiles/{id}',
        'PUT /api/billing/payment_profiles/{id}/default',
        'GET /api/billing/coupons/validate/{code}',
        'POST /api/packages/request_quote',
        'POST /api/packages/request_service',
        'POST /api/quota/request_extension',
        'POST /api/billing/webhooks/stripe',
      ].sort(),
    );
  });

  it('rolls ended periods once: a scheduled cancel ends, a plan renews with an open invoice the operator marks paid', async () => {
    const org = owner.principal.organizationId;
    const GiB = 1024 ** 3;
    // The professional plan's month moved 600 GB beyond its 2 TB inclusion.
    const start = new Date(Date.UTC(2026, 0, 1));
    const end = new Date(Date.UTC(2026, 1, 1));
    await server.db.pool.query(
      `update subscriptions set current_period_start = $2, current_period_end = $3 where organization_id = $1`,
      [org, start, end],
    );
    await server.db.pool.query(
      "insert into quota_counters (organization_id, quota, period, used) values ($1, 'c2c', '2026-01', $2)",
      [org, 2048 * GiB + 600 * GiB],
    );
    const analytics = (await rows("select id from subscriptions where product_handle = 'analytics'"))[0]?.id;
    await call('DELETE', `/api/billing/subscriptions/${String(analytics)}`, owner);

    const now = new Date(Date.UTC(2026, 1, 2));
    expect(await server.services.billingRoll.rollDue(now)).toBe(2);
    expect(await server.services.billingRoll.rollDue(now)).toBe(0);
    const invoices = await rows(
      'select number, state, amount_cents, lines from invoices where organization_id = $1',
      [org],
    );
    expect(invoices).toEqual([
      {
        number: expect.any(String),
        state: 'open',
        amount_cents: String(9900 + 3000 + 1600),
        lines: [
          { description: 'Professional (monthly)', amount_cents: 9900 },
          {
            description: "Cloud-to-cloud transfer beyond the Professional plan's inclusion: 600 GB",
            amount_cents: 3000,
            quantity: 600,
          },
          // The Admin and the User: the members beyond the first are billed as seats.
          {
            description: 'Members beyond the first: 2 × $8/month (monthly)',
            amount_cents: 1600,
            quantity: 2,
          },
        ],
      },
    ]);
    const states = await rows(
      'select product_handle, state, current_period_end from subscriptions where organization_id = $1 order by product_handle',
      [org],
    );
    expect(states).toEqual([
      { product_handle: 'analytics', state: 'canceled', current_period_end: end },
      { product_handle: 'professional', state: 'active', current_period_end: new Date(Date.UTC(2026, 2, 1)) },
    ]);
    const paid = await markInvoicePaid(server.services.billingRepo, Number(invoices[0]?.number), 'wire 42');
    expect(paid?.state).toBe('paid');
    expect(
      await markInvoicePaid(server.services.billingRepo, Number(invoices[0]?.number), null),
    ).toBeUndefined();
    const events = (await call('GET', `/api/billing/events/subscription/${planId}`, owner)).body as {
      events: Array<{ type: string; author: string | null }>;
    };
    expect(events.events.slice(-2).map((e) => [e.type, e.author])).toEqual([
      ['renewed', 'system'],
      ['payment_succeeded', 'operator'],
    ]);
  });

  it('refuses a webhook with a bad signature and changes nothing', async () => {
    const before = await rows('select id, state, current_period_end from subscriptions order by id');
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/billing/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=forged' },
      payload: JSON.stringify({ id: 'evt_1', type: 'customer.subscription.deleted' }),
    });
    answers.push(res.body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: billingMessages.badSignature });
    expect(await rows('select id from gateway_events')).toEqual([]);
    expect(await rows('select id, state, current_period_end from subscriptions order by id')).toEqual(before);
  });

  it('applies verified gateway events once each, with their history', async () => {
    // A stand-in for a payment company's verified events (the Stripe adapter's own tests read real signed ones).
    const scripted = new ScriptedGateway();
    const webhooks = new GatewayWebhooks(server.services.billingRepo, scripted);
    const [sub] = await rows(
      "select id, gateway_ref from subscriptions where product_handle = 'professional'",
    );
    const ref = String(sub?.gateway_ref);
    const failed = {
      id: 'evt_failed',
      type: 'invoice.payment_failed' as const,
      invoiceRef: 'in_1',
      subscriptionRef: ref,
      amountCents: 9900,
    };
    scripted.queue(failed, failed, {
      id: 'evt_paid',
      type: 'invoice.paid',
      invoiceRef: 'in_1',
      subscriptionRef: ref,
      amountCents: 9900,
      periodStart: new Date(Date.UTC(2026, 1, 1)),
      periodEnd: new Date(Date.UTC(2026, 2, 1)),
    });
    await expect(webhooks.apply(Buffer.from('{}'), 'forged')).rejects.toMatchObject({
      statusCode: 400,
    });
    await webhooks.apply(Buffer.from('{}'), 'good');
    expect((await rows('select state from subscriptions where id = $1', [sub?.id]))[0]?.state).toBe(
      'past_due',
    );
    await webhooks.apply(Buffer.from('{}'), 'good');
    await webhooks.apply(Buffer.from('{}'), 'good');
    expect((await rows('select state from subscriptions where id = $1', [sub?.id]))[0]?.state).toBe('active');
    expect(await rows("select state, amount_cents from invoices where gateway_ref = 'in_1'")).toEqual([
      { state: 'paid', amount_cents: '9900' },
    ]);
    const events = (await call('GET', `/api/billing/events/subscription/${String(sub?.id)}`, owner)).body as {
      events: Array<{ type: string; author: string | null }>;
    };
    expect(events.events.slice(-2).map((e) => [e.type, e.author])).toEqual([
      ['payment_failed', 'gateway'],
      ['payment_succeeded', 'gateway'],
    ]);
  });

  it('writes every card and subscription change to the audit trail: members as authors, the roll and webhooks as Cumulo', async () => {
    const trail = (await rows(
      `select entity, type, resource, author_user_id, author_name, changes from audits
       where organization_id = $1 and entity in ('Payment card', 'Subscription') order by id`,
      [owner.principal.organizationId],
    )) as Array<{
      entity: string;
      type: string;
      resource: string;
      author_user_id: string | null;
      author_name: string;
      changes: Array<{ property: string; initial: string | null; value: string | null }>;
    }>;
    const byOwner = { author_user_id: owner.principal.userId, author_name: 'owner Test' };
    const byCumulo = { author_user_id: null, author_name: 'Cumulo' };
    const change = (property: string, initial: string | null, value: string | null) =>
      expect.arrayContaining([{ property, initial, value }]);
    expect(trail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ...byOwner,
          entity: 'Payment card',
          type: 'Added',
          resource: 'Visa •••• 4242',
          changes: change('default', null, 'true'),
        }),
        expect.objectContaining({ ...byOwner, entity: 'Subscription', type: 'Added', resource: 'Free' }),
        expect.objectContaining({
          ...byOwner,
          entity: 'Payment card',
          type: 'Added',
          resource: 'Visa •••• 5556',
        }),
        expect.objectContaining({
          ...byOwner,
          entity: 'Payment card',
          type: 'Deleted',
          resource: 'Visa •••• 4242',
        }),
        expect.objectContaining({
          ...byOwner,
          entity: 'Subscription',
          type: 'Modified',
          resource: 'Professional',
          changes: change('product', 'Free', 'Professional'),
        }),
        expect.objectContaining({ ...byOwner, changes: change('state', 'active', 'pending_cancel') }),
        expect.objectContaining({ ...byOwner, changes: change('state', 'pending_cancel', 'active') }),
        // The daily roll ended the scheduled cancel and renewed the plan; a webhook marked it past due.
        expect.objectContaining({ ...byCumulo, changes: change('state', 'pending_cancel', 'canceled') }),
        expect.objectContaining({
          ...byCumulo,
          resource: 'Professional',
          changes: change('period_ends_at', end(2), end(3)),
        }),
        expect.objectContaining({ ...byCumulo, changes: change('state', 'active', 'past_due') }),
        expect.objectContaining({ ...byCumulo, changes: change('state', 'past_due', 'active') }),
      ]),
    );
    // Only what a card's owner sees on /billing: never its number or CVC.
    const properties = new Set(trail.flatMap((entry) => entry.changes.map((c) => c.property)));
    expect([...properties].sort()).toEqual([
      'card',
      'coupon',
      'default',
      'expiration',
      'holder',
      'period',
      'period_ends_at',
      'price',
      'product',
      'state',
    ]);
  });

  it('keeps the test card numbers out of the database, the logs and every answer', async () => {
    const tables = [
      'payment_profiles',
      'billing_customers',
      'subscriptions',
      'subscription_events',
      'coupons',
      'invoices',
      'billing_requests',
      'gateway_events',
      'quota_counters',
      'quota_reservations',
      'users',
      'organizations',
      'notifications',
      'audits',
    ];
    const dump: string[] = [];
    for (const table of tables) {
      const { rows: all } = await server.db.pool.query(`select t::text as line from ${table} t`);
      dump.push(...all.map((r: { line: string }) => r.line));
    }
    expect(dump.length).toBeGreaterThan(10);
    expect(logLines.length).toBeGreaterThan(10);
    expect(answers.length).toBeGreaterThan(40);
    const everything = [...dump, ...logLines, ...answers].join('\n');
    for (const number of [VISA, VISA_DEBIT]) {
      const spaced = number.replace(/(\d{4})(?=\d)/g, '$1 ');
      expect(everything.split(number).length - 1, number).toBe(0);
      expect(everything.split(spaced).length - 1, spaced).toBe(0);
    }
  });
});

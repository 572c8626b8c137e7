import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingMessages, type PaymentProfileView, type SubscriptionView } from '@cumulo/contract';
import { signedInMember, startTestServer, type TestServer } from '../../../../test/harness.ts';
import {
  STRIPE_TEST_CARD_DECLINED,
  startOfflineStripe,
  type OfflineStripe,
} from './testing/offline-stripe.ts';

/**
 * The billing calls through the real web role with BILLING_GATEWAY=stripe, on embedded PostgreSQL, against the
 * offline Stripe of `testing/offline-stripe.ts`: stripe-stateful-mock for customers and products, Stripe JSON
 * fixtures for payment methods and subscriptions (calls the mock lacks). Webhooks are signed with the SDK's test
 * header. Every answer and log line is kept, so the last test can search them and the database for the card numbers.
 */
type Member = Awaited<ReturnType<typeof signedInMember>>;

const SECRET_KEY = 'sk_test_cumulo_billing';
const WEBHOOK_SECRET = 'whsec_cumulo_billing_test';
const VISA = '4242424242424242';
const nextYear = new Date().getUTCFullYear() + 1;

let offline: OfflineStripe;
let server: TestServer;
let owner: Member;
const logLines: string[] = [];
const answers: string[] = [];

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: object) {
  const res = await server.app.inject({
    method,
    url,
    payload: body,
    headers: { authorization: `Bearer ${owner.token}` },
  });
  answers.push(res.body);
  return { status: res.statusCode, body: res.body ? (res.json() as unknown) : undefined };
}

const card = (number: string) => ({
  credit_card_attributes: {
    full_number: number,
    cvv: '123',
    expiration_month: 12,
    expiration_year: nextYear,
    first_name: 'Ada',
    last_name: 'Owner',
    billing_country: 'USA',
    billing_zip: '10001',
  },
});

async function postWebhook(payload: string, signature: string) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/billing/webhooks/stripe',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    payload,
  });
  answers.push(res.body);
  return res;
}

/** A Stripe invoice event for the subscription, from the fixture invoice. */
function invoiceEvent(id: string, type: 'invoice.paid' | 'invoice.payment_failed', subscriptionRef: string) {
  const invoice = JSON.parse(
    readFileSync(new URL('./testing/stripe-fixtures/invoice.json', import.meta.url), 'utf8'),
  ) as Stripe.Invoice;
  const object = {
    ...invoice,
    id: `in_${id}`,
    amount_due: 9900,
    amount_paid: type === 'invoice.paid' ? 9900 : 0,
    parent: { ...invoice.parent, subscription_details: { metadata: {}, subscription: subscriptionRef } },
  };
  return JSON.stringify({
    id,
    object: 'event',
    type,
    created: Math.floor(Date.now() / 1000),
    data: { object },
  });
}

const sign = (payload: string, secret = WEBHOOK_SECRET) =>
  Stripe.webhooks.generateTestHeaderString({ payload, secret });

async function subscriptionRow(id: string) {
  const { rows } = await server.db.pool.query<{ state: string; gateway_ref: string | null }>(
    'select state, gateway_ref from subscriptions where id = $1',
    [id],
  );
  return rows[0];
}

beforeAll(async () => {
  offline = await startOfflineStripe();
  server = await startTestServer(
    {
      BILLING_GATEWAY: 'stripe',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: offline.apiBase.toString(),
    },
    logLines,
  );
  owner = await signedInMember(server, 'owner');
});
afterAll(async () => {
  await server?.stop();
  await offline?.stop();
});

describe('billing with BILLING_GATEWAY=stripe against stripe-stateful-mock and Stripe JSON fixtures, on embedded PostgreSQL', () => {
  let planId: string;
  let subscriptionRef: string;

  it("refuses a card Stripe declines in Stripe's words and keeps nothing", async () => {
    const res = await call('POST', '/api/billing/payment_profiles', card(STRIPE_TEST_CARD_DECLINED));
    expect([res.status, (res.body as { message: string }).message]).toEqual([400, 'Your card was declined.']);
    expect((await server.db.pool.query('select id from payment_profiles')).rows).toEqual([]);
  });

  it('adds a card: a Stripe customer for the organisation, the card attached and its default', async () => {
    const res = await call('POST', '/api/billing/payment_profiles', card(VISA));
    expect(res.status).toBe(201);
    const profile = (res.body as { payment_profile: PaymentProfileView }).payment_profile;
    expect(profile).toMatchObject({
      masked_card_number: 'XXXX-XXXX-XXXX-4242',
      card_type: 'visa',
      default: true,
    });
    const attached = [...offline.state.paymentMethods.values()].filter((pm) => pm.customer !== null);
    expect(attached).toHaveLength(1);
    const customerRef = String(attached[0]?.customer);
    const client = new Stripe(SECRET_KEY, {
      host: '127.0.0.1',
      port: offline.apiBase.port,
      protocol: 'http',
    });
    const customer = await client.customers.retrieve(customerRef);
    if (customer.deleted) throw new Error('customer deleted');
    expect(customer.metadata.organization_id).toBe(owner.principal.organizationId);
    expect(customer.invoice_settings.default_payment_method).toBe(attached[0]?.id);
    const info = (await call('GET', '/api/billing/billing_info')).body as { subscription_id: string };
    planId = info.subscription_id;
  });

  it("keeps Stripe's default card in step: made default by hand, and the next one when the default is removed", async () => {
    const client = new Stripe(SECRET_KEY, {
      host: '127.0.0.1',
      port: offline.apiBase.port,
      protocol: 'http',
    });
    const added = await call('POST', '/api/billing/payment_profiles', card('5555555555554444'));
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const second = (added.body as { payment_profile: PaymentProfileView }).payment_profile;
    const pmOf = (last4: string) =>
      [...offline.state.paymentMethods.values()].find(
        (pm) => pm.customer !== null && pm.card?.last4 === last4,
      )?.id;
    const customerRef = String(
      [...offline.state.paymentMethods.values()].find((pm) => pm.customer !== null)?.customer,
    );
    const stripeDefault = async () => {
      const customer = await client.customers.retrieve(customerRef);
      if (customer.deleted) throw new Error('customer deleted');
      return customer.invoice_settings.default_payment_method;
    };
    expect(await stripeDefault()).toBe(pmOf('4242'));

    expect((await call('PUT', `/api/billing/payment_profiles/${second.id}/default`)).status).toBe(200);
    expect(await stripeDefault()).toBe(pmOf('4444'));

    // Removing the default card leaves Stripe charging the one the page now shows as the default.
    const first = (
      (await call('GET', '/api/billing/payment_profiles')).body as {
        billing_payment_profiles: PaymentProfileView[];
      }
    ).billing_payment_profiles.find((p) => p.masked_card_number.endsWith('4242'));
    expect((await call('PUT', `/api/billing/payment_profiles/${first?.id}/default`)).status).toBe(200);
    expect(await stripeDefault()).toBe(pmOf('4242'));
    expect((await call('DELETE', `/api/billing/payment_profiles/${first?.id}`)).status).toBe(200);
    const left = (
      (await call('GET', '/api/billing/payment_profiles')).body as {
        billing_payment_profiles: PaymentProfileView[];
      }
    ).billing_payment_profiles;
    expect(left.map((p) => [p.masked_card_number, p.default])).toEqual([['XXXX-XXXX-XXXX-4444', true]]);
    expect(await stripeDefault()).toBe(pmOf('4444'));
  });

  it('upgrades to Professional: a Stripe subscription on the cumulo_professional product at its price', async () => {
    const up = await call('PUT', `/api/billing/subscriptions/${planId}/product_change/professional`);
    expect(up.status).toBe(200);
    expect((up.body as { subscription: SubscriptionView }).subscription).toMatchObject({ state: 'active' });
    subscriptionRef = String((await subscriptionRow(planId))?.gateway_ref);
    const inStripe = offline.state.subscriptions.get(subscriptionRef);
    expect(inStripe?.items.data[0]?.price).toMatchObject({
      product: 'cumulo_professional',
      unit_amount: 9900,
    });
  });

  it('cancels and reactivates through cancel_at_period_end', async () => {
    const cancel = await call('DELETE', `/api/billing/subscriptions/${planId}`);
    expect((cancel.body as { subscription: SubscriptionView }).subscription.state).toBe('pending_cancel');
    expect(offline.state.subscriptions.get(subscriptionRef)?.cancel_at_period_end).toBe(true);
    const again = await call('PUT', `/api/billing/subscriptions/${planId}/reactivate`);
    expect((again.body as { subscription: SubscriptionView }).subscription.state).toBe('active');
    expect(offline.state.subscriptions.get(subscriptionRef)?.cancel_at_period_end).toBe(false);
  });

  it('refuses a tampered or wrongly signed webhook with 400 and changes nothing', async () => {
    const payload = invoiceEvent('evt_forged', 'invoice.payment_failed', subscriptionRef);
    const tampered = await postWebhook(payload.replace('"amount_due":9900', '"amount_due":1'), sign(payload));
    expect([tampered.statusCode, tampered.json()]).toMatchObject([
      400,
      { message: billingMessages.badSignature },
    ]);
    const wrongSecret = await postWebhook(payload, sign(payload, 'whsec_someone_else'));
    expect(wrongSecret.statusCode).toBe(400);
    expect((await server.db.pool.query('select id from gateway_events')).rows).toEqual([]);
    expect((await subscriptionRow(planId))?.state).toBe('active');
  });

  it("applies Stripe's signed invoice events: a failed payment makes it past due, a paid invoice active", async () => {
    const failed = await postWebhook(
      invoiceEvent('evt_failed', 'invoice.payment_failed', subscriptionRef),
      sign(invoiceEvent('evt_failed', 'invoice.payment_failed', subscriptionRef)),
    );
    expect(failed.statusCode).toBeLessThan(300);
    expect((await subscriptionRow(planId))?.state).toBe('past_due');
    const paid = invoiceEvent('evt_paid', 'invoice.paid', subscriptionRef);
    expect((await postWebhook(paid, sign(paid))).statusCode).toBeLessThan(300);
    expect((await subscriptionRow(planId))?.state).toBe('active');
    const { rows } = await server.db.pool.query<{ id: string }>('select id from gateway_events order by id');
    expect(rows.map((r) => r.id)).toEqual(['evt_failed', 'evt_paid']);
  });

  it('keeps the test card numbers out of the database, the logs and every answer', async () => {
    const tables = [
      'payment_profiles',
      'billing_customers',
      'subscriptions',
      'subscription_events',
      'invoices',
      'gateway_events',
    ];
    const dump: string[] = [];
    for (const table of tables) {
      const { rows } = await server.db.pool.query<{ line: string }>(`select t::text as line from ${table} t`);
      dump.push(...rows.map((r) => r.line));
    }
    expect(dump.length).toBeGreaterThan(5);
    expect(answers.length).toBeGreaterThan(8);
    expect(logLines.length).toBeGreaterThan(5);
    const everything = [...dump, ...logLines, ...answers].join('\n');
    for (const number of [VISA, STRIPE_TEST_CARD_DECLINED]) expect(everything).not.toContain(number);
  });
});

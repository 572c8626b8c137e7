import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.ts';
import { BadSignature, CardDeclined } from '../gateway.ts';
import { buildGateway } from './build-gateway.ts';
import { buildUsageGateway } from './usage-gateway.ts';
import { ManualGateway } from './manual.gateway.ts';
import { buildCard, paymentGatewayContract, type GatewayFixture } from './gateway-contract.ts';
import {
  STRIPE_TEST_CARD_DECLINED,
  startOfflineStripe,
  type OfflineStripe,
} from './testing/offline-stripe.ts';
import { StripeGateway, subscriptionState } from './stripe.gateway.ts';

// The mock checks only that a key is a test key; the webhook secret is ours to sign test events with.
const SECRET_KEY = 'sk_test_cumulo_offline';
const WEBHOOK_SECRET = 'whsec_cumulo_offline_test';

/** A Stripe client of our own against the same offline Stripe, to read back what the adapter left there. */
function inspector(offline: OfflineStripe): NonNullable<GatewayFixture['inspect']> {
  const client = new Stripe(SECRET_KEY, {
    host: offline.apiBase.hostname,
    port: offline.apiBase.port,
    protocol: 'http',
    telemetry: false,
  });
  return {
    async defaultCard(customerRef) {
      const customer = await client.customers.retrieve(customerRef);
      if (customer.deleted) return null;
      const card = customer.invoice_settings.default_payment_method;
      return typeof card === 'string' || card === null ? card : card.id;
    },
    async cards(customerRef) {
      return [...offline.state.paymentMethods.values()]
        .filter((pm) => pm.customer === customerRef)
        .map((pm) => pm.id);
    },
    async usageCharges(customerRef) {
      return [...offline.state.invoiceItems.values()]
        .filter((item) => item.customer === customerRef)
        .map((item) => ({ description: item.description ?? '', amountCents: item.amount }));
    },
  };
}

let lastOffline: OfflineStripe | undefined;
async function offlineStripeFixture(): Promise<GatewayFixture> {
  const offline = await startOfflineStripe();
  lastOffline = offline;
  return {
    gateway: new StripeGateway({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      apiBase: offline.apiBase,
    }),
    inspect: inspector(offline),
    cleanup: offline.stop,
  };
}

paymentGatewayContract(
  'Stripe adapter against stripe-stateful-mock (customers, default card, products) and Stripe JSON fixtures (payment methods, coupons, subscriptions, invoice items: calls the mock does not implement)',
  offlineStripeFixture,
  { refusedCards: { "Stripe's declined test number": STRIPE_TEST_CARD_DECLINED } },
);

describe('Stripe adapter: which calls the mock served and which the fixtures answered', () => {
  it('sent customers and products to stripe-stateful-mock and only its missing calls to the fixtures', () => {
    // Runs after the contract above in this file: it reads what that run sent where.
    const calls = new Set(lastOffline?.servedBy);
    expect(calls).toContain('POST /v1/customers mock');
    expect(calls).toContain('POST /v1/customers/:id mock');
    expect(calls).toContain('GET /v1/products/:id mock');
    expect(calls).toContain('POST /v1/products mock');
    for (const call of calls) {
      if (call.endsWith(' fixtures'))
        expect(call).toMatch(/ \/v1\/(payment_methods|coupons|subscriptions|invoiceitems)/);
    }
  });
});

describe('Stripe adapter against stripe-stateful-mock and Stripe JSON fixtures: details billing shows', () => {
  let offline: OfflineStripe;
  let gateway: StripeGateway;
  beforeAll(async () => {
    offline = await startOfflineStripe();
    gateway = new StripeGateway({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      apiBase: offline.apiBase,
    });
  });
  afterAll(async () => {
    await offline.stop();
  });

  it("shows Stripe's own words for a declined and an expired card", async () => {
    const customerRef = await gateway.createCustomer({
      organizationId: 'org-1',
      name: 'Acme',
      email: 'owner@acme.test',
    });
    await expect(
      gateway.addCard(customerRef, buildCard({ number: STRIPE_TEST_CARD_DECLINED }), true),
    ).rejects.toThrow(new CardDeclined('Your card was declined.'));
    await expect(gateway.addCard(customerRef, buildCard({ expYear: 2001 }), true)).rejects.toThrow(
      new CardDeclined("Your card's expiration year is invalid."),
    );
  });

  it('is what BILLING_GATEWAY=stripe builds, on the STRIPE_* settings', async () => {
    const built = buildGateway(
      loadConfig({
        BILLING_GATEWAY: 'stripe',
        STRIPE_SECRET_KEY: SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_URL: offline.apiBase.toString(),
      }),
    );
    expect(built).toBeInstanceOf(StripeGateway);
    const before = offline.servedBy.length;
    await built.createCustomer({ organizationId: 'org-5', name: 'Acme', email: 'owner@acme.test' });
    expect(offline.servedBy.slice(before)).toEqual(['POST /v1/customers mock']);
    const payload = JSON.stringify({
      id: 'evt_1',
      object: 'event',
      type: 'customer.created',
      data: { object: {} },
    });
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    expect(built.readWebhook(Buffer.from(payload), header)).toMatchObject({ type: 'ignored' });
  });

  it("is what the worker's monthly roll charges usage through (buildUsageGateway), Stripe loaded at the first charge", async () => {
    const usage = buildUsageGateway(
      loadConfig({
        BILLING_GATEWAY: 'stripe',
        STRIPE_SECRET_KEY: SECRET_KEY,
        STRIPE_API_URL: offline.apiBase.toString(),
      }),
    );
    expect(usage.name).toBe('stripe');
    const customerRef = await gateway.createCustomer({
      organizationId: 'org-6',
      name: 'Acme',
      email: 'owner@acme.test',
    });
    const charge = { description: 'Cloud-to-cloud usage', amountCents: 250, idempotencyKey: 'roll-org-6' };
    await usage.addUsageCharge(customerRef, charge);
    await usage.addUsageCharge(customerRef, charge);
    expect(
      [...offline.state.invoiceItems.values()]
        .filter((item) => item.customer === customerRef)
        .map((item) => ({ description: item.description, amountCents: item.amount })),
    ).toEqual([{ description: charge.description, amountCents: 250 }]);
    expect(buildUsageGateway(loadConfig({ BILLING_GATEWAY: 'manual' }))).toBeInstanceOf(ManualGateway);
  });

  it("sends the spec's billing country USA as Stripe's two-letter US", async () => {
    const customerRef = await gateway.createCustomer({
      organizationId: 'org-3',
      name: 'Acme',
      email: 'owner@acme.test',
    });
    const card = buildCard();
    const stored = await gateway.addCard(
      customerRef,
      { ...card, address: { ...card.address, country: 'USA' } },
      true,
    );
    expect(offline.state.paymentMethods.get(stored.ref)?.billing_details.address).toMatchObject({
      country: 'US',
      postal_code: '62701',
    });
  });

  it('keeps the running period through a cancel and a reactivation (only cancel_at_period_end changes)', async () => {
    const customerRef = await gateway.createCustomer({
      organizationId: 'org-4',
      name: 'Acme',
      email: 'owner@acme.test',
    });
    await gateway.addCard(customerRef, buildCard(), true);
    const price = {
      productHandle: 'hybrik',
      title: 'Hybrik',
      period: 'annually' as const,
      amountCents: 19900,
    };
    const year = await gateway.createSubscription(customerRef, price, {});
    const ref = year.ref ?? '';
    expect(await gateway.cancelSubscription(ref)).toEqual({ ...year, state: 'pending_cancel' });
    expect(offline.state.subscriptions.get(ref)?.cancel_at_period_end).toBe(true);
    expect(await gateway.reactivateSubscription(ref)).toEqual({ ...year, state: 'active' });
    expect(offline.state.subscriptions.get(ref)?.cancel_at_period_end).toBe(false);
  });

  it('creates the customer with the organisation id in its metadata, and one product per handle', async () => {
    const customerRef = await gateway.createCustomer({
      organizationId: 'org-42',
      name: 'Acme',
      email: 'owner@acme.test',
    });
    const client = new Stripe(SECRET_KEY, {
      host: '127.0.0.1',
      port: offline.apiBase.port,
      protocol: 'http',
    });
    const customer = await client.customers.retrieve(customerRef);
    // The mock drops a new customer's name (one of its gaps), so only the e-mail and metadata are read back.
    expect(customer).toMatchObject({ email: 'owner@acme.test', metadata: { organization_id: 'org-42' } });
    await gateway.addCard(customerRef, buildCard(), true);
    const price = {
      productHandle: 'finance',
      title: 'Finance',
      period: 'monthly' as const,
      amountCents: 2000,
    };
    const first = await gateway.createSubscription(customerRef, price, {});
    const second = await gateway.createSubscription(customerRef, price, {});
    const product = await client.products.retrieve('cumulo_finance');
    expect(product.name).toBe('Finance');
    const items = [first, second].map(
      (s) => offline.state.subscriptions.get(s.ref ?? '')?.items.data[0]?.price,
    );
    expect(items.map((p) => p?.product)).toEqual(['cumulo_finance', 'cumulo_finance']);
    expect(items.map((p) => p?.unit_amount)).toEqual([2000, 2000]);
  });
});

describe('Stripe adapter states and readWebhook: events signed with the SDK test header (no server involved)', () => {
  const gateway = new StripeGateway({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  const fixtureJson = (name: string) =>
    JSON.parse(
      readFileSync(new URL(`./testing/stripe-fixtures/${name}.json`, import.meta.url), 'utf8'),
    ) as object;
  const event = (type: string, object: object) =>
    JSON.stringify({
      id: 'evt_1Qfixture',
      object: 'event',
      api_version: '2026-10-28.endive',
      created: 1764115200,
      type,
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
    });
  const signed = (payload: string, secret = WEBHOOK_SECRET) =>
    gateway.readWebhook(Buffer.from(payload), Stripe.webhooks.generateTestHeaderString({ payload, secret }));

  it('maps every Stripe subscription status to ours', () => {
    const state = (status: Stripe.Subscription.Status, cancel_at_period_end = false) =>
      subscriptionState({ status, cancel_at_period_end });
    expect(state('active')).toBe('active');
    expect(state('trialing')).toBe('active');
    expect(state('active', true)).toBe('pending_cancel');
    expect(state('past_due')).toBe('past_due');
    expect(state('unpaid')).toBe('past_due');
    expect(state('canceled')).toBe('canceled');
  });

  it('reads customer.subscription.updated as our state and period', () => {
    const subscription = { ...fixtureJson('subscription'), cancel_at_period_end: true };
    expect(signed(event('customer.subscription.updated', subscription))).toEqual({
      id: 'evt_1Qfixture',
      type: 'subscription.updated',
      subscriptionRef: 'sub_1QfixtureSub0000000000000',
      state: 'pending_cancel',
      currentPeriodStart: new Date(1764115200 * 1000),
      currentPeriodEnd: new Date(1766707200 * 1000),
    });
  });

  it('reads customer.subscription.deleted as canceled', () => {
    expect(
      signed(event('customer.subscription.deleted', { ...fixtureJson('subscription'), status: 'canceled' })),
    ).toEqual({
      id: 'evt_1Qfixture',
      type: 'subscription.canceled',
      subscriptionRef: 'sub_1QfixtureSub0000000000000',
    });
  });

  it('reads invoice.paid with the subscription and the period its line paid for', () => {
    expect(signed(event('invoice.paid', fixtureJson('invoice')))).toEqual({
      id: 'evt_1Qfixture',
      type: 'invoice.paid',
      invoiceRef: 'in_1QfixtureInvoice000000000',
      subscriptionRef: 'sub_1QfixtureSub0000000000000',
      amountCents: 2000,
      periodStart: new Date(1764115200 * 1000),
      periodEnd: new Date(1766707200 * 1000),
    });
  });

  it('reads invoice.payment_failed with the amount due', () => {
    const invoice = { ...fixtureJson('invoice'), status: 'open', amount_paid: 0, amount_due: 9900 };
    expect(signed(event('invoice.payment_failed', invoice))).toEqual({
      id: 'evt_1Qfixture',
      type: 'invoice.payment_failed',
      invoiceRef: 'in_1QfixtureInvoice000000000',
      subscriptionRef: 'sub_1QfixtureSub0000000000000',
      amountCents: 9900,
    });
  });

  it('answers ignored for an event billing does not act on', () => {
    expect(signed(event('customer.created', { id: 'cus_1', object: 'customer' }))).toEqual({
      id: 'evt_1Qfixture',
      type: 'ignored',
      gatewayType: 'customer.created',
    });
  });

  it('refuses a tampered body, a wrong secret and an old signature with BadSignature', () => {
    const payload = event('invoice.paid', fixtureJson('invoice'));
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const tampered = payload.replace('"amount_paid":2000', '"amount_paid":1');
    expect(tampered).not.toBe(payload);
    expect(() => gateway.readWebhook(Buffer.from(tampered), header)).toThrow(BadSignature);
    expect(() => signed(payload, 'whsec_someone_else')).toThrow(BadSignature);
    // Older than the SDK's five-minute tolerance: a replayed event.
    const old = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect(() => gateway.readWebhook(Buffer.from(payload), old)).toThrow(BadSignature);
  });

  it('refuses every webhook when no webhook secret is configured, even one signed with an empty secret', () => {
    const unconfigured = new StripeGateway({ secretKey: SECRET_KEY });
    const payload = event('invoice.paid', fixtureJson('invoice'));
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: '' });
    expect(() => unconfigured.readWebhook(Buffer.from(payload), header)).toThrow(BadSignature);
  });
});

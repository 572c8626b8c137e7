import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Stripe from 'stripe';
import { createExpressApp } from 'stripe-stateful-mock';

/**
 * An offline Stripe for the adapter's tests: one loopback address in front of two servers.
 *
 * - `stripe-stateful-mock` (a real HTTP server emulating Stripe's API) answers what it implements: customers
 *   (create, update with invoice_settings, retrieve) and products (retrieve, create with our id).
 * - It has no PaymentMethods, coupons, invoice items or subscription updates, and builds subscriptions from
 *   plans only (it ignores inline price_data, so every period is one month). Those calls are answered here
 *   from Stripe JSON in `stripe-fixtures/`: Stripe's documented objects and card errors for the API version
 *   the SDK pins, written by hand since no live Stripe is reachable to record from, and kept in memory so
 *   a cancel can be undone and a detached card is gone.
 *
 * `servedBy` tells which side answered each call, so a test can say which ran against the mock.
 */
const FIXTURE_ROUTES: { method: string; path: RegExp }[] = [
  { method: 'POST', path: /^\/v1\/payment_methods$/ },
  { method: 'POST', path: /^\/v1\/payment_methods\/[^/]+\/(attach|detach)$/ },
  { method: 'GET', path: /^\/v1\/coupons\/[^/]+$/ },
  { method: 'POST', path: /^\/v1\/coupons$/ },
  { method: 'POST', path: /^\/v1\/subscriptions(\/[^/]+)?$/ },
  { method: 'GET', path: /^\/v1\/subscriptions\/[^/]+$/ },
  { method: 'POST', path: /^\/v1\/invoiceitems$/ },
];

/** Stripe's public test number that passes creation and is declined when attached (Stripe's testing docs). */
export const STRIPE_TEST_CARD_DECLINED = '4000000000000002';

const fixturesDir = new URL('./stripe-fixtures/', import.meta.url);
function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`${name}.json`, fixturesDir), 'utf8')) as T;
}
type StripeErrorBody = { error: { code: string; message: string; type: string; param?: string } };
const cardErrors =
  fixture<Record<'incorrect_number' | 'invalid_expiry_year' | 'card_declined', StripeErrorBody>>(
    'card-errors',
  );

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const unixNow = () => Math.floor(Date.now() / 1000);
function addMonths(unix: number, months: number) {
  const date = new Date(unix * 1000);
  date.setUTCMonth(date.getUTCMonth() + months);
  return Math.floor(date.getTime() / 1000);
}

function passesLuhn(number: string) {
  let sum = 0;
  [...number].reverse().forEach((char, index) => {
    const digit = Number(char);
    const doubled = index % 2 === 1 ? digit * 2 : digit;
    sum += doubled > 9 ? doubled - 9 : doubled;
  });
  return /^\d{12,19}$/.test(number) && sum % 10 === 0;
}

function brandOf(number: string) {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  return 'unknown';
}

function stripeError(
  status: number,
  code: string,
  message: string,
  param?: string,
): [number, StripeErrorBody] {
  return [status, { error: { code, message, type: 'invalid_request_error', ...(param && { param }) } }];
}

interface FixtureState {
  paymentMethods: Map<string, Stripe.PaymentMethod & { declinedOnAttach: boolean }>;
  coupons: Map<string, Stripe.Coupon>;
  subscriptions: Map<string, Stripe.Subscription>;
  invoiceItems: Map<string, Stripe.InvoiceItem>;
}

type Answer = [number, unknown];

function answerFixture(
  state: FixtureState,
  method: string,
  path: string,
  form: URLSearchParams,
  idempotencyKey: string | undefined,
): Answer {
  const segments = path.split('/').slice(2);
  const [resource, id, action] = segments;

  if (resource === 'payment_methods' && !id) {
    const number = form.get('card[number]') ?? '';
    if (!passesLuhn(number)) return [402, cardErrors.incorrect_number];
    const expYear = Number(form.get('card[exp_year]'));
    const expMonth = Number(form.get('card[exp_month]'));
    if (expYear < new Date().getUTCFullYear()) return [402, cardErrors.invalid_expiry_year];
    const country = form.get('billing_details[address][country]');
    if (country !== null && !/^[A-Z]{2}$/.test(country))
      return stripeError(
        400,
        'parameter_invalid_string',
        `Country '${country}' is unknown. Try using a 2-character alphanumeric country code instead, such as 'US', 'EG', or 'GB'.`,
        'billing_details[address][country]',
      );
    const paymentMethod = fixture<Stripe.PaymentMethod>('payment_method');
    const address = (field: string) => form.get(`billing_details[address][${field}]`);
    paymentMethod.billing_details.address = {
      line1: address('line1'),
      line2: address('line2'),
      city: address('city'),
      state: address('state'),
      country,
      postal_code: address('postal_code'),
    };
    const card = paymentMethod.card;
    if (!card) throw new Error('payment_method fixture has no card');
    Object.assign(card, {
      brand: brandOf(number),
      display_brand: brandOf(number),
      last4: number.slice(-4),
      exp_month: expMonth,
      exp_year: expYear,
    });
    const stored = {
      ...paymentMethod,
      id: newId('pm'),
      created: unixNow(),
      declinedOnAttach: number === STRIPE_TEST_CARD_DECLINED,
    };
    state.paymentMethods.set(stored.id, stored);
    return [200, publicPaymentMethod(stored)];
  }
  if (resource === 'payment_methods' && id) {
    const paymentMethod = state.paymentMethods.get(id);
    if (!paymentMethod)
      return stripeError(404, 'resource_missing', `No such PaymentMethod: '${id}'`, 'payment_method');
    if (action === 'attach') {
      if (paymentMethod.declinedOnAttach) return [402, cardErrors.card_declined];
      paymentMethod.customer = form.get('customer');
    } else {
      if (!paymentMethod.customer)
        return stripeError(
          400,
          'payment_method_unexpected_state',
          'The payment method you provided is not attached to a customer so detachment is impossible.',
        );
      paymentMethod.customer = null;
    }
    return [200, publicPaymentMethod(paymentMethod)];
  }

  if (resource === 'coupons') {
    if (method === 'GET') {
      const coupon = id ? state.coupons.get(id) : undefined;
      return coupon ? [200, coupon] : stripeError(404, 'resource_missing', `No such coupon: '${id}'`, 'id');
    }
    const couponId = form.get('id') ?? newId('coupon');
    if (state.coupons.has(couponId))
      return stripeError(400, 'resource_already_exists', 'Coupon already exists.', 'id');
    const percentOff = form.get('percent_off');
    const amountOff = form.get('amount_off');
    const coupon: Stripe.Coupon = {
      ...fixture<Stripe.Coupon>('coupon'),
      id: couponId,
      name: form.get('name'),
      percent_off: percentOff ? Number(percentOff) : null,
      amount_off: amountOff ? Number(amountOff) : null,
      currency: form.get('currency'),
      created: unixNow(),
    };
    state.coupons.set(couponId, coupon);
    return [200, coupon];
  }

  if (resource === 'subscriptions' && method === 'GET') {
    const subscription = id ? state.subscriptions.get(id) : undefined;
    return subscription
      ? [200, subscription]
      : stripeError(404, 'resource_missing', `No such subscription: '${id}'`, 'id');
  }
  if (resource === 'subscriptions' && !id) {
    const coupon = form.get('discounts[0][coupon]');
    if (coupon && !state.coupons.has(coupon))
      return stripeError(400, 'resource_missing', `No such coupon: '${coupon}'`, 'discounts[0][coupon]');
    const subscription = fixture<Stripe.Subscription>('subscription');
    const subscriptionId = newId('sub');
    const item = subscription.items.data[0];
    if (!item) throw new Error('subscription fixture has no item');
    Object.assign(subscription, {
      id: subscriptionId,
      customer: form.get('customer'),
      created: unixNow(),
      start_date: unixNow(),
      billing_cycle_anchor: unixNow(),
      items: { ...subscription.items, url: `/v1/subscription_items?subscription=${subscriptionId}` },
      metadata: { product_handle: form.get('metadata[product_handle]') ?? '' },
    });
    setItemPrice(item, form, 'items[0]');
    item.id = newId('si');
    item.subscription = subscriptionId;
    state.subscriptions.set(subscriptionId, subscription);
    return [200, subscription];
  }
  if (resource === 'subscriptions' && id) {
    const subscription = state.subscriptions.get(id);
    if (!subscription) return stripeError(404, 'resource_missing', `No such subscription: '${id}'`, 'id');
    const cancel = form.get('cancel_at_period_end');
    if (cancel !== null) subscription.cancel_at_period_end = cancel === 'true';
    const item = subscription.items.data[0];
    const itemId = form.get('items[0][id]');
    if (itemId && item) {
      if (itemId !== item.id)
        return stripeError(400, 'resource_missing', `No such subscription item: '${itemId}'`, 'items[0][id]');
      const interval = item.price.recurring?.interval;
      setItemPrice(item, form, 'items[0]');
      // Stripe resets the billing cycle when the interval changes and keeps it when only the amount does.
      if (item.price.recurring?.interval === interval) {
        // The period set by setItemPrice is a fresh one: restore the running one.
        Object.assign(item, {
          current_period_start: subscription.billing_cycle_anchor,
          current_period_end: periodEnd(subscription.billing_cycle_anchor, interval),
        });
      } else subscription.billing_cycle_anchor = item.current_period_start;
    }
    return [200, subscription];
  }

  if (resource === 'invoiceitems') {
    // Stripe answers a repeated idempotency key with the first answer and creates nothing.
    const existing = idempotencyKey ? state.invoiceItems.get(idempotencyKey) : undefined;
    if (existing) return [200, existing];
    const invoiceItem: Stripe.InvoiceItem = {
      ...fixture<Stripe.InvoiceItem>('invoiceitem'),
      id: newId('ii'),
      customer: form.get('customer') ?? '',
      amount: Number(form.get('amount')),
      currency: form.get('currency') ?? 'usd',
      description: form.get('description'),
      date: unixNow(),
    };
    state.invoiceItems.set(idempotencyKey ?? invoiceItem.id, invoiceItem);
    return [200, invoiceItem];
  }
  return stripeError(404, 'resource_missing', `Unrecognized request URL (${method}: ${path}).`);
}

function periodEnd(start: number, interval: string | undefined) {
  return addMonths(start, interval === 'year' ? 12 : 1);
}

function setItemPrice(item: Stripe.SubscriptionItem, form: URLSearchParams, prefix: string) {
  const interval = form.get(`${prefix}[price_data][recurring][interval]`) === 'year' ? 'year' : 'month';
  const amount = Number(form.get(`${prefix}[price_data][unit_amount]`));
  const start = unixNow();
  item.price = {
    ...item.price,
    id: newId('price'),
    product: form.get(`${prefix}[price_data][product]`) ?? '',
    currency: form.get(`${prefix}[price_data][currency]`) ?? 'usd',
    unit_amount: amount,
    recurring: item.price.recurring && { ...item.price.recurring, interval },
  };
  item.current_period_start = start;
  item.current_period_end = periodEnd(start, interval);
}

function publicPaymentMethod(
  stored: Stripe.PaymentMethod & { declinedOnAttach: boolean },
): Stripe.PaymentMethod {
  const { declinedOnAttach: _declined, ...paymentMethod } = stored;
  return paymentMethod;
}

async function readBody(request: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function listen(server: http.Server) {
  return new Promise<string>((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

export interface OfflineStripe {
  /** Where the Stripe client points (host, port, protocol http). */
  apiBase: URL;
  /** Which side answered each call: `POST /v1/customers mock`, `POST /v1/payment_methods fixtures`. */
  servedBy: string[];
  state: FixtureState;
  stop(): Promise<void>;
}

export async function startOfflineStripe(): Promise<OfflineStripe> {
  const mock = http.createServer(createExpressApp());
  const mockUrl = new URL(await listen(mock));
  const state: FixtureState = {
    paymentMethods: new Map(),
    coupons: new Map(),
    subscriptions: new Map(),
    invoiceItems: new Map(),
  };
  const servedBy: string[] = [];

  const front = http.createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const body = await readBody(request);
      const method = request.method ?? 'GET';
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const byFixture = FIXTURE_ROUTES.some((route) => route.method === method && route.path.test(path));
      servedBy.push(
        `${method} ${path.replace(/\/(pm|sub|cus|coupon|cumulo)_[^/]+/, '/:id')} ${byFixture ? 'fixtures' : 'mock'}`,
      );
      if (byFixture) {
        const key = request.headers['idempotency-key'];
        const [status, answer] = answerFixture(
          state,
          method,
          path,
          new URLSearchParams(body.toString('utf8')),
          typeof key === 'string' ? key : undefined,
        );
        response.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
        response.end(JSON.stringify(answer));
        return;
      }
      const forwarded = http.request(
        { host: mockUrl.hostname, port: mockUrl.port, method, path: request.url, headers: request.headers },
        (mockAnswer) => {
          response.writeHead(mockAnswer.statusCode ?? 502, mockAnswer.headers);
          mockAnswer.pipe(response);
        },
      );
      forwarded.on('error', (error) => {
        response.writeHead(502);
        response.end(error.message);
      });
      forwarded.end(body);
    })();
  });
  const apiBase = new URL(await listen(front));

  const close = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    apiBase,
    servedBy,
    state,
    async stop() {
      front.closeAllConnections();
      mock.closeAllConnections();
      await Promise.all([close(front), close(mock)]);
    },
  };
}

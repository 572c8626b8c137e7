import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BadSignature,
  CardDeclined,
  type CardInput,
  type GatewayPrice,
  type GatewaySubscription,
  type PaymentGateway,
} from '../gateway.ts';

/** The card networks' public test number: accepted by every gateway, never a real card. */
const TEST_CARD_VISA = '4242424242424242';
/** The same digits with a wrong check digit (fails Luhn): every gateway refuses it. */
const TEST_CARD_BAD_CHECK_DIGIT = '4242424242424241';

export interface GatewayFixture {
  gateway: PaymentGateway;
  /**
   * What the gateway keeps, read back from its own side where it has one (the Stripe mock's customer, the
   * fixtures' payment methods); absent for a gateway that keeps nothing beyond what billing stores.
   */
  inspect?: {
    defaultCard(customerRef: string): Promise<string | null>;
    cards(customerRef: string): Promise<string[]>;
    usageCharges(customerRef: string): Promise<{ description: string; amountCents: number }[]>;
  };
  /** Stops servers. */
  cleanup(): Promise<void>;
}

export interface GatewayContractOptions {
  /**
   * Cards this gateway refuses with CardDeclined, beyond the bad check digit every gateway refuses, by a label:
   * test titles name the label, never the number, so a search of the run's output for test numbers finds none.
   */
  refusedCards?: Record<string, string>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function buildCard(overrides: Partial<CardInput> = {}): CardInput {
  return {
    number: TEST_CARD_VISA,
    cvc: '123',
    expMonth: 12,
    expYear: new Date().getUTCFullYear() + 3,
    firstName: 'Ada',
    lastName: 'Owner',
    address: { line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' },
    ...overrides,
  };
}

const monthly: GatewayPrice = {
  productHandle: 'analytics',
  title: 'Analytics',
  period: 'monthly',
  amountCents: 2000,
};
const annually: GatewayPrice = {
  productHandle: 'analytics',
  title: 'Analytics',
  period: 'annually',
  amountCents: 19900,
};
const professional: GatewayPrice = {
  productHandle: 'professional',
  title: 'Professional',
  period: 'annually',
  amountCents: 99000,
};

function periodDays(subscription: GatewaySubscription) {
  return (subscription.currentPeriodEnd.getTime() - subscription.currentPeriodStart.getTime()) / DAY_MS;
}

/**
 * What billing relies on from every PaymentGateway adapter, run against a real server, the Stripe mock or
 * recorded answers. An adapter's test file calls this with a fixture factory and names what it runs against.
 */
export function paymentGatewayContract(
  name: string,
  setup: () => Promise<GatewayFixture>,
  options: GatewayContractOptions = {},
) {
  const refused = Object.entries({ 'a bad check digit': TEST_CARD_BAD_CHECK_DIGIT, ...options.refusedCards });

  describe(`PaymentGateway contract: ${name}`, () => {
    let fx: GatewayFixture;
    let customerRef: string;
    beforeAll(async () => {
      fx = await setup();
      customerRef = await fx.gateway.createCustomer({
        organizationId: '5b0e4c1e-8f0a-4d7e-9a59-2f1f0d6c8b11',
        name: 'Acme Media',
        email: 'owner@acme.test',
      });
    }, 60_000);
    afterAll(async () => {
      await fx?.cleanup();
    });

    it('creates a customer and answers its id', () => {
      expect(customerRef).toEqual(expect.any(String));
      expect(customerRef.length).toBeGreaterThan(0);
    });

    it('adds a valid card and keeps only its brand, last 4 digits and expiry', async () => {
      const card = buildCard({ expMonth: 7 });
      const stored = await fx.gateway.addCard(customerRef, card, true);
      expect(stored).toEqual({
        ref: expect.any(String),
        brand: 'visa',
        last4: '4242',
        expMonth: 7,
        expYear: card.expYear,
      });
      expect(JSON.stringify(stored)).not.toContain(card.number);
      if (fx.inspect) {
        expect(await fx.inspect.cards(customerRef)).toContain(stored.ref);
        expect(await fx.inspect.defaultCard(customerRef)).toBe(stored.ref);
      }
    });

    it.each(refused)(
      'refuses a card with %s with CardDeclined in words a user can read, never echoing the number',
      async (_label, number) => {
        const error = await fx.gateway
          .addCard(customerRef, buildCard({ number }), false)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CardDeclined);
        const message = (error as CardDeclined).message;
        expect(message.length).toBeGreaterThan(0);
        expect(message).not.toContain(number);
        expect(message).not.toContain(number.slice(0, 12));
      },
    );

    it('makes another card the default and removes a card', async () => {
      const first = await fx.gateway.addCard(customerRef, buildCard(), false);
      const second = await fx.gateway.addCard(customerRef, buildCard({ expMonth: 3 }), true);
      await fx.gateway.setDefaultCard(customerRef, first.ref);
      if (fx.inspect) expect(await fx.inspect.defaultCard(customerRef)).toBe(first.ref);
      await fx.gateway.removeCard(customerRef, second.ref);
      if (fx.inspect) {
        const cards = await fx.inspect.cards(customerRef);
        expect(cards).toContain(first.ref);
        expect(cards).not.toContain(second.ref);
      }
    });

    it('subscribes monthly and annually: active, each paid up to a period end in the future of its length', async () => {
      const now = Date.now();
      const month = await fx.gateway.createSubscription(customerRef, monthly, {});
      expect(month.state).toBe('active');
      expect(month.ref).toEqual(expect.any(String));
      expect(month.currentPeriodEnd.getTime()).toBeGreaterThan(now);
      expect(periodDays(month)).toBeGreaterThanOrEqual(28);
      expect(periodDays(month)).toBeLessThanOrEqual(31);

      const year = await fx.gateway.createSubscription(customerRef, annually, {});
      expect(year.state).toBe('active');
      expect(year.currentPeriodEnd.getTime()).toBeGreaterThan(now);
      expect(periodDays(year)).toBeGreaterThanOrEqual(365);
      expect(periodDays(year)).toBeLessThanOrEqual(366);
      expect(year.ref).not.toBe(month.ref);
    });

    it('subscribes with a coupon code', async () => {
      const discounted = await fx.gateway.createSubscription(customerRef, monthly, {
        couponCode: 'WELCOME20',
        percentOff: 20,
        amountOffCents: null,
      });
      expect(discounted.state).toBe('active');
      // The same code again reuses what the gateway keeps for it.
      const again = await fx.gateway.createSubscription(customerRef, monthly, {
        couponCode: 'WELCOME20',
        percentOff: 20,
        amountOffCents: null,
      });
      expect(again.state).toBe('active');
    });

    it('changes a subscription to another price now: still active, on the new period', async () => {
      const month = await fx.gateway.createSubscription(customerRef, monthly, {});
      const ref = month.ref ?? '';
      const changed = await fx.gateway.changeSubscription(ref, professional);
      expect(changed.ref).toBe(ref);
      expect(changed.state).toBe('active');
      expect(changed.currentPeriodEnd.getTime()).toBeGreaterThan(Date.now() + 300 * DAY_MS);
    });

    it('cancels at the end of the paid period, not before (pending_cancel) and reactivates (active)', async () => {
      const month = await fx.gateway.createSubscription(customerRef, monthly, {});
      const ref = month.ref ?? '';
      const canceled = await fx.gateway.cancelSubscription(ref);
      expect(canceled).toMatchObject({ ref, state: 'pending_cancel' });
      expect(canceled.currentPeriodEnd.getTime()).toBeGreaterThanOrEqual(month.currentPeriodEnd.getTime());
      const reactivated = await fx.gateway.reactivateSubscription(ref);
      expect(reactivated).toMatchObject({ ref, state: 'active' });
      expect(reactivated.currentPeriodEnd.getTime()).toBeGreaterThanOrEqual(month.currentPeriodEnd.getTime());
    });

    it('bills usage once per idempotency key', async () => {
      const charge = {
        description: 'Cloud-to-cloud transfer: 12 GB',
        amountCents: 180,
        idempotencyKey: 'usage-org-1-2026-11',
      };
      await fx.gateway.addUsageCharge(customerRef, charge);
      await fx.gateway.addUsageCharge(customerRef, charge);
      if (fx.inspect)
        expect(await fx.inspect.usageCharges(customerRef)).toEqual([
          { description: charge.description, amountCents: 180 },
        ]);
    });

    it('refuses a webhook with a bad or missing signature with BadSignature', () => {
      const body = Buffer.from(JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { object: {} } }));
      expect(() => fx.gateway.readWebhook(body, 't=1,v1=00')).toThrow(BadSignature);
      expect(() => fx.gateway.readWebhook(body, undefined)).toThrow(BadSignature);
    });
  });
}

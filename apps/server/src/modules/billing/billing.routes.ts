import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  billingInfoView,
  couponView,
  createSubscriptionBody,
  messageAnswer,
  newCustomerSubscriptionBody,
  packagesAnswer,
  paymentProfileAnswer,
  paymentProfileBody,
  paymentProfilesAnswer,
  productChangeParams,
  productsAnswer,
  quotaExtensionBody,
  requestQuoteBody,
  requestServiceBody,
  subscriptionAnswer,
  subscriptionEventsAnswer,
  subscriptionView,
  text,
} from '@cumulo/contract';
import { principalOf, type AuthService } from '../../http/auth.ts';
import type { BillingRequests } from './billing-requests.service.ts';
import type { GatewayWebhooks } from './billing-webhooks.service.ts';
import type { BillingService } from './billing.service.ts';

/** The billing calls of spec 002 §7 and spec 001 §7, at the spec's paths under /api. */
export function billingRoutes(
  services: { billing: BillingService; requests: BillingRequests; webhooks: GatewayWebhooks },
  auth: AuthService,
): FastifyPluginAsyncZod {
  const { billing: service, requests, webhooks: gatewayWebhooks } = services;
  return async (app) => {
    const tags = ['billing'];
    // Changes are the Owner's (the service checks `billing.change`); reads and requests are every member's.
    const member = { preHandler: auth.requireAuth };
    const idParams = z.object({ id: z.uuid() });

    app.get(
      '/billing/products',
      { ...member, schema: { tags, response: { 200: productsAnswer } } },
      async (request) => service.products(principalOf(request)),
    );

    app.get(
      '/packages',
      { ...member, schema: { tags, response: { 200: packagesAnswer } } },
      async (request) => service.packages(principalOf(request)),
    );

    app.post(
      '/billing/subscriptions/',
      {
        ...member,
        schema: { tags, body: createSubscriptionBody, response: { 201: subscriptionAnswer } },
      },
      async (request, reply) =>
        reply.status(201).send(await service.subscribe(principalOf(request), request.body)),
    );

    app.post(
      '/billing/desktop/subscriptions/new_customer',
      {
        schema: {
          tags,
          description:
            'Signed out (the desktop agent, /desktopbilling): a new organisation and Owner subscribed with the ' +
            'card, and a mail to set a password. The answer is the same for an address that has an account.',
          security: [],
          body: newCustomerSubscriptionBody,
          response: { 200: messageAnswer },
        },
      },
      async (request) => {
        const { subscription } = request.body.customer_subscription;
        return service.newCustomer(
          {
            productHandle: subscription.product_handle,
            customer: subscription.customer_attributes,
            card: subscription.credit_card_attributes,
            couponCode: subscription.coupon_code,
          },
          { ip: request.ip, userAgent: request.headers['user-agent'] },
        );
      },
    );

    app.get(
      '/billing/subscriptions/:id',
      { ...member, schema: { tags, params: idParams, response: { 200: subscriptionView } } },
      async (request) => service.subscription(principalOf(request), request.params.id),
    );

    app.delete(
      '/billing/subscriptions/:id',
      {
        ...member,
        schema: {
          tags,
          description: 'Cancels at the end of the paid period.',
          params: idParams,
          response: { 200: subscriptionAnswer },
        },
      },
      async (request) => service.cancel(principalOf(request), request.params.id),
    );

    app.put(
      '/billing/subscriptions/:id/product_change/:productId',
      { ...member, schema: { tags, params: productChangeParams, response: { 200: subscriptionAnswer } } },
      async (request) =>
        service.changeProduct(principalOf(request), request.params.id, request.params.productId),
    );

    app.put(
      '/billing/subscriptions/:id/reactivate',
      { ...member, schema: { tags, params: idParams, response: { 200: subscriptionAnswer } } },
      async (request) => service.reactivate(principalOf(request), request.params.id),
    );

    app.get(
      '/billing/events/subscription/:id',
      { ...member, schema: { tags, params: idParams, response: { 200: subscriptionEventsAnswer } } },
      async (request) => service.events(principalOf(request), request.params.id),
    );

    app.get(
      '/billing/billing_info',
      { ...member, schema: { tags, response: { 200: billingInfoView } } },
      async (request) => service.billingInfo(principalOf(request)),
    );

    app.get(
      '/billing/payment_profiles',
      { ...member, schema: { tags, response: { 200: paymentProfilesAnswer } } },
      async (request) => service.cards(principalOf(request)),
    );

    app.post(
      '/billing/payment_profiles',
      { ...member, schema: { tags, body: paymentProfileBody, response: { 201: paymentProfileAnswer } } },
      async (request, reply) =>
        reply
          .status(201)
          .send(
            await service.addCard(
              principalOf(request),
              request.body.credit_card_attributes,
              request.body.default,
            ),
          ),
    );

    // The spec names both methods for replacing a card.
    for (const method of ['PUT', 'POST'] as const) {
      app.route({
        method,
        url: '/billing/payment_profiles/:id',
        ...member,
        schema: {
          tags,
          description: 'Replaces the card: the new one is added, the old one removed, the default kept.',
          params: idParams,
          body: paymentProfileBody,
          response: { 200: paymentProfileAnswer },
        },
        handler: async (request) =>
          service.replaceCard(
            principalOf(request),
            request.params.id,
            request.body.credit_card_attributes,
            request.body.default,
          ),
      });
    }

    // Not in the spec: "Make default" on a saved card, as Stripe's billing portal offers.
    app.put(
      '/billing/payment_profiles/:id/default',
      {
        ...member,
        schema: {
          tags,
          description: 'Makes the card the one the gateway charges; the other cards stay saved.',
          params: idParams,
          response: { 200: paymentProfileAnswer },
        },
      },
      async (request) => service.makeDefaultCard(principalOf(request), request.params.id),
    );

    app.delete(
      '/billing/payment_profiles/:id',
      { ...member, schema: { tags, params: idParams, response: { 200: messageAnswer } } },
      async (request) => service.removeCard(principalOf(request), request.params.id),
    );

    app.get(
      '/billing/coupons/validate/:code',
      {
        ...member,
        schema: { tags, params: z.object({ code: text({ max: 100 }) }), response: { 200: couponView } },
      },
      async (request) => service.validateCoupon(request.params.code),
    );

    // Not in the spec: where the payment company reports changes. The adapter verifies the signature over the
    // exact bytes received, so this route alone reads its body raw.
    await app.register(async (webhooks) => {
      webhooks.removeContentTypeParser('application/json');
      webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
        done(null, body),
      );
      webhooks.post(
        '/billing/webhooks/stripe',
        {
          schema: {
            tags,
            description:
              "Stripe's signed events (BILLING_GATEWAY=stripe); a bad signature is refused with 400.",
            security: [],
            response: { 200: z.object({ received: z.boolean() }) },
          },
        },
        async (request) => {
          const signature = request.headers['stripe-signature'];
          const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          return gatewayWebhooks.apply(raw, typeof signature === 'string' ? signature : undefined);
        },
      );
    });

    app.post(
      '/packages/request_quote',
      { ...member, schema: { tags, body: requestQuoteBody, response: { 200: messageAnswer } } },
      async (request) => requests.requestQuote(principalOf(request), request.body),
    );

    app.post(
      '/packages/request_service',
      { ...member, schema: { tags, body: requestServiceBody, response: { 200: messageAnswer } } },
      async (request) => requests.requestService(principalOf(request), request.body),
    );

    app.post(
      '/quota/request_extension',
      { ...member, schema: { tags, body: quotaExtensionBody, response: { 200: messageAnswer } } },
      async (request) => requests.requestExtension(principalOf(request), request.body),
    );
  };
}

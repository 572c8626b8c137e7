import { ConfigError, type Config } from '../../../config.ts';
import type { PaymentGateway } from '../gateway.ts';
import { ManualGateway } from './manual.gateway.ts';
import { StripeGateway } from './stripe.gateway.ts';

/** The gateway BILLING_GATEWAY names, built once with its typed options (adapters read no env). */
export function buildGateway(config: Config): PaymentGateway {
  switch (config.BILLING_GATEWAY) {
    case 'manual':
      return new ManualGateway();
    case 'stripe':
      // loadConfig already refuses this; the check keeps the type honest without an assertion.
      if (!config.STRIPE_SECRET_KEY)
        throw new ConfigError('BILLING_GATEWAY=stripe: STRIPE_SECRET_KEY is required');
      return new StripeGateway({
        secretKey: config.STRIPE_SECRET_KEY,
        webhookSecret: config.STRIPE_WEBHOOK_SECRET,
        apiBase: config.STRIPE_API_URL ? new URL(config.STRIPE_API_URL) : undefined,
      });
  }
}

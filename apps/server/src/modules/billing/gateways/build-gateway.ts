import { ConfigError, type Config } from '../../../config.ts';
import type { PaymentGateway } from '../gateway.ts';
import { ManualGateway } from './manual.gateway.ts';

/** The gateway BILLING_GATEWAY names, built once with its typed options (adapters read no env). */
export function buildGateway(config: Config): PaymentGateway {
  switch (config.BILLING_GATEWAY) {
    case 'manual':
      return new ManualGateway();
    case 'stripe':
      // The Stripe adapter (gateways/stripe.gateway.ts) is wired here when it lands.
      throw new ConfigError('BILLING_GATEWAY=stripe: the Stripe adapter is not part of this build yet');
  }
}

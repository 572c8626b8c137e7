import type { Config } from '../../../config.ts';
import type { PaymentGateway } from '../gateway.ts';
import { ManualGateway } from './manual.gateway.ts';

/** What the monthly roll (BillingRoll) asks of the gateway: its name, and usage charges. */
export type UsageGateway = Pick<PaymentGateway, 'name' | 'addUsageCharge'>;

/**
 * The roll's gateway for the worker role: the one BILLING_GATEWAY names (buildGateway), with Stripe's SDK loaded at
 * the first charge instead of when the worker starts, so that a worker holds none of it until it bills usage.
 */
export function buildUsageGateway(config: Config): UsageGateway {
  if (config.BILLING_GATEWAY === 'manual') return new ManualGateway();
  let gateway: Promise<PaymentGateway> | undefined;
  return {
    name: config.BILLING_GATEWAY,
    async addUsageCharge(customerRef, charge) {
      gateway ??= import('./build-gateway.ts').then(({ buildGateway }) => buildGateway(config));
      await (await gateway).addUsageCharge(customerRef, charge);
    },
  };
}

import { paymentGatewayContract } from './gateway-contract.ts';
import { ManualGateway } from './manual.gateway.ts';

// The manual gateway talks to no server and keeps nothing itself (billing stores the cards and invoices), so the
// suite runs on the adapter alone and checks what it answers; there is nothing of its own to inspect.
paymentGatewayContract('manual adapter (no payment company: nothing kept by the adapter)', async () => ({
  gateway: new ManualGateway(),
  cleanup: async () => undefined,
}));

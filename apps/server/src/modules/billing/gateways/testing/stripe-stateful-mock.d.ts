declare module 'stripe-stateful-mock' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The mock's Express app: an HTTP request listener emulating Stripe's /v1 API. */
  export function createExpressApp(): (request: IncomingMessage, response: ServerResponse) => void;
}

import http from 'node:http';
import { messages } from '@cumulo/contract';
import type { Logger } from '../../logger.ts';
import type { Metrics } from './metrics.ts';
import { metricsAccess, metricsDenied } from './metrics-access.ts';

/**
 * A worker serves no HTTP; with METRICS_PORT it listens there for Prometheus only: GET /metrics, with the same
 * token as the web role's route. Everything else is a 404.
 */
export async function listenForMetrics(
  metrics: Metrics,
  token: string | undefined,
  port: number,
  host: string,
  log: Logger,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const json = (status: number, message: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(JSON.stringify({ message }));
    };
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') return json(404, messages.notFound);
    const access = metricsAccess(token, request.headers.authorization);
    if (access === 'off') return json(404, messages.notFound);
    if (access === 'denied') return json(401, metricsDenied, { 'www-authenticate': 'Bearer' });
    metrics.registry.metrics().then(
      (body) => {
        response.writeHead(200, {
          'content-type': metrics.registry.contentType,
          'cache-control': 'no-store',
        });
        response.end(body);
      },
      (error: unknown) => {
        log.error({ err: error }, 'metrics could not be collected');
        json(500, messages.generic);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

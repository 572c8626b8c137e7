import net from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { Metrics } from './metrics.ts';
import { observeRequests } from './metrics.routes.ts';

/** How many requests the histogram counted under these labels. */
async function counted(metrics: Metrics, labels: { route: string; status_code: string }): Promise<number> {
  const { values } = await metrics.httpDuration.get();
  return values
    .filter(
      (value) =>
        value.metricName === 'cumulo_http_request_duration_seconds_count' &&
        value.labels.route === labels.route &&
        value.labels.status_code === labels.status_code,
    )
    .reduce((sum, value) => sum + value.value, 0);
}

/** Sends one whole POST over a raw socket; resolves when the server closed or the socket was destroyed. */
async function post(port: number, route: string, options: { leaveAfterMs?: number } = {}) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  // Read the answer away: a paused socket never sees the server's end.
  socket.resume();
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(
    `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\n` +
      'content-length: 2\r\n\r\n{}',
  );
  if (options.leaveAfterMs !== undefined) setTimeout(() => socket.destroy(), options.leaveAfterMs);
  await closed;
}

describe('observeRequests', () => {
  let app: ReturnType<typeof Fastify> | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it('times every request by its route: answered, answered to a client that left while it was written, and left before any answer (499)', async () => {
    const metrics = new Metrics(async () => []);
    const server = Fastify();
    app = server;
    observeRequests(server, metrics);
    server.post('/answered', async () => ({ ok: true }));
    // The client goes the moment the answer is ready: Node never emits 'finish', so Fastify never runs onResponse.
    server.post('/left-while-written', async () => ({ ok: true }));
    server.addHook('onSend', async (request, _reply, payload) => {
      if (request.url === '/left-while-written') request.raw.socket.destroy();
      return payload;
    });
    server.post('/left-before', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { ok: true };
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.server.address() as net.AddressInfo;

    await post(port, '/answered');
    await post(port, '/left-while-written');
    await post(port, '/left-before', { leaveAfterMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 400));

    expect(await counted(metrics, { route: '/answered', status_code: '200' })).toBe(1);
    expect(await counted(metrics, { route: '/left-while-written', status_code: '200' })).toBe(1);
    expect(await counted(metrics, { route: '/left-before', status_code: '499' })).toBe(1);
  });
});

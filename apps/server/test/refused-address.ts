import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

/**
 * The outbound address policy's refused target in tests: a second loopback address, 127.0.0.2, which the tests'
 * ALLOWED_PRIVATE_ENDPOINTS (127.0.0.1) does not list. Tests never aim at private or public ranges: no traffic
 * may leave this machine (TESTING.md "Outbound address policy").
 */
export const REFUSED_HOST = '127.0.0.2';

export interface RefusedListener {
  /** An open port on 127.0.0.2, answering any HTTP request with 200. */
  port: number;
  /** Connections it accepted (each one would be a request the policy let through). */
  connections(): number;
  stop(): Promise<void>;
}

/** An HTTP server on 127.0.0.2 that counts every connection it receives. */
export async function startRefusedListener(): Promise<RefusedListener> {
  let connections = 0;
  const server = http.createServer((_req, res) => res.end('ok'));
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, REFUSED_HOST, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on `host` with nothing listening (taken from the kernel, then released). */
export async function closedPort(host: string): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, host, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

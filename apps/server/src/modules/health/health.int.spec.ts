import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { REALTIME_PATH } from '@cumulo/contract';
import { signedInMember, startTestServer, type TestServer } from '../../../test/harness.ts';
import { SOCKET_CLOSE_MS } from '../../app.ts';

/**
 * Liveness and readiness as a load balancer and an orchestrator read them, against the real database: a database
 * that refuses connections makes the process unready (503) but still alive (200); a process draining (SIGTERM)
 * is unready at once; and closing the server (the drain's next step) does not wait on a /rm client that never
 * answers the closing handshake.
 */
let server: TestServer;
let admin: pg.Client;
let dbName: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await admin.connect();
  dbName = new URL(server.databaseUrl).pathname.slice(1);
});
afterAll(async () => {
  await admin?.query(`alter database ${dbName} allow_connections true`).catch(() => undefined);
  await admin?.end();
  await server?.stop();
});

const get = (url: string) => server.app.inject({ method: 'GET', url });

describe('/api/health (liveness) and /api/ready (readiness)', () => {
  it('answer 200 when the database and the job queue are up', async () => {
    const health = await get('/api/health');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await get('/api/ready');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ok', database: 'up', jobQueue: 'up' });
  });

  it('readiness is 503 while the database refuses connections; liveness stays 200; both recover', async () => {
    // The database goes away as for the process: new connections refused, the open ones cut.
    await admin.query(`alter database ${dbName} allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [dbName]);
    try {
      const ready = await get('/api/ready');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'degraded', database: 'down' });
      const health = await get('/api/health');
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ status: 'ok' });
    } finally {
      await admin.query(`alter database ${dbName} allow_connections true`);
    }
    const deadline = Date.now() + 15_000;
    for (;;) {
      const ready = await get('/api/ready');
      if (ready.statusCode === 200) break;
      if (Date.now() > deadline) throw new Error(`readiness never recovered: ${ready.body}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  it('readiness is 503 once the process drains (SIGTERM), though everything is up', async () => {
    server.services.lifecycle.beginDrain();
    const ready = await get('/api/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'draining', database: 'up', jobQueue: 'up' });
    expect((await get('/api/health')).statusCode).toBe(200);
  });
});

describe('closing the web role with /rm clients connected', () => {
  it('cuts a client that never answers the closing handshake instead of waiting for it', async () => {
    const member = await signedInMember(server, 'socket');
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    // A raw client: completes the upgrade, then ignores every frame (a client whose network went away).
    const socket = net.connect(Number(port), '127.0.0.1');
    const upgraded = new Promise<void>((resolve, reject) => {
      socket.once('data', (chunk: Buffer) =>
        chunk.toString().startsWith('HTTP/1.1 101') ? resolve() : reject(new Error(chunk.toString())),
      );
      socket.once('error', reject);
    });
    socket.write(
      [
        `GET ${REALTIME_PATH}?access_token=${member.token} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        '',
        '',
      ].join('\r\n'),
    );
    await upgraded;
    const cut = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Give the hub the moment it takes to check the token and keep the connection.
    await new Promise((r) => setTimeout(r, 300));

    const started = Date.now();
    await server.app.close();
    const closeMs = Date.now() - started;
    await cut;
    // ws alone would wait 30 s for the closing handshake.
    expect(closeMs).toBeGreaterThanOrEqual(SOCKET_CLOSE_MS - 100);
    expect(closeMs).toBeLessThan(SOCKET_CLOSE_MS + 3000);
  });
});

import net from 'node:net';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { watchSlowRequests } from './slow-requests.ts';

/** A pino logger whose lines land in `lines` as parsed objects. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'warn' }, stream), lines };
}

describe('watchSlowRequests', () => {
  // Never connects: only its counters are read.
  const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
  let app: ReturnType<typeof Fastify> | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it('logs a request while it hangs and when it ends, without its query, and leaves fast ones alone', async () => {
    const { log, lines } = capturingLogger();
    app = Fastify();
    watchSlowRequests(app, pool, log, 50);
    app.get('/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 120));
      return { ok: true };
    });
    app.get('/fast', async () => ({ ok: true }));

    expect((await app.inject({ url: '/fast' })).statusCode).toBe(200);
    expect(lines).toEqual([]);

    expect((await app.inject({ url: '/slow?access_token=secret' })).statusCode).toBe(200);
    expect(lines.map((line) => line.msg)).toEqual(['request still running', 'slow request']);
    expect(lines[0]).toMatchObject({ method: 'GET', path: '/slow', afterMs: 50, pool: { waiting: 0 } });
    expect(lines[1]).toMatchObject({ path: '/slow', status: 200 });
    expect(lines[1]?.ms).toBeGreaterThanOrEqual(50);
    expect(JSON.stringify(lines)).not.toContain('secret');
  });

  it('ends the watch of a request whose client left while its answer was being written', async () => {
    const { log, lines } = capturingLogger();
    const server = Fastify();
    app = server;
    watchSlowRequests(server, pool, log, 100);
    // The client goes the moment the answer is ready: the agent stopped just after it sent its history report.
    // Node then never emits the response's 'finish', so Fastify runs neither onResponse nor onRequestAbort.
    server.addHook('onSend', async (request, _reply, payload) => {
      request.raw.socket.destroy();
      return payload;
    });
    let answered = false;
    server.post('/agent/history', async () => {
      answered = true;
      return { ok: true };
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      'POST /agent/history HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
        'content-length: 2\r\n\r\n{}',
    );
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(true);
    expect(lines).toEqual([]);
  });

  it('logs a slow request whose client left before any answer as aborted, once', async () => {
    const { log, lines } = capturingLogger();
    const server = Fastify();
    app = server;
    watchSlowRequests(server, pool, log, 100);
    server.get('/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { ok: true };
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    // The client gives up after the watch has logged the request as still running.
    await new Promise((resolve) => setTimeout(resolve, 150));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(lines.map((line) => line.msg)).toEqual([
      'request still running',
      'slow request aborted by the client',
    ]);
    expect(lines[1]?.ms).toBeGreaterThanOrEqual(100);
  });
});

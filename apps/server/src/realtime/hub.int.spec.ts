import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ROLE_ID } from '@cumulo/contract';
import { callApi, signedInMember, startTestServer, type TestServer } from '../../test/harness.ts';
import { publish } from './events.ts';
import { CLOSE_SIGNED_OUT } from './hub.ts';

let server: TestServer;
let base: string;

interface Client {
  socket: WebSocket;
  messages: Array<{ type: string; data: unknown }>;
  closed: Promise<number>;
}

function connect(token: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base}/rm?access_token=${encodeURIComponent(token)}`);
    const messages: Client['messages'] = [];
    const closed = new Promise<number>((r) => socket.on('close', (code) => r(code)));
    socket.on('message', (raw) => {
      messages.push(JSON.parse(raw.toString()) as { type: string; data: unknown });
      if (messages.length === 1) resolve({ socket, messages, closed });
    });
    socket.on('error', reject);
    void closed.then((code) => reject(new Error(`closed with ${code} before hello`)));
  });
}

async function until(check: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  server = await startTestServer();
  const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
  base = address.replace('http', 'ws');
});
afterAll(async () => {
  await server?.stop();
});

describe('/rm hub against embedded PostgreSQL LISTEN/NOTIFY', () => {
  it('refuses a socket without a valid bearer', async () => {
    const socket = new WebSocket(`${base}/rm?access_token=forged`);
    const code = await new Promise<number>((r) => socket.on('close', (c) => r(c)));
    expect(code).toBe(CLOSE_SIGNED_OUT);
  });

  it('fans an event out to its organisation only, and closes the socket when the session ends', async () => {
    const alice = await signedInMember(server, 'alice');
    const bob = await signedInMember(server, 'bob');
    const a = await connect(alice.token);
    const b = await connect(bob.token);
    expect(a.messages[0]).toEqual({ type: 'hello', data: { userId: alice.principal.userId } });

    await publish(server.db.pool, {
      organizationId: alice.principal.organizationId,
      type: 'transfer.progress',
      data: { percent: 42 },
    });
    await until(() => a.messages.length === 2);
    expect(a.messages[1]).toEqual({ type: 'transfer.progress', data: { percent: 42 } });
    await new Promise((r) => setTimeout(r, 200));
    expect(b.messages).toHaveLength(1);

    await server.services.identity.logout(alice.principal);
    expect(await a.closed).toBe(CLOSE_SIGNED_OUT);
    b.socket.close();
  });

  it("stops a service's live events to a member once that service is turned off for them", async () => {
    const owner = await signedInMember(server, 'owner');
    const user = await signedInMember(server, 'user', { principal: owner.principal, roleId: ROLE_ID.User });
    const o = await connect(owner.token);
    const u = await connect(user.token);
    const organizationId = owner.principal.organizationId;
    const progress = (percent: number) =>
      publish(server.db.pool, {
        organizationId,
        service: 'transfers',
        type: 'transfer.progress',
        data: { percent },
      });

    await progress(1);
    await until(() => o.messages.length === 2 && u.messages.length === 2);

    const acls = await callApi(
      server,
      'GET',
      `/api/user_access_levels/user_acls/${user.principal.userId}`,
      owner.token,
    );
    const transfers = (acls.body as Array<{ id: string; service: string }>).find(
      (acl) => acl.service === 'transfers',
    );
    const off = await callApi(server, 'PUT', `/api/user_access_levels/${transfers?.id ?? ''}`, owner.token, {
      user_access_level: { enabled: false },
    });
    expect(off.status, off.raw).toBe(200);
    // The hub reads the ACLs again on `$access-changed` before it passes on later events: the next event of the
    // service skips the member.
    await progress(2);
    await publish(server.db.pool, { organizationId, type: 'notification', data: { text: 'for everyone' } });
    await until(() => o.messages.length === 4 && u.messages.length === 3);
    expect(u.messages.slice(1).map((m) => m.type)).toEqual(['transfer.progress', 'notification']);
    expect(o.messages[2]).toEqual({ type: 'transfer.progress', data: { percent: 2 } });
    o.socket.close();
    u.socket.close();
  });
});

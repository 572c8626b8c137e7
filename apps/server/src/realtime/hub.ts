import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { WebSocket } from 'ws';
import {
  CLOSE_SIGNED_OUT,
  REALTIME_PATH,
  type EffectiveAccess,
  type RealtimeMessage,
} from '@cumulo/contract';
import type { Logger } from '../logger.ts';
import type { AuthService } from '../http/auth.ts';
import { EVENTS_CHANNEL, type BusMessage } from './events.ts';

interface Connection {
  socket: WebSocket;
  organizationId: string;
  userId: string;
  sessionId: string;
  /** The member's service ACL: read at connect, read again on `$access-changed`. */
  access: EffectiveAccess;
}

export { CLOSE_SIGNED_OUT };

/**
 * The /rm hub: authenticates the bearer (query `access_token`, since browsers cannot set headers on a
 * WebSocket, or an Authorization header), then forwards NOTIFY events to the sockets of their organisation.
 */
export class RealtimeHub {
  readonly #byOrg = new Map<string, Set<Connection>>();
  #listener: pg.Client | undefined;
  #stopped = false;
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly connectionString: string,
    private readonly auth: AuthService,
    private readonly log: Logger,
  ) {}

  async start() {
    await this.#listen();
  }

  async #listen(): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: 'cumulo-realtime',
    });
    client.on('notification', (msg) => {
      if (msg.channel !== EVENTS_CHANNEL || !msg.payload) return;
      let message: BusMessage;
      try {
        message = JSON.parse(msg.payload) as BusMessage;
      } catch (error) {
        this.log.warn({ err: error }, 'dropped a malformed realtime event');
        return;
      }
      // In order: an event published after an ACL change is filtered by the ACLs read again.
      this.#queue = this.#queue
        .then(() => this.dispatch(message))
        .catch((error: unknown) => this.log.warn({ err: error }, 'realtime event not passed on'));
    });
    client.on('error', (error) => {
      this.log.warn({ err: error }, 'realtime listener lost its connection; reconnecting');
      void client.end().catch(() => undefined);
      if (this.#listener === client) this.#listener = undefined;
      setTimeout(
        () => void this.#listen().catch((e: unknown) => this.log.error({ err: e }, 'realtime listen failed')),
        1000,
      );
    });
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    this.#listener = client;
  }

  register(app: FastifyInstance) {
    app.get(REALTIME_PATH, { websocket: true, schema: { hide: true } }, async (socket, request) => {
      const query = request.query as { access_token?: string };
      const header = request.headers.authorization;
      const token = query.access_token ?? (header?.startsWith('Bearer ') ? header.slice(7) : undefined);
      const principal = token ? await this.auth.verifyBearer(token).catch(() => null) : null;
      if (!principal) {
        socket.close(CLOSE_SIGNED_OUT, 'unauthorized');
        return;
      }
      const connection: Connection = { socket, ...principal };
      let set = this.#byOrg.get(principal.organizationId);
      if (!set) this.#byOrg.set(principal.organizationId, (set = new Set()));
      set.add(connection);
      socket.on('close', () => {
        set.delete(connection);
        if (set.size === 0) this.#byOrg.delete(principal.organizationId);
      });
      socket.on('message', (raw) => {
        // Clients only ping; anything else is ignored.
        if (raw.toString() === 'ping') socket.send(JSON.stringify({ type: 'pong', data: null }));
      });
      this.#send(connection, { type: 'hello', data: { userId: principal.userId } });
    });
  }

  async dispatch(message: BusMessage): Promise<void> {
    if ('sessionIds' in message) {
      for (const set of this.#byOrg.values()) {
        for (const c of set) {
          if (message.sessionIds.includes(c.sessionId)) {
            c.socket.close(CLOSE_SIGNED_OUT, 'signed out');
          }
        }
      }
      return;
    }
    if (!('data' in message)) {
      // `$access-changed`: the only control event that carries no data.
      await Promise.all(
        [...(this.#byOrg.get(message.organizationId) ?? [])].map((c) => this.#reloadAccess(c)),
      );
      return;
    }
    for (const c of this.#byOrg.get(message.organizationId) ?? []) {
      if (message.userId && message.userId !== c.userId) continue;
      if (message.service && !c.access.services[message.service]) continue;
      this.#send(c, { type: message.type, data: message.data });
    }
  }

  async #reloadAccess(c: Connection) {
    try {
      c.access = await this.auth.accessOf(c.organizationId, c.userId);
    } catch (error) {
      this.log.warn({ err: error }, 'could not read a member ACL again; keeping the previous one');
    }
  }

  #send(c: Connection, message: RealtimeMessage) {
    if (c.socket.readyState === c.socket.OPEN) c.socket.send(JSON.stringify(message));
  }

  get connectionCount() {
    let n = 0;
    for (const set of this.#byOrg.values()) n += set.size;
    return n;
  }

  async stop() {
    this.#stopped = true;
    for (const set of this.#byOrg.values()) for (const c of set) c.socket.close(1001, 'server shutting down');
    this.#byOrg.clear();
    await this.#listener?.end().catch(() => undefined);
  }
}

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOSE_SIGNED_OUT, RealtimeClient, type RealtimeSocket } from './realtime.ts';

/** A fake WebSocket class: records the URL and lets the test open, close and feed it messages. */
class FakeSocket implements RealtimeSocket {
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closedByClient = false;

  constructor(readonly url: string) {}

  close(): void {
    this.closedByClient = true;
  }

  serverOpens(): void {
    this.onopen?.(new Event('open'));
  }

  serverSends(message: unknown): void {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(message) }));
  }

  connectionDrops(): void {
    this.onclose?.(new CloseEvent('close', { code: 1006 }));
  }

  hubSignsOut(): void {
    this.onclose?.(new CloseEvent('close', { code: CLOSE_SIGNED_OUT }));
  }
}

function setup(initialToken: string | null = 'jwt-token') {
  let token = initialToken;
  const sockets: FakeSocket[] = [];
  const log = vi.fn<(text: string) => void>();
  const client = new RealtimeClient({
    getToken: () => token,
    createSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    buildUrl: (value) => `ws://cumulo.test/rm?access_token=${value}`,
    log,
  });
  const last = (): FakeSocket => {
    const socket = sockets.at(-1);
    if (!socket) throw new Error('no socket was opened');
    return socket;
  };
  const storeToken = (value: string) => {
    token = value;
  };
  return { client, sockets, log, last, storeToken };
}

describe('realtime client (fake WebSocket class, fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('opens nothing while no token is stored', () => {
    const { client, sockets } = setup(null);
    client.start();
    expect(sockets).toHaveLength(0);
    expect(client.status).toBe('stopped');
  });

  it('connects to /rm with the stored token', () => {
    const { client, last } = setup('abc');
    client.start();
    expect(last().url).toBe('ws://cumulo.test/rm?access_token=abc');
  });

  it('reconnects after 0, 0 and 10000 ms, then keeps trying every 10000 ms', () => {
    const { client, sockets, last, log } = setup();
    client.start();
    last().serverOpens();

    last().connectionDrops();
    expect(log).toHaveBeenLastCalledWith('RTM Failed');
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(0);
    expect(sockets).toHaveLength(2);

    last().connectionDrops();
    vi.advanceTimersByTime(0);
    expect(sockets).toHaveLength(3);

    last().connectionDrops();
    vi.advanceTimersByTime(9999);
    expect(sockets).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(4);

    last().connectionDrops();
    vi.advanceTimersByTime(9999);
    expect(sockets).toHaveLength(4);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(5);
  });

  it('starts the delays over once the hub has spoken on a connection', () => {
    const { client, sockets, last } = setup();
    client.start();
    last().connectionDrops();
    vi.advanceTimersByTime(0);
    last().connectionDrops();
    vi.advanceTimersByTime(0);
    expect(sockets).toHaveLength(3);

    last().serverSends({ type: 'hello', data: {} });
    last().connectionDrops();
    vi.advanceTimersByTime(0);
    expect(sockets).toHaveLength(4);
  });

  it('hands each message to the subscribers of its type', () => {
    const { client, last } = setup();
    const hello = vi.fn();
    const progress = vi.fn();
    client.subscribe('hello', hello);
    const unsubscribe = client.subscribe('progress', progress);
    client.start();

    last().serverSends({ type: 'hello', data: { userId: 'u1' } });
    last().serverSends({ type: 'progress', data: { percent: 10 } });
    unsubscribe();
    last().serverSends({ type: 'progress', data: { percent: 20 } });

    expect(hello).toHaveBeenCalledWith({ userId: 'u1' });
    expect(progress).toHaveBeenCalledTimes(1);
    expect(progress).toHaveBeenCalledWith({ percent: 10 });
  });

  it('stops on purpose: closes, logs RTM Stopped and never reconnects', () => {
    const { client, sockets, last, log } = setup();
    client.start();
    const socket = last();
    client.stop();

    expect(socket.closedByClient).toBe(true);
    expect(log).toHaveBeenCalledWith('RTM Stopped');
    expect(log).not.toHaveBeenCalledWith('RTM Failed');
    socket.connectionDrops();
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(client.status).toBe('stopped');
  });

  it('gives up when the hub signs the token out', () => {
    const { client, sockets, last, log } = setup();
    client.start();
    last().hubSignsOut();

    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(log).toHaveBeenCalledWith('RTM Failed');
    expect(client.status).toBe('stopped');
  });

  it('reconnects with a newer token when the hub signs the old one out', () => {
    const { client, sockets, last, storeToken } = setup('old-token');
    client.start();
    storeToken('new-token');
    last().hubSignsOut();

    vi.advanceTimersByTime(0);
    expect(sockets).toHaveLength(2);
    expect(last().url).toBe('ws://cumulo.test/rm?access_token=new-token');
  });

  it('cancels a pending reconnect when stopped', () => {
    const { client, sockets, last } = setup();
    client.start();
    last().connectionDrops();
    last().connectionDrops();
    client.stop();
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
  });
});

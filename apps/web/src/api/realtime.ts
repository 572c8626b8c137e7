import { useEffect, useRef } from 'react';
import {
  CLOSE_SIGNED_OUT,
  REALTIME_PATH,
  REALTIME_RECONNECT_DELAYS_MS,
  type RealtimeMessage,
} from '@cumulo/contract';
import { getStoredToken } from './auth-token.ts';

/** The part of the browser WebSocket the client uses, so tests can pass a fake one. */
export interface RealtimeSocket {
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  close(code?: number, reason?: string): void;
}

export { CLOSE_SIGNED_OUT };

export type RealtimeHandler = (data: unknown) => void;

export type RealtimeStatus = 'idle' | 'connecting' | 'open' | 'waiting' | 'stopped';

export interface RealtimeOptions {
  getToken: () => string | null;
  createSocket?: (url: string) => RealtimeSocket;
  /** Where the hub lives; defaults to the page's origin with ws/wss. */
  buildUrl?: (token: string) => string;
  delays?: readonly number[];
  log?: (text: string) => void;
}

/** The `{ type, data }` envelope, checked by hand so the first load does not carry zod. */
function isRealtimeMessage(value: unknown): value is RealtimeMessage {
  return (
    Boolean(value) && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string'
  );
}

function defaultUrl(token: string): string {
  const origin = window.location.origin.replace(/^http/, 'ws');
  return `${origin}${REALTIME_PATH}?access_token=${encodeURIComponent(token)}`;
}

/**
 * Client of the /rm hub (spec 000 §4, 002 §4): opened only while a token is stored, messages are
 * `{ type, data }`. After an unplanned close it reconnects after 0, 0 and 10000 ms, then keeps trying every
 * 10000 ms (the last delay) until stopped; the count starts over once the hub has sent a message, so a socket
 * that the hub closes straight away never reconnects in a tight loop. When the hub closes with
 * CLOSE_SIGNED_OUT for the token still stored, the client stops: retrying cannot succeed, and the next API call
 * answers 401 and asks the user to sign in again.
 */
export class RealtimeClient {
  private readonly getToken: () => string | null;
  private readonly createSocket: (url: string) => RealtimeSocket;
  private readonly buildUrl: (token: string) => string;
  private readonly delays: readonly number[];
  private readonly log: (text: string) => void;
  private readonly handlers = new Map<string, Set<RealtimeHandler>>();
  private socket: RealtimeSocket | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private currentStatus: RealtimeStatus = 'idle';

  constructor(options: RealtimeOptions) {
    this.getToken = options.getToken;
    this.createSocket = options.createSocket ?? ((url) => new WebSocket(url));
    this.buildUrl = options.buildUrl ?? defaultUrl;
    this.delays = options.delays ?? REALTIME_RECONNECT_DELAYS_MS;
    this.log = options.log ?? ((text) => console.info(text));
  }

  get status(): RealtimeStatus {
    return this.currentStatus;
  }

  /** Opens the connection when a token is stored; does nothing while already running. */
  start(): void {
    if (this.socket || this.retryTimer) return;
    this.failures = 0;
    this.connect();
  }

  /** Deliberate stop (sign-out, leaving the signed-in area): closes and never reconnects. */
  stop(): void {
    const wasRunning = this.socket !== null || this.retryTimer !== null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.onerror = null;
      socket.onmessage = null;
      socket.onopen = null;
      socket.close(1000, 'stopped');
    }
    if (wasRunning) this.log('RTM Stopped');
    this.currentStatus = 'stopped';
  }

  /** Reconnects with the token stored now (after a password change revoked the old one). */
  restart(): void {
    this.stop();
    this.start();
  }

  /** Calls the handler with the `data` of every message of this type; returns the unsubscribe function. */
  subscribe(type: string, handler: RealtimeHandler): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  private connect(): void {
    this.retryTimer = null;
    const token = this.getToken();
    if (!token) {
      this.currentStatus = 'stopped';
      return;
    }
    let socket: RealtimeSocket;
    try {
      socket = this.createSocket(this.buildUrl(token));
    } catch {
      this.fail();
      return;
    }
    this.socket = socket;
    this.currentStatus = 'connecting';
    socket.onopen = () => {
      this.currentStatus = 'open';
    };
    socket.onmessage = (event) => {
      this.failures = 0;
      this.dispatch(event.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (event.code === CLOSE_SIGNED_OUT && this.getToken() === token) {
        this.log('RTM Failed');
        this.currentStatus = 'stopped';
        return;
      }
      this.fail();
    };
  }

  private fail(): void {
    this.log('RTM Failed');
    const delay = this.delays[Math.min(this.failures, this.delays.length - 1)] ?? 0;
    this.failures += 1;
    this.currentStatus = 'waiting';
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private dispatch(raw: unknown): void {
    if (typeof raw !== 'string') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return;
    }
    if (!isRealtimeMessage(parsed)) return;
    const set = this.handlers.get(parsed.type);
    if (!set) return;
    for (const handler of [...set]) handler(parsed.data);
  }
}

/**
 * How often a list whose rows are still live re-reads itself: a message missed while the socket was reconnecting,
 * or sent between a page's first read and its subscription, is caught up this way.
 */
export const MISSED_MESSAGE_POLL_MS = 15_000;

/** The app's one connection to the hub. */
export const realtime = new RealtimeClient({ getToken: getStoredToken });

/** Keeps the hub connection open while the calling component (the signed-in layout) is mounted. */
export function useRealtimeConnection(): void {
  useEffect(() => {
    realtime.start();
    return () => realtime.stop();
  }, []);
}

/** Subscribes to one message type of the hub for the lifetime of the component. */
export function useRealtimeMessage(type: string, handler: RealtimeHandler): void {
  const handlerRef = useRef(handler);
  useEffect(() => {
    handlerRef.current = handler;
  });
  useEffect(() => realtime.subscribe(type, (data) => handlerRef.current(data)), [type]);
}

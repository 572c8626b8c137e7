import { act } from 'react';

/** A WebSocket stand-in that lets a test play the /rm hub; the app's realtime client builds it. */
export class HubSocket {
  static opened: HubSocket[] = [];
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  constructor(readonly url: string) {
    HubSocket.opened.push(this);
  }
  close(): void {}
}

/** Delivers one hub message to the app. */
export function hubSends(message: unknown): void {
  // StrictMode starts, stops and restarts the connection: the last socket is the live one.
  const socket = HubSocket.opened.at(-1);
  if (!socket?.onmessage) throw new Error('the realtime client has no open socket');
  const { onmessage } = socket;
  act(() => onmessage(new MessageEvent('message', { data: JSON.stringify(message) })));
}

import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { defineAntdButtonVarsForJsdom } from './jsdom-antd-vars.ts';

// The first visit of a lazy route transforms its modules on demand, which can take a few seconds here.
configure({ asyncUtilTimeout: 5000 });

// jsdom lacks these browser APIs; antd's layout components (Menu, Sider, Tooltip) call them.
class ResizeObserverStub {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
if (!('ResizeObserver' in window)) {
  Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
}
if (!window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string): MediaQueryList => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }),
  });
}

/**
 * The signed-in layout opens the real-time hub. Tests have no hub, so WebSocket is replaced by an inert fake
 * that stays connecting; src/api/realtime.spec.ts covers the client with its own fake socket.
 */
class InertWebSocket {
  onopen = null;
  onmessage = null;
  onclose = null;
  onerror = null;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
  }
  close(): void {}
}

beforeEach(() => {
  vi.stubGlobal('WebSocket', InertWebSocket);
});

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});

// Deep antd screens otherwise make every getComputedStyle (each getByRole) take exponential time in jsdom.
beforeEach(() => defineAntdButtonVarsForJsdom());

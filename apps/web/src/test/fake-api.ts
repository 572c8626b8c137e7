import { vi } from 'vitest';

export interface FakeReply {
  status: number;
  body?: unknown;
}

export interface RecordedCall {
  method: string;
  path: string;
  search: string;
  body: unknown;
  headers: Headers;
}

type Handler = FakeReply | ((call: RecordedCall) => FakeReply | Promise<FakeReply>);

/**
 * Replaces the network: `fetch` is stubbed (vi.stubGlobal) with answers keyed by "METHOD /api/path".
 * A call without an answer gets a 404 so a test never reaches a real server. Returns the recorded calls.
 */
export function stubApi(handlers: Record<string, Handler>): RecordedCall[] {
  const calls: RecordedCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input), 'http://localhost');
      const call: RecordedCall = {
        method: init?.method ?? 'GET',
        path: url.pathname,
        search: url.search,
        body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
        headers: new Headers(init?.headers),
      };
      calls.push(call);
      const handler = handlers[`${call.method} ${call.path}`];
      const reply: FakeReply = handler
        ? typeof handler === 'function'
          ? await handler(call)
          : handler
        : { status: 404, body: { message: `No fake answer for ${call.method} ${call.path}` } };
      return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
        status: reply.status,
        headers: { 'Content-Type': 'application/json' },
      });
    }),
  );
  return calls;
}

import { vi } from 'vitest';
import {
  AGENT_KEY_HEADER,
  type AgentHeartbeat,
  type AgentLocalFile,
  type AgentTransfer,
} from '@cumulo/contract';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';

/**
 * The local transfer agent (http://127.0.0.1:<port>) as the page's specs see it: `fetch` to 127.0.0.1 answers from
 * this fake, every other call goes to the stubbed API. It is a stand-in for the page's side only; the real agent
 * process (its Host, Origin, key and path rules, transfers) is tested in apps/agent and in the e2e.
 */

export const AGENT_DEVICE_ID = '5d0a3c1e-8f4b-4a2d-9c6e-7b1f2e3d4c5a';
export const AGENT_CONNECTION_KEY = 'connection-key-1';

export interface FakeAgent {
  running: boolean;
  paired: boolean;
  /** What each folder holds: '/' → the added folders, '/Photos' → its items. */
  folders: Record<string, AgentLocalFile[]>;
  transfers: AgentTransfer[];
  /** The next listing fails as if the agent died mid-call (no answer, and no heartbeat after it). */
  dieOnList?: boolean;
}

/** A local file ('/Photos/a.jpg') or folder ('/Photos/'), as GET /files lists it. */
export function localItem(path: string, size = 4096): AgentLocalFile {
  const folder = path.endsWith('/');
  const clean = path.replace(/\/$/, '');
  return {
    name: clean.split('/').at(-1) ?? clean,
    path: clean,
    size: folder ? -1 : size,
    isFile: !folder,
    isDirectory: folder,
    modified: '2025-06-03T09:30:00.000Z',
  };
}

export function fakeAgent(overrides: Partial<FakeAgent> = {}): FakeAgent {
  return {
    running: true,
    paired: true,
    folders: {
      '/': [localItem('/Photos/'), localItem('/Empty/')],
      '/Photos': [localItem('/Photos/2024/'), localItem('/Photos/beach.jpg', 3 * 1024 * 1024)],
      '/Photos/2024': [localItem('/Photos/2024/party.jpg')],
      '/Empty': [],
    },
    transfers: [],
    ...overrides,
  };
}

export function agentTransfer(overrides: Partial<AgentTransfer> = {}): AgentTransfer {
  return {
    transferID: 'transfer-1',
    status: 'running',
    currentFilename: '',
    rateAverageInKBperSecond: 0,
    transferDirection: 'upload',
    timeRemaining: -1,
    percent: 0,
    bucket: 'archive',
    items: [],
    totalBytes: 0,
    transferredBytes: 0,
    filesTotal: 1,
    filesDone: 0,
    resumed: false,
    retried: false,
    listedWhole: true,
    startedAt: '2025-06-03T09:30:00.000Z',
    endedAt: null,
    transferErrors: [],
    fileTransfers: [],
    ...overrides,
  };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function agentReply(agent: FakeAgent, call: RecordedCall): Response {
  const route = `${call.method} ${call.path}`;
  if (route === 'GET /heartbeat') {
    const beat: AgentHeartbeat = {
      running: true,
      version: '1.0.0',
      platform: 'linux',
      paired: agent.paired,
      device_id: agent.paired ? AGENT_DEVICE_ID : null,
      pairing: false,
    };
    return json(200, beat);
  }
  if (route === 'POST /connect') return json(200, { data: { connectionKey: AGENT_CONNECTION_KEY } });
  if (call.headers.get(AGENT_KEY_HEADER) !== AGENT_CONNECTION_KEY)
    return json(401, {
      message: 'Connect to the transfer agent first: this call has no valid connection key.',
    });
  if (route === 'GET /files') {
    const query = new URLSearchParams(call.search);
    const items = agent.folders[query.get('path') ?? '/'];
    if (!items)
      return json(403, { message: 'This path is outside the folders added to the transfer agent.' });
    const skip = Number(query.get('skip') ?? 0);
    const limit = Number(query.get('limit') ?? 100);
    return json(200, { items: items.slice(skip, skip + limit), total: items.length });
  }
  if (route === 'POST /upload') return json(200, { transferID: 'transfer-1' });
  if (route === 'POST /download') return json(200, { transferID: 'transfer-2' });
  if (route === 'GET /status') return json(200, { data: { allTransfers: agent.transfers } });
  return json(404, { message: `No fake agent answer for ${route}` });
}

/**
 * Stubs the API (as stubApi) and the agent. Returns the API's calls and the agent's, each with its parsed body.
 * A ticket for the agent's device is always answered (the page's connect step).
 */
export function stubApiAndAgent(
  handlers: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)>,
  agent: FakeAgent,
) {
  const api = stubApi({
    'POST /api/agent/tickets': {
      status: 201,
      body: { ticket: 'ticket-1', expires_at: '2099-01-01T00:00:00.000Z' },
    },
    ...handlers,
  });
  const apiFetch = globalThis.fetch;
  const agentCalls: RecordedCall[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    if (url.hostname !== '127.0.0.1') return apiFetch(input, init);
    const call: RecordedCall = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      search: url.search,
      body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      headers: new Headers(init?.headers),
    };
    agentCalls.push(call);
    if (call.path === '/files' && agent.dieOnList) agent.running = false;
    // A stopped agent does not answer: the browser's fetch rejects, as for a closed port.
    if (!agent.running) throw new TypeError('Failed to fetch');
    return agentReply(agent, call);
  });
  return { api, agent: agentCalls };
}

import { vi } from 'vitest';
import {
  AGENT_KEY_HEADER,
  agentMessages,
  type AgentHeartbeat,
  type AgentLocalFile,
  type AgentTransfer,
} from '@cumulo/contract';
import { stubApi, type FakeReply, type RecordedCall } from '../../test/fake-api.ts';

/**
 * A stand-in for the local transfer agent at http://127.0.0.1:<port>, for the web specs only: jsdom cannot run
 * the agent process. It answers the calls of agent-client.ts in the contract's shapes and keeps the state a test
 * changes (running, paired, the folders, the transfers). The real agent process is tested in apps/agent (origin,
 * Host, key and path rules) and, with this page, in the e2e run.
 */
export interface FakeAgent {
  running: boolean;
  paired: boolean;
  /** Codes the page sent with POST /pair. */
  pairCodes: string[];
  /** Agent folder path ('/' lists the added folders) → its items. */
  folders: Record<string, AgentLocalFile[]>;
  transfers: AgentTransfer[];
  /** POST /cancel answers 500. */
  failCancel: boolean;
  /** Every call the page made to the agent (refused ones included). */
  calls: RecordedCall[];
}

export const FAKE_DEVICE_ID = '7d3f1c2a-4b5e-4f60-8a71-92b3c4d5e6f7';
export const FAKE_TICKET = 'ticket-1';
export const FAKE_KEY = 'connection-key-1';
export const PAIR_CODE = 'K7PM-Q2WX';

function localFolder(path: string): AgentLocalFile {
  return {
    name: path.split('/').filter(Boolean).at(-1) ?? path,
    path,
    size: -1,
    isFile: false,
    isDirectory: true,
    modified: null,
  };
}

export function localFile(path: string, size: number): AgentLocalFile {
  return {
    name: path.split('/').at(-1) ?? path,
    path,
    size,
    isFile: true,
    isDirectory: false,
    modified: '2026-11-20T10:00:00.000Z',
  };
}

export function buildTransfer(overrides: Partial<AgentTransfer> = {}): AgentTransfer {
  return {
    transferID: 'tr-1',
    status: 'running',
    currentFilename: 'report.pdf',
    rateAverageInKBperSecond: 2048,
    transferDirection: 'upload',
    timeRemaining: 200_000,
    percent: 42.6,
    bucket: 'photos',
    items: [],
    totalBytes: 10_485_760,
    transferredBytes: 4_466_000,
    filesTotal: 2,
    filesDone: 0,
    resumed: false,
    retried: false,
    listedWhole: true,
    startedAt: '2026-11-27T09:00:00.000Z',
    endedAt: null,
    transferErrors: [],
    fileTransfers: [],
    ...overrides,
  };
}

export function fakeAgent(overrides: Partial<Omit<FakeAgent, 'calls' | 'pairCodes'>> = {}): FakeAgent {
  return {
    running: true,
    paired: true,
    folders: {
      '/': [localFolder('/Projects')],
      '/Projects': [localFolder('/Projects/raw'), localFile('/Projects/report.pdf', 2_097_152)],
      '/Projects/raw': [],
    },
    transfers: [],
    failCancel: false,
    ...overrides,
    pairCodes: [],
    calls: [],
  };
}

const ok = (body: unknown): FakeReply => ({ status: 200, body });
const refused = (status: number, message: string): FakeReply => ({ status, body: { message } });

function answer(agent: FakeAgent, call: RecordedCall): FakeReply {
  const body = (call.body ?? {}) as Record<string, unknown>;
  if (call.method === 'GET' && call.path === '/heartbeat') {
    const beat: AgentHeartbeat = {
      running: true,
      version: '0.1.0',
      platform: 'linux',
      paired: agent.paired,
      device_id: agent.paired ? FAKE_DEVICE_ID : null,
      pairing: agent.pairCodes.length > 0 && !agent.paired,
    };
    return ok(beat);
  }
  if (call.method === 'POST' && call.path === '/pair') {
    agent.pairCodes.push(String(body.code));
    return ok({ message: 'Confirm the code in the terminal' });
  }
  if (call.method === 'POST' && call.path === '/connect') {
    return body.ticket === FAKE_TICKET
      ? ok({ data: { connectionKey: FAKE_KEY } })
      : refused(401, 'This connection ticket is not valid or has expired.');
  }
  if (call.headers.get(AGENT_KEY_HEADER) !== FAKE_KEY) {
    return refused(401, 'Connect to the transfer agent first: this call has no valid connection key.');
  }
  const query = new URLSearchParams(call.search);
  switch (`${call.method} ${call.path}`) {
    case 'GET /files': {
      const all = agent.folders[query.get('path') ?? '/'];
      if (!all) return refused(404, 'No such folder');
      // As the agent: the names that contain the search, whatever their case.
      const search = (query.get('search') ?? '').toLowerCase();
      const items = all.filter((item) => item.name.toLowerCase().includes(search));
      const skip = Number(query.get('skip') ?? 0);
      const limit = Number(query.get('limit') ?? 100);
      return ok({ items: items.slice(skip, skip + limit), total: items.length });
    }
    case 'POST /mkdir': {
      // As mkdir -p: every missing folder on the way is made.
      const segments = String(body.path).split('/').filter(Boolean);
      for (let depth = 1; depth <= segments.length; depth += 1) {
        const path = `/${segments.slice(0, depth).join('/')}`;
        if (agent.folders[path]) continue;
        const parent = depth === 1 ? '/' : `/${segments.slice(0, depth - 1).join('/')}`;
        agent.folders[parent] = [...(agent.folders[parent] ?? []), localFolder(path)];
        agent.folders[path] = [];
      }
      return ok({ message: 'created' });
    }
    case 'POST /delete': {
      const path = String(body.path);
      const parent = path.slice(0, path.lastIndexOf('/')) || '/';
      agent.folders[parent] = (agent.folders[parent] ?? []).filter((item) => item.path !== path);
      return ok({ message: 'deleted' });
    }
    case 'POST /upload':
    case 'POST /download': {
      const transferID = `tr-${agent.transfers.length + 1}`;
      agent.transfers.push(
        buildTransfer({ transferID, transferDirection: call.path === '/upload' ? 'upload' : 'download' }),
      );
      return ok({ transferID });
    }
    case 'POST /cancel': {
      if (agent.failCancel) return refused(500, 'Internal error');
      const transfer = agent.transfers.find((candidate) => candidate.transferID === body.transferID);
      if (!transfer) return refused(404, 'No transfer with this id.');
      transfer.status = 'cancelled';
      return ok({ message: 'cancelled' });
    }
    case 'POST /retry': {
      const transfer = agent.transfers.find((candidate) => candidate.transferID === body.transferID);
      if (transfer?.status !== 'failed' || transfer.retried)
        return refused(404, agentMessages.nothingToRetry);
      transfer.retried = true;
      const transferID = `tr-${agent.transfers.length + 1}`;
      agent.transfers.push(buildTransfer({ transferID, transferDirection: transfer.transferDirection }));
      return ok({ transferID });
    }
    case 'GET /status':
      return ok({ data: { allTransfers: agent.transfers } });
    default:
      return refused(404, `No fake agent answer for ${call.method} ${call.path}`);
  }
}

/**
 * Stubs `fetch` for both sides: calls to 127.0.0.1 reach the fake agent (a stopped agent refuses the connection as
 * a browser does: fetch rejects), every other call the API handlers of stubApi. Returns the API's recorded calls.
 */
export function stubAgentAndApi(
  agent: FakeAgent,
  handlers: Record<string, FakeReply | ((call: RecordedCall) => FakeReply)>,
): RecordedCall[] {
  const apiCalls = stubApi(handlers);
  const api = globalThis.fetch;
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    if (url.hostname !== '127.0.0.1') return api(input, init);
    const call: RecordedCall = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      search: url.search,
      body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      headers: new Headers(init?.headers),
    };
    agent.calls.push(call);
    if (!agent.running) throw new TypeError('Failed to fetch');
    const reply = answer(agent, call);
    return new Response(JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  return apiCalls;
}

/** The agent calls of one kind, e.g. 'POST /upload'. */
export function agentCalls(agent: FakeAgent, kind: string): RecordedCall[] {
  return agent.calls.filter((call) => `${call.method} ${call.path}` === kind);
}

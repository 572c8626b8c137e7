import {
  AGENT_DEFAULT_PORT,
  AGENT_KEY_HEADER,
  agentConnectAnswer,
  agentFilesAnswer,
  agentHeartbeat,
  agentStatusAnswer,
  agentTransferStarted,
  type AgentFilesAnswer,
  type AgentHeartbeat,
  type AgentRemote,
  type AgentStatusAnswer,
} from '@cumulo/contract';

/**
 * Calls of the local transfer agent (apps/agent) at http://127.0.0.1:<port> (spec 001 §7 "Agent"). The agent
 * answers only this origin (CORS) and only calls that carry the connection key of POST /connect, which the page
 * gets with a one-time ticket of the server (agent-api.ts `useAgentTicket`).
 */

const PORT_KEY = 'cumulo.agentPort';

/** The agent's port: AGENT_DEFAULT_PORT unless the user started it on another one (saved on /desktop). */
export function agentPort(): number {
  const saved = Number(globalThis.localStorage?.getItem(PORT_KEY));
  return Number.isInteger(saved) && saved > 0 && saved < 65536 ? saved : AGENT_DEFAULT_PORT;
}
export function setAgentPort(port: number) {
  localStorage.setItem(PORT_KEY, String(port));
}
export const agentBaseUrl = () => `http://127.0.0.1:${agentPort()}`;

/** A failed agent call: status 0 when the agent did not answer at all (not running). */
export class AgentError extends Error {
  override readonly name = 'AgentError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
  /** The agent no longer knows the key (it restarted, or its device was revoked): connect again. */
  get keyRejected() {
    return this.status === 401;
  }
}

async function call(
  path: string,
  options: { method?: 'GET' | 'POST'; body?: unknown; key?: string | null; signal?: AbortSignal } = {},
): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.key) headers[AGENT_KEY_HEADER] = options.key;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${agentBaseUrl()}${path}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      cache: 'no-store',
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new AgentError(0, 'Transfer agent is not running');
  }
  const text = await response.text();
  let payload: unknown = null;
  try {
    payload = text ? JSON.parse(text) : null;
  } catch {
    payload = null;
  }
  if (!response.ok) {
    const message =
      payload && typeof payload === 'object' && 'message' in payload && typeof payload.message === 'string'
        ? payload.message
        : response.statusText || `HTTP ${response.status}`;
    throw new AgentError(response.status, message);
  }
  return payload;
}

export const agentClient = {
  heartbeat: async (signal?: AbortSignal): Promise<AgentHeartbeat> =>
    agentHeartbeat.parse(await call('/heartbeat', { signal })),
  pair: async (code: string) => call('/pair', { method: 'POST', body: { code } }),
  connect: async (ticket: string): Promise<string> =>
    agentConnectAnswer.parse(await call('/connect', { method: 'POST', body: { ticket } })).data.connectionKey,
  /** A page of a local folder; with `search`, of the names that contain it (any case). */
  files: async (key: string, path: string, skip = 0, limit = 100, search = ''): Promise<AgentFilesAnswer> =>
    agentFilesAnswer.parse(
      await call(
        `/files?${new URLSearchParams({
          path,
          skip: String(skip),
          limit: String(limit),
          ...(search ? { search } : {}),
        }).toString()}`,
        { key },
      ),
    ),
  upload: async (key: string, paths: string[], remoteDirectory: AgentRemote): Promise<string> =>
    agentTransferStarted.parse(
      await call('/upload', { method: 'POST', key, body: { paths, remoteDirectory } }),
    ).transferID,
  download: async (
    key: string,
    body: { remotePaths: string[]; cloud_account_id: string; bucket_name: string; localPath: string },
  ): Promise<string> =>
    agentTransferStarted.parse(await call('/download', { method: 'POST', key, body })).transferID,
  cancel: async (key: string, transferID: string) =>
    call('/cancel', { method: 'POST', key, body: { transferID } }),
  /** Starts a new transfer of the failed files of an ended one. */
  retry: async (key: string, transferID: string): Promise<string> =>
    agentTransferStarted.parse(await call('/retry', { method: 'POST', key, body: { transferID } }))
      .transferID,
  status: async (key: string): Promise<AgentStatusAnswer> =>
    agentStatusAnswer.parse(await call('/status', { key })),
  deleteFile: async (key: string, path: string) => call('/delete', { method: 'POST', key, body: { path } }),
  createDirectory: async (key: string, path: string) =>
    call('/mkdir', { method: 'POST', key, body: { path } }),
  share: async (
    key: string,
    body: { cloud_account_id: string; bucket_name: string; paths: string[]; recipients: string[] },
  ) => call('/share', { method: 'POST', key, body }),
};

/** Spec 001 §5: local paths for the agent get a leading slash when missing. */
export function agentPath(path: string): string {
  return path.startsWith('/') ? path : `/${path}`;
}

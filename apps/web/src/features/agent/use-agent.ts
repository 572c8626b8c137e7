import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AGENT_HEARTBEAT_MS,
  AGENT_LAUNCH_URL,
  AGENT_LAUNCH_WAIT_MS,
  AGENT_TRANSFER_POLL_MS,
  agentMessages,
  type AgentHeartbeat,
  type AgentTransfer,
} from '@cumulo/contract';
import { ApiError } from '../../api/client.ts';
import { AgentError, agentClient } from './agent-client.ts';
import { agentKeys, createTicket } from './agent-api.ts';

/**
 * Spec 001 §4 "Transfer agent", one state for every screen that uses the agent:
 * - not running until the heartbeat (every AGENT_HEARTBEAT_MS) answers; a failed heartbeat or listing while running
 *   sets it not running again, and polling goes on;
 * - once running and paired, it connects to the transfer server: the page gets a one-time ticket from the server
 *   and the agent trades it for a connection key; a failure is the "server error" (its message, else the HTTP
 *   status text), which stops the transfer poll until Retry;
 * - transfers are polled every AGENT_TRANSFER_POLL_MS while running, connected and no server error;
 * - launch opens the `cumulo-agent://` link, waits AGENT_LAUNCH_WAIT_MS, then connects (heartbeat now).
 */

// The connection key and the server error, shared by every component (one agent, one connection).
interface Connection {
  key: string | null;
  deviceId: string | null;
  serverError: string | null;
}
const STORAGE_KEY = 'cumulo.agentConnection';
let connection: Connection = readStored();
const listeners = new Set<() => void>();

function readStored(): Connection {
  try {
    const saved = JSON.parse(globalThis.sessionStorage?.getItem(STORAGE_KEY) ?? 'null') as Connection | null;
    if (saved && typeof saved.key === 'string') return { ...saved, serverError: null };
  } catch {
    // a damaged entry: connect afresh
  }
  return { key: null, deviceId: null, serverError: null };
}
function setConnection(next: Partial<Connection>) {
  connection = { ...connection, ...next };
  try {
    sessionStorage.setItem(
      STORAGE_KEY,
      JSON.stringify({ key: connection.key, deviceId: connection.deviceId }),
    );
  } catch {
    // private mode: the key lives in memory only
  }
  for (const listener of listeners) listener();
}
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const snapshot = () => connection;
let connecting: Promise<void> | null = null;

/** Forgets the key and any server error (a test's fresh start; a new user on the tab). */
export function resetAgentConnection() {
  connecting = null;
  setConnection({ key: null, deviceId: null, serverError: null });
}

/** Drops the key (the agent refused it): the next heartbeat connects again. */
export function forgetAgentKey() {
  setConnection({ key: null });
}

async function connect(deviceId: string) {
  connecting ??= (async () => {
    try {
      const { ticket } = await createTicket(deviceId);
      const key = await agentClient.connect(ticket);
      setConnection({ key, deviceId, serverError: null });
    } catch (error) {
      const message =
        error instanceof ApiError || error instanceof AgentError ? error.message : agentMessages.serverError;
      setConnection({ key: null, serverError: message || agentMessages.serverError });
    } finally {
      connecting = null;
    }
  })();
  return connecting;
}

export interface AgentState {
  /** The heartbeat answered (the last one). */
  running: boolean;
  heartbeat: AgentHeartbeat | null;
  /** Running but not paired with any account: the page offers to pair. */
  needsPairing: boolean;
  /** Connected: a connection key is held. */
  key: string | null;
  serverError: string | null;
  launching: boolean;
  transfers: AgentTransfer[];
  launch(): void;
  /** Heartbeat now (and connect when paired). */
  refresh(): Promise<void>;
  /** Retry after a server error: clears it and connects again. */
  retry(): Promise<void>;
  /** Call after an agent call failed: 0 marks not running, 401 drops the key. */
  reportFailure(error: unknown): void;
}

export function useAgent(
  options: {
    pollTransfers?: boolean;
    /** False: no heartbeat at all (a screen where ftX is not chosen need not knock on 127.0.0.1 every 5 s). */
    enabled?: boolean;
  } = {},
): AgentState {
  const enabled = options.enabled !== false;
  const queryClient = useQueryClient();
  const state = useSyncExternalStore(subscribe, snapshot, snapshot);
  const [launching, setLaunching] = useState(false);

  const heartbeat = useQuery({
    queryKey: agentKeys.heartbeat,
    queryFn: ({ signal }) => agentClient.heartbeat(signal),
    refetchInterval: AGENT_HEARTBEAT_MS,
    refetchIntervalInBackground: true,
    retry: false,
    staleTime: 0,
    enabled,
  });
  const beat = !enabled || heartbeat.isError ? null : (heartbeat.data ?? null);
  const running = beat !== null;
  const deviceId = beat?.paired ? beat.device_id : null;

  // A new device (paired again, or another agent on the port) or a revoked one: its old key is worthless. Only
  // once the heartbeat has answered (or failed): while the first one is under way, a key kept from this tab's
  // last visit is still good.
  const beatSettled = !heartbeat.isPending;
  useEffect(() => {
    if (beatSettled && state.key && state.deviceId !== deviceId) setConnection({ key: null, deviceId });
  }, [beatSettled, deviceId, state.key, state.deviceId]);
  useEffect(() => {
    if (running && deviceId && !state.key && !state.serverError) void connect(deviceId);
  }, [running, deviceId, state.key, state.serverError]);

  const connected = running && deviceId !== null && state.key !== null && state.serverError === null;
  const status = useQuery({
    queryKey: agentKeys.status(state.key),
    queryFn: () => agentClient.status(state.key ?? ''),
    enabled: connected && options.pollTransfers !== false,
    refetchInterval: AGENT_TRANSFER_POLL_MS,
    retry: false,
  });
  useEffect(() => {
    const error = status.error;
    if (error instanceof AgentError) {
      if (error.keyRejected) forgetAgentKey();
      else if (error.status === 0) void queryClient.invalidateQueries({ queryKey: agentKeys.heartbeat });
      else setConnection({ serverError: error.message });
    }
  }, [status.error, queryClient]);

  const refresh = useCallback(async () => {
    await queryClient.refetchQueries({ queryKey: agentKeys.heartbeat });
  }, [queryClient]);

  const launch = useCallback(() => {
    setLaunching(true);
    // A hidden frame opens the link, so the page stays where it is when no handler is installed.
    const frame = document.createElement('iframe');
    frame.style.display = 'none';
    frame.src = AGENT_LAUNCH_URL;
    document.body.appendChild(frame);
    window.setTimeout(() => {
      frame.remove();
      setLaunching(false);
      void refresh();
    }, AGENT_LAUNCH_WAIT_MS);
  }, [refresh]);

  const retry = useCallback(async () => {
    setConnection({ serverError: null, key: null });
    await refresh();
  }, [refresh]);

  const reportFailure = useCallback(
    (error: unknown) => {
      if (!(error instanceof AgentError)) return;
      // Spec §4: the failed call marks the agent not running at once (the reset drops the last heartbeat);
      // the heartbeat asked again says whether it is back.
      if (error.status === 0) void queryClient.resetQueries({ queryKey: agentKeys.heartbeat });
      else if (error.keyRejected) forgetAgentKey();
    },
    [queryClient],
  );

  return {
    running,
    heartbeat: beat,
    needsPairing: running && beat?.paired === false,
    key: connected ? state.key : null,
    serverError: state.serverError,
    launching,
    transfers: connected ? (status.data?.data.allTransfers ?? []) : [],
    launch,
    refresh,
    retry,
    reportFailure,
  };
}

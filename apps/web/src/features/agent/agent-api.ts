import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AGENT_HISTORY_LIMIT,
  AGENT_SERVICE,
  agentDevicesAnswer,
  agentHistoryAnswer,
  agentMessages,
  agentPairingCode,
  agentSummaryAnswer,
  agentTicketAnswer,
} from '@cumulo/contract';
import { ApiError, api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** The server's calls of the agent area (apps/server/src/modules/agent): pairing, devices, tickets, history. */

export const agentKeys = {
  all: ['agent'] as const,
  heartbeat: ['agent', 'heartbeat'] as const,
  status: (key: string | null) => ['agent', 'status', key] as const,
  files: (key: string | null, path: string) => ['agent', 'files', key, path] as const,
  devices: ['agent', 'devices'] as const,
  history: (page: number) => ['agent', 'history', page] as const,
  summary: (from: string, to: string) => ['agent', 'summary', from, to] as const,
};

async function createPairingCode() {
  return agentPairingCode.parse(await api.post('/agent/pairing-codes', {}));
}

export async function createTicket(deviceId: string) {
  return agentTicketAnswer.parse(await api.post('/agent/tickets', { device_id: deviceId }, { silent: true }));
}

export function useAgentDevices() {
  return useQuery({
    queryKey: agentKeys.devices,
    queryFn: async () => agentDevicesAnswer.parse(await api.get('/agent/devices')).devices,
  });
}

export function useRevokeDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/agent/devices/${id}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: agentKeys.all }),
  });
}

/**
 * Spec 001 §8: 'Files transfers are not activated for this user' also refreshes the profile, so the screens that
 * read the member's ftX service (the sidebar link, the devices card) follow a change an admin just made.
 */
export function useCreatePairingCode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createPairingCode,
    onError: (error) => {
      if (error instanceof ApiError && error.message === agentMessages.notActivated)
        void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
    },
  });
}

/** GET /transfers/history?limit&page&service (spec §7 history, page limit 100). */
export function useAgentHistory(page: number) {
  return useQuery({
    queryKey: agentKeys.history(page),
    queryFn: async () =>
      agentHistoryAnswer.parse(
        await api.get('/transfers/history', {
          query: { page, limit: AGENT_HISTORY_LIMIT, service: AGENT_SERVICE },
        }),
      ),
  });
}

/** GET /transfers/summary?start_date&end_date&service (spec §7 summary): count, size, cost. */
export function useAgentSummary(from: string, to: string) {
  return useQuery({
    queryKey: agentKeys.summary(from, to),
    queryFn: async () =>
      agentSummaryAnswer.parse(
        await api.get('/transfers/summary', {
          query: { start_date: from, end_date: to, service: AGENT_SERVICE },
        }),
      ),
  });
}

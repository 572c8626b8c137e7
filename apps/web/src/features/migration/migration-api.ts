import { useMutation } from '@tanstack/react-query';
import {
  costEstimate,
  transferMessages,
  transferStarted,
  type C2cMoveBody,
  type CostEstimate,
  type TransferBody,
  type TransferStarted,
  type UserProfile,
} from '@cumulo/contract';
import { ApiError, api } from '../../api/client.ts';

// The screens show every failure of these calls themselves (toasts), so none opens the shared 400 modal.

/** POST /transfer/transfer — a whole bucket, or everything under a prefix (/migration). */
export function useStartMigration() {
  return useMutation({
    mutationFn: async (body: TransferBody): Promise<TransferStarted> =>
      transferStarted.parse(await api.post('/transfer/transfer', body, { silent: true })),
  });
}

/**
 * POST /c2c/moveaws — the chosen files and folders of the two-panel screen (type 0 move, 1 copy); /wasabic2c
 * calls its twin /c2c/moveWasabi (spec 001 §7), the same transfer.
 */
export function useC2cMove(path: '/c2c/moveaws' | '/c2c/moveWasabi' = '/c2c/moveaws') {
  return useMutation({
    mutationFn: async (body: C2cMoveBody): Promise<TransferStarted> =>
      transferStarted.parse(await api.post(path, body, { silent: true })),
  });
}

/** POST /transfer/calculate_cost (the Migration Cost Calculator). */
export function useCalculateCost() {
  return useMutation({
    mutationFn: async (body: {
      sourceCloudAccountId: string;
      destinationCloudAccountId: string;
      size: number;
    }): Promise<CostEstimate> =>
      costEstimate.parse(await api.post('/transfer/calculate_cost', body, { silent: true })),
  });
}

/**
 * Spec 001 §4/§6: a transfer needs the organisation's confirmation of the charge (confirmed_c2c for Direct,
 * confirmed_ftx for ftX), unless it is flagged is_cbs.
 */
export function chargeConfirmed(profile: UserProfile | undefined, kind: 'c2c' | 'ftx' = 'c2c'): boolean {
  if (profile === undefined) return false;
  const { organization } = profile;
  return organization.is_cbs || (kind === 'ftx' ? organization.confirmed_ftx : organization.confirmed_c2c);
}

/** The server refused because the charge is not confirmed (another tab may have had a stale profile). */
export function isChargeRefusal(error: unknown): boolean {
  return (
    error instanceof ApiError && error.status === 403 && error.message === transferMessages.chargeNotConfirmed
  );
}

/** Spec 001 §8: the server's message, or the spec's enqueue failure text (network failure, no message). */
export function enqueueFailureText(error: unknown): string {
  if (error instanceof ApiError && error.body && typeof error.body === 'object' && 'message' in error.body) {
    const { message } = error.body;
    if (typeof message === 'string' && message) return message;
  }
  return transferMessages.enqueueFailed;
}

import type { AgentTransfer } from '@cumulo/contract';
import { vi } from 'vitest';
import type { TransferManager } from '../transfers/transfer-manager.ts';

/** The manager's view of a transfer once it has ended (GET /status's shape), waited for up to 10 s. */
export function endedTransfer(manager: TransferManager, id: string): Promise<AgentTransfer> {
  return vi.waitFor(
    () => {
      const view = manager.status().find((transfer) => transfer.transferID === id);
      if (!view?.endedAt) throw new Error('still under way');
      return view;
    },
    { timeout: 10_000 },
  );
}

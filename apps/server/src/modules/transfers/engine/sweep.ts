import { BATCH_STATUS } from '@cumulo/contract';
import type { Logger } from '../../../logger.ts';
import type { CloudAccountsRepo } from '../../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../../cloud-accounts/store-registry.ts';
import type { TransfersRepo } from '../transfers.repo.ts';
import type { TransferQueueRepo } from '../transfer-queue.repo.ts';
import type { CopyTask } from './copy-task.ts';
import { endpointKeyOf, type Copier, type TransferExecutor } from './executor.ts';
import { abortLostUploads } from './lost-uploads.ts';

/** Queues one job of a batch, after `delaySeconds` when its items are leased and may yet come back. */
export type EnqueueBatchJob = (batchId: string, delaySeconds: number) => Promise<void>;

const UPLOADS_PER_SWEEP = 200;

/**
 * Recovers what dead workers left: a live batch with no job waiting gets one (claimable items now, or live
 * leases: a job that starts when they would run out, and finds them renewed if their worker lives); a Canceling
 * batch is settled; the uploads of canceled and failed items are aborted so their parts stop costing, and so are
 * uploads the store opened for a settled item without the answer reaching its worker (lost-uploads.ts).
 */
export async function sweepTransfers(deps: {
  repo: TransfersRepo;
  itemQueue: TransferQueueRepo;
  executor: TransferExecutor;
  accounts: CloudAccountsRepo;
  stores: StoreRegistry;
  copier: Copier;
  enqueue: EnqueueBatchJob;
  log: Logger;
}) {
  const { repo, itemQueue, executor, accounts, stores, copier, enqueue, log } = deps;
  let queued = 0;
  for (const batch of await itemQueue.batchesToResume()) {
    if (batch.status === BATCH_STATUS.canceling) await executor.settleCancel(batch.id);
    if ((await repo.statusOf(batch.id)) !== BATCH_STATUS.ongoing) continue;
    await enqueue(batch.id, batch.leaseEndsIn === null ? 0 : Math.ceil(batch.leaseEndsIn) + 1);
    queued += 1;
  }
  let aborted = 0;
  for (const item of await itemQueue.abandonedUploads(UPLOADS_PER_SWEEP)) {
    const account = item.batch.destinationCloudAccountId
      ? await accounts.find(item.batch.organizationId, item.batch.destinationCloudAccountId)
      : undefined;
    if (!account) {
      await itemQueue.forgetUpload(item.id);
      continue;
    }
    const destination = {
      store: await stores.storeFor(account),
      accountId: account.id,
      bucket: item.batch.destinationBucket,
      endpointKey: endpointKeyOf(account, stores),
    };
    const task: CopyTask = {
      // An item with an upload went through a parts copy, whose method replaced any plan's 'present'.
      item: { ...item, method: item.method === 'present' ? null : item.method },
      source: destination,
      destination,
      ledger: itemQueue.ledger(''),
      signal: AbortSignal.abort(),
      onBytes: () => undefined,
    };
    try {
      await copier.abandonCopy(task);
      await itemQueue.forgetUpload(item.id);
      aborted += 1;
    } catch (error) {
      log.warn({ err: error, itemId: item.id }, 'could not abort the upload of a transfer item');
    }
  }
  aborted += await abortLostUploads({ itemQueue, accounts, stores, log }, UPLOADS_PER_SWEEP);
  return { queued, aborted };
}

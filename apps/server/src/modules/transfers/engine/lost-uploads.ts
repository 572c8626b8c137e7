import type { Logger } from '../../../logger.ts';
import type { CloudAccountsRepo } from '../../cloud-accounts/cloud-accounts.repo.ts';
import type { StoreRegistry } from '../../cloud-accounts/store-registry.ts';
import type { TransferQueueRepo } from '../transfer-queue.repo.ts';
import type { CopyTask } from './copy-task.ts';
import { storeTrouble } from './outage.ts';
import type { PartsCapability } from './methods/parallel-parts.ts';

/**
 * An upload the store opened but whose answer never reached the worker (the connection dropped after the store
 * acted: a store going down, a network cut) is named by no ledger, so neither the copy nor the sweep's abort of
 * failed items' uploads would ever discard it, and its parts would stay billed. The opening is noted with when it
 * was sent (`PartLedger.lostStart`); once the item has settled, the sweep lists the key's uploads in progress and
 * aborts those the store opened in that window that no transfer item names.
 */

/** Store clocks date an upload's opening, the worker's clock the window: a few seconds either side cover both. */
const CLOCK_SKEW_MS = 10_000;

/** After a failed opening of `task`'s upload, sent at `askedAt`: notes it when the store may have opened it. */
export async function noteLostStart(
  task: CopyTask,
  parts: PartsCapability,
  askedAt: Date,
  error: unknown,
): Promise<void> {
  // A refusal opened nothing; only where the store lists its uploads can a lost one be found again.
  if (!storeTrouble(error) || !parts.listUploads) return;
  // The copy's own error is what its caller needs; a database that does not take the note loses only the cleanup.
  await task.ledger.lostStart(task.item.id, askedAt, new Date()).catch(() => undefined);
}

/**
 * The sweep's part: for settled items with lost openings, aborts the uploads of their destination key the store
 * opened within the noted window (give or take the clock skew) that no transfer item records (another batch's copy
 * of the same key keeps its own). An item whose destination is unreachable is looked at again by the next sweep.
 */
export async function abortLostUploads(
  deps: {
    itemQueue: TransferQueueRepo;
    accounts: CloudAccountsRepo;
    stores: StoreRegistry;
    log: Logger;
  },
  limit: number,
): Promise<number> {
  const { itemQueue, accounts, stores, log } = deps;
  let aborted = 0;
  for (const item of await itemQueue.lostUploads(limit)) {
    const account = item.batch.destinationCloudAccountId
      ? await accounts.find(item.batch.organizationId, item.batch.destinationCloudAccountId)
      : undefined;
    const parts = account ? (await stores.storeFor(account)).capabilities.parts : undefined;
    if (!parts?.listUploads || !item.lostUploadFrom || !item.lostUploadUntil) {
      await itemQueue.forgetLostUpload(item.id);
      continue;
    }
    const bucket = item.batch.destinationBucket;
    const from = item.lostUploadFrom.getTime() - CLOCK_SKEW_MS;
    const until = item.lostUploadUntil.getTime() + CLOCK_SKEW_MS;
    try {
      const opened = (await parts.listUploads(bucket, item.destinationKey)).filter(
        (upload) =>
          upload.initiated !== null &&
          upload.initiated.getTime() >= from &&
          upload.initiated.getTime() <= until,
      );
      const recorded = await itemQueue.recordedUploads(opened.map((upload) => upload.uploadId));
      for (const { uploadId } of opened) {
        if (recorded.has(uploadId)) continue;
        await parts.abort({ bucket, key: item.destinationKey, uploadId });
        aborted += 1;
      }
      await itemQueue.forgetLostUpload(item.id);
    } catch (error) {
      log.warn({ err: error, itemId: item.id }, 'could not look for the lost uploads of a transfer item');
    }
  }
  return aborted;
}

import type { PgBoss } from 'pg-boss';
import { INVENTORY_JOBS_PER_ORG, LOCAL_CONCURRENCY, QUEUES } from '../../jobs/boss.ts';
import type { Logger } from '../../logger.ts';
import type { BucketInventory } from './bucket-inventory.ts';
import type { CloudAccountsRepo } from './cloud-accounts.repo.ts';

export interface InventoryJob {
  organizationId: string;
  accountId: string;
  /** Only this bucket (after a transfer changed it); every bucket of the account when absent. */
  bucket?: string;
}

/**
 * Queues one account's inventory, or one bucket's. The queue is `stately` (jobs/boss.ts): a job already waiting
 * for the account (or the bucket) absorbs the new request, and a request made while a walk runs gets one later
 * walk. Grouped by organisation, so the six-hourly sweep of a large organisation does not hold every slot.
 */
export function enqueueInventory(boss: PgBoss, { delaySeconds = 0 }: { delaySeconds?: number } = {}) {
  return async (job: InventoryJob) => {
    const singletonKey = job.bucket === undefined ? job.accountId : `${job.accountId}/${job.bucket}`;
    await boss.send(QUEUES.inventoryAccount, job, {
      singletonKey,
      group: { id: job.organizationId },
      ...(delaySeconds > 0 ? { startAfter: delaySeconds } : {}),
    });
  };
}

/**
 * How long a bucket's recount waits after a browser upload or delete changed it: the uploads and deletes of that
 * while are counted by one walk of the bucket (the waiting job absorbs the later requests), not one walk each.
 */
export const RECOUNT_AFTER_CHANGE_SECONDS = 20;

/** Inventory handlers: one per account (on connect, on demand), and a sweep every six hours. */
export async function registerInventoryJobs(
  boss: PgBoss,
  inventory: BucketInventory,
  repo: CloudAccountsRepo,
  log: Logger,
  schedule: boolean,
  /** Runs after each finished inventory (the alert check). */
  afterInventory: (organizationId: string) => Promise<void> = async () => {},
) {
  const options = {
    localConcurrency: LOCAL_CONCURRENCY[QUEUES.inventoryAccount],
    groupConcurrency: INVENTORY_JOBS_PER_ORG,
  };
  await boss.work<InventoryJob>(QUEUES.inventoryAccount, options, async ([job]) => {
    if (!job) return;
    const totals = await inventory.run(job.data.organizationId, job.data.accountId, job.data.bucket);
    log.info({ accountId: job.data.accountId, ...totals }, 'bucket inventory done');
    await afterInventory(job.data.organizationId);
    return totals;
  });
  await boss.work(QUEUES.inventorySweep, async () => {
    const enqueue = enqueueInventory(boss);
    const accounts = await repo.allAccountIds();
    for (const account of accounts)
      await enqueue({ organizationId: account.organizationId, accountId: account.id });
    return { queued: accounts.length };
  });
  if (schedule) await boss.schedule(QUEUES.inventorySweep, '23 */6 * * *');
}

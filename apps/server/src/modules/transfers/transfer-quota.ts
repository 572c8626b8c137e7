import { BATCH_STATUS, billingMessages, formatBytes, quotaRemaining } from '@cumulo/contract';
import { QuotaExceeded, type Entitlements } from '../billing/entitlements.ts';
import type { TransfersRepo } from './transfers.repo.ts';

const FINISHED = [BATCH_STATUS.completed, BATCH_STATUS.canceled, BATCH_STATUS.failed] as number[];

/** The reservation of one batch on the organisation's c2c quota. */
const transferQuotaRef = (batchId: string) => `transfer:${batchId}`;

/** The c2c refusal of a check made before anything is reserved, in the words the service's own refusals use. */
function c2cExceeded(remainingBytes: number): QuotaExceeded {
  return new QuotaExceeded(
    'c2c',
    remainingBytes,
    billingMessages.transfersQuotaTitle,
    billingMessages.quotaRemaining(formatBytes(remainingBytes)),
  );
}

/** What a batch or a sync cycle that ran out of quota keeps as its error: the spec's title, then what is left. */
export const quotaErrorText = (error: QuotaExceeded) => `${error.title}: ${error.message}`;

/** What the quota needs of the transfers' SQL. */
type QuotaBatches = Pick<TransfersRepo, 'withQuotaLock' | 'statusOf' | 'findForEngine'>;

/**
 * The c2c quota of cloud-to-cloud transfers and sync cycles (transfers README "Quota"): a known size is checked
 * when a transfer is asked for, the bytes to copy are reserved as planning (or a cycle's diff) writes them, and the
 * reservation is settled to the bytes really copied when the batch ends.
 *
 * A batch's reservations and its settlement take turns under one lock, and a reservation is only made while the
 * batch is Ongoing: a chunk planned while a cancel ends the batch is either held before the settlement (which then
 * releases it) or not held at all, so no hold outlives its batch and nothing is counted twice.
 */
export class TransferQuota {
  constructor(
    private readonly entitlements: Entitlements,
    private readonly batches: QuotaBatches,
    /** Whether work past the organisation's limit is refused (in trial); with a card usage is counted, not refused. */
    private readonly refuses: (organizationId: string) => Promise<boolean>,
  ) {}

  /** 403 QuotaExceeded when `bytes` certainly to be copied already pass what is left (nothing is reserved). */
  async refuseBeyond(organizationId: string, bytes: number): Promise<void> {
    if (bytes <= 0 || !(await this.refuses(organizationId))) return;
    const left = quotaRemaining(await this.entitlements.remaining(organizationId, 'c2c'));
    if (bytes > left) throw c2cExceeded(left);
  }

  /**
   * Holds `bytes` more for an Ongoing batch; false (nothing held) when it is no longer Ongoing. Throws QuotaExceeded,
   * holding nothing, when that would pass the limit.
   */
  async reserve(batch: { id: string; organizationId: string }, bytes: number): Promise<boolean> {
    return this.batches.withQuotaLock(batch.id, async () => {
      if ((await this.batches.statusOf(batch.id)) !== BATCH_STATUS.ongoing) return false;
      if (bytes > 0) {
        await this.entitlements.reserve(batch.organizationId, 'c2c', transferQuotaRef(batch.id), bytes);
      }
      return true;
    });
  }

  /** Holds the bytes of a batch about to be created under `batchId` (a retry, planned as it is created). */
  async reserveNew(batch: { id: string; organizationId: string }, bytes: number): Promise<void> {
    await this.entitlements.reserve(batch.organizationId, 'c2c', transferQuotaRef(batch.id), bytes);
  }

  /**
   * A batch that ended counts what it copied (its `done` items: skipped and failed ones count nothing), and its
   * reservation is released. Called on every batch event and from every path that ends a batch: the entitlements
   * settle a reference once, so a second call counts nothing.
   */
  async settle(batchId: string): Promise<void> {
    await this.batches.withQuotaLock(batchId, async () => {
      const batch = await this.batches.findForEngine(batchId);
      if (!batch || !FINISHED.includes(batch.status)) return;
      await this.#settle(batch);
    });
  }

  /** A batch removed before it ended (a sync cycle's held batch), or never created: what it copied is what it used. */
  async settleDropped(batch: { id: string; organizationId: string; transferredSize: number }): Promise<void> {
    await this.batches.withQuotaLock(batch.id, () => this.#settle(batch));
  }

  async #settle(batch: { id: string; organizationId: string; transferredSize: number }) {
    await this.entitlements.settle(
      batch.organizationId,
      'c2c',
      transferQuotaRef(batch.id),
      batch.transferredSize,
    );
  }
}

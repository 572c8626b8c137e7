import type { Logger } from '../../logger.ts';
import type { BusMessage } from '../../realtime/events.ts';
import type { SearchIndex } from '../search/search-index.ts';
import type { CloudAccountsRepo } from './cloud-accounts.repo.ts';
import type { StoreRegistry } from './store-registry.ts';

/** Objects per listing request; the provider's maximum keeps request counts low on huge buckets. */
const PAGE_SIZE = 1000;
/** Progress is saved and pushed at most this often while a big bucket is walked. */
const PROGRESS_EVERY_MS = 2000;

/**
 * Walks every bucket of an account (or one of them: `only`) as a stream of listing pages and records object count
 * and total bytes. Memory holds one page at a time whatever the bucket size. Safe to run twice: it overwrites its
 * own results.
 */
export class BucketInventory {
  constructor(
    private readonly repo: CloudAccountsRepo,
    private readonly registry: StoreRegistry,
    private readonly publish: (message: BusMessage) => Promise<void>,
    private readonly log: Logger,
    /** The media-search index: each walked bucket's rows are replaced with what the walk saw. */
    private readonly searchIndex?: Pick<SearchIndex, 'replaceBucket'>,
  ) {}

  async run(
    organizationId: string,
    accountId: string,
    only?: string,
  ): Promise<{ buckets: number; objects: number; bytes: number }> {
    const account = await this.repo.find(organizationId, accountId);
    if (!account) return { buckets: 0, objects: 0, bytes: 0 }; // removed since the job was queued
    const store = await this.registry.storeFor(account);
    let listed: Array<{ name: string }>;
    if (only !== undefined) {
      // One bucket the product already shows (a transfer wrote to it): the account's list is not asked again.
      const known = await this.repo.bucketsOf(organizationId, [accountId]);
      listed = known.some((bucket) => bucket.name === only) ? [{ name: only }] : [];
    } else {
      const all = await store.listBuckets();
      await this.repo.syncBuckets(
        organizationId,
        accountId,
        all.map((b) => ({ name: b.name, region: b.region, createdOn: b.createdAt })),
      );
      listed = all;
    }
    const totals = { buckets: listed.length, objects: 0, bytes: 0 };
    for (const bucket of listed) {
      await this.repo.updateBucket(organizationId, accountId, bucket.name, {
        status: 'running',
        error: null,
      });
      let objects = 0;
      let bytes = 0;
      let savedAt = Date.now();
      const indexed = await this.searchIndex?.replaceBucket(organizationId, accountId, bucket.name);
      try {
        for await (const page of store.list(bucket.name, { pageSize: PAGE_SIZE })) {
          await indexed?.add(page.objects);
          objects += page.objects.length;
          for (const object of page.objects) bytes += object.size;
          if (Date.now() - savedAt > PROGRESS_EVERY_MS) {
            savedAt = Date.now();
            await this.repo.updateBucket(organizationId, accountId, bucket.name, {
              objectCount: objects,
              totalBytes: bytes,
            });
            await this.#notify(organizationId, accountId, bucket.name, 'running', objects, bytes);
          }
        }
        await this.repo.updateBucket(organizationId, accountId, bucket.name, {
          status: 'done',
          objectCount: objects,
          totalBytes: bytes,
          inventoriedAt: new Date(),
        });
        await indexed?.finish();
        await this.#notify(organizationId, accountId, bucket.name, 'done', objects, bytes);
        totals.objects += objects;
        totals.bytes += bytes;
      } catch (error) {
        // One unreadable bucket (no list permission, say) must not hide the others' sizes.
        const message = error instanceof Error ? error.message : String(error);
        this.log.warn({ accountId, bucket: bucket.name, err: error }, 'bucket inventory failed');
        await this.repo.updateBucket(organizationId, accountId, bucket.name, {
          status: 'failed',
          error: message,
        });
        await this.#notify(organizationId, accountId, bucket.name, 'failed', objects, bytes);
      }
    }
    return totals;
  }

  async #notify(
    organizationId: string,
    accountId: string,
    bucket: string,
    status: string,
    objects: number,
    bytes: number,
  ) {
    await this.publish({
      organizationId,
      type: 'inventory',
      data: {
        cloud_account_id: accountId,
        bucket_name: bucket,
        status,
        object_count: objects,
        total_bytes: bytes,
      },
    });
  }
}

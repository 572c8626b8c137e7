// Child process: one inventory of an s3rver account through the product's own code (BucketInventory with the
// real StoreRegistry, SecretBox and S3 adapter); only the database rows and the event bus are in-memory
// stand-ins. A fresh process per run keeps its peak RSS clean. Prints one JSON line.
import {
  createLogger,
  BucketInventory,
  type BucketRow,
  type CloudAccountRow,
  type CloudAccountsRepo,
} from '@cumulo/server/stores';
import { s3rverAccount } from '../shared/s3rver-account.ts';

type BucketUpdate = Parameters<CloudAccountsRepo['updateBucket']>[3];

/** The three queries BucketInventory makes, kept in memory: one account, its bucket rows. */
class MemoryInventoryRepo implements Pick<CloudAccountsRepo, 'find' | 'syncBuckets' | 'updateBucket'> {
  readonly bucketRows = new Map<string, Partial<BucketRow>>();
  updates = 0;

  constructor(private readonly account: CloudAccountRow) {}

  async find(organizationId: string, id: string): Promise<CloudAccountRow | undefined> {
    const { account } = this;
    return account.organizationId === organizationId && account.id === id ? account : undefined;
  }

  async syncBuckets(
    _organizationId: string,
    _accountId: string,
    list: Array<{ name: string; region: string | null; createdOn: Date | null }>,
  ): Promise<void> {
    this.bucketRows.clear();
    for (const bucket of list) this.bucketRows.set(bucket.name, { name: bucket.name, region: bucket.region });
  }

  async updateBucket(_organizationId: string, _accountId: string, name: string, values: BucketUpdate) {
    this.updates++;
    this.bucketRows.set(name, { ...this.bucketRows.get(name), ...values });
  }
}

const [endpoint, accessKey] = process.argv.slice(2);
if (!endpoint || !accessKey) throw new Error('usage: walk.ts ENDPOINT ACCESS_KEY');

const { account, registry } = s3rverAccount(endpoint, accessKey);
const repo = new MemoryInventoryRepo(account);
let published = 0;
const inventory = new BucketInventory(
  repo as unknown as CloudAccountsRepo,
  registry,
  async () => {
    published++;
  },
  createLogger('warn'),
);

const rssBeforeKb = process.resourceUsage().maxRSS;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const totals = await inventory.run(account.organizationId, account.id);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const peakRssKb = process.resourceUsage().maxRSS;
await registry.closeAll();

const failed = [...repo.bucketRows.values()].filter((row) => row.status !== 'done');
process.stdout.write(
  `${JSON.stringify({
    ...totals,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    rssBeforeBytes: rssBeforeKb * 1024,
    peakRssBytes: peakRssKb * 1024,
    failed: failed.map((row) => `${row.name}: ${row.error}`),
    dbUpdates: repo.updates,
    published,
  })}\n`,
);

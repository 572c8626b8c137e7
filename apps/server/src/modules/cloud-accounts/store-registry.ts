import { createObjectStore, type ObjectStore, type StoreConfig } from '@cumulo/storage';
import type { SecretBox } from '../../crypto/keys.ts';
import type { CloudAccountRow } from './cloud-accounts.repo.ts';

/**
 * One ObjectStore (one SDK client) per account for the life of the process, rebuilt only when the account
 * changes; the sealed credentials are opened only here. A store is kept as the promise of it (its adapter loads
 * on first use), so callers arriving together share one client.
 */
export class StoreRegistry {
  readonly #stores = new Map<string, { version: number; store: Promise<ObjectStore> }>();

  constructor(private readonly secrets: SecretBox) {}

  /** The account's store config (with its secret), from the sealed column. */
  configOf(account: CloudAccountRow): StoreConfig {
    return JSON.parse(this.secrets.open(account.credentials)) as StoreConfig;
  }

  storeFor(account: CloudAccountRow): Promise<ObjectStore> {
    const version = account.updatedAt.getTime();
    const cached = this.#stores.get(account.id);
    if (cached && cached.version === version) return cached.store;
    if (cached) void cached.store.then((old) => old.close());
    const store = createObjectStore(this.configOf(account));
    this.#stores.set(account.id, { version, store });
    return store;
  }

  async forget(accountId: string) {
    const cached = this.#stores.get(accountId);
    this.#stores.delete(accountId);
    await (await cached?.store)?.close();
  }

  async closeAll() {
    const stores = [...this.#stores.values()];
    this.#stores.clear();
    await Promise.all(stores.map(async (s) => (await s.store).close()));
  }
}

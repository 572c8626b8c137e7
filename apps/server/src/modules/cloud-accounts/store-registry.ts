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
    if (cached) void closeStore(cached.store);
    const entry = { version, store: createObjectStore(this.configOf(account)) };
    this.#stores.set(account.id, entry);
    // A store that could not be built is not kept: the next call builds it again (and says why again).
    entry.store.catch(() => {
      if (this.#stores.get(account.id) === entry) this.#stores.delete(account.id);
    });
    return entry.store;
  }

  async forget(accountId: string) {
    const cached = this.#stores.get(accountId);
    this.#stores.delete(accountId);
    if (cached) await closeStore(cached.store);
  }

  async closeAll() {
    const stores = [...this.#stores.values()];
    this.#stores.clear();
    await Promise.all(stores.map((s) => closeStore(s.store)));
  }
}

/** Closes a store; one that was never built has nothing to close (its caller already heard why). */
async function closeStore(store: Promise<ObjectStore>) {
  const built = await store.catch(() => null);
  await built?.close();
}

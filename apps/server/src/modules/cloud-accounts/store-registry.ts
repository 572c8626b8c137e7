import {
  DEFAULT_RETRY,
  createObjectStore,
  type ConnectOptions,
  type ObjectStore,
  type StoreConfig,
} from '@cumulo/storage';
import type { SecretBox } from '../../crypto/keys.ts';
import type { OutboundPolicy } from '../../net/outbound-policy.ts';
import type { CloudAccountRow } from './cloud-accounts.repo.ts';

/**
 * One ObjectStore (one SDK client) per account for the life of the process, rebuilt only when the account
 * changes; the sealed credentials are opened only here. A store is kept as the promise of it (its adapter loads
 * on first use), so callers arriving together share one client.
 */
export class StoreRegistry {
  readonly #stores = new Map<string, { version: number; store: Promise<ObjectStore> }>();

  constructor(
    private readonly secrets: SecretBox,
    /** How each store connects: the outbound address policy for tenant endpoints (see guardedConnect). */
    private readonly connectFor: (config: StoreConfig) => ConnectOptions = () => ({}),
  ) {}

  /** Builds a store for `config` with the same connection rules as the registry's own (the connect form's probe). */
  build(config: StoreConfig): Promise<ObjectStore> {
    return createObjectStore(config, DEFAULT_RETRY, this.connectFor(config));
  }

  /** The account's store config (with its secret), from the sealed column. */
  configOf(account: CloudAccountRow): StoreConfig {
    return JSON.parse(this.secrets.open(account.credentials)) as StoreConfig;
  }

  storeFor(account: CloudAccountRow): Promise<ObjectStore> {
    const version = account.updatedAt.getTime();
    const cached = this.#stores.get(account.id);
    if (cached && cached.version === version) return cached.store;
    if (cached) void closeStore(cached.store);
    const entry = { version, store: this.build(this.configOf(account)) };
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

/**
 * The connection rules of tenant stores: every S3-family connection goes through the outbound address policy,
 * except to an endpoint the operator set (PROVIDER_ENDPOINTS), which is trusted. Provider hosts built from a
 * tenant's region are checked too: they are public names, and the policy refuses whatever else they might name.
 */
export function guardedConnect(
  policy: OutboundPolicy,
  operatorEndpoints: Iterable<string | undefined>,
): (config: StoreConfig) => ConnectOptions {
  const trusted = new Set([...operatorEndpoints].filter((e): e is string => e !== undefined));
  return (config) =>
    config.endpoint !== undefined && trusted.has(config.endpoint) ? {} : { agents: () => policy.agents() };
}

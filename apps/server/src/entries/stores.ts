// `@cumulo/server/stores`: cloud accounts' stores and the bucket inventory alone, for a process that measures the
// inventory walk's own memory (bench/inventory); it loads none of the services.
export { createLogger } from '../logger.ts';
export { SecretBox } from '../crypto/keys.ts';
export { StoreRegistry } from '../modules/cloud-accounts/store-registry.ts';
export { BucketInventory } from '../modules/cloud-accounts/bucket-inventory.ts';
export type {
  BucketRow,
  CloudAccountRow,
  CloudAccountsRepo,
} from '../modules/cloud-accounts/cloud-accounts.repo.ts';

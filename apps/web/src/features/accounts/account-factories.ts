import type { CloudAccountView } from '@cumulo/contract';
import type { StorageView } from './accounts-api.ts';

// Test factories for the account screens (GET /api/cloud_accounts/ answers).

export const GB = 1024 ** 3;

export function buildBucket(overrides: Partial<StorageView> & { name: string }): StorageView {
  const accountId = overrides.cloud_account_id ?? 'acc-1';
  return {
    id: `${accountId}/${overrides.name}`,
    bucket_name: overrides.name,
    region: 'us-east-1',
    creationDate: '2025-03-04T10:00:00.000Z',
    size: 0,
    object_count: 0,
    cost: 0,
    cloud_account_id: accountId,
    inventory_status: 'done',
    inventoried_at: '2025-03-05T10:00:00.000Z',
    ...overrides,
  };
}

export function buildCloudAccount(overrides: Partial<CloudAccountView> = {}): CloudAccountView {
  const storages = overrides.storages ?? [];
  return {
    id: 'acc-1',
    name: 'Main archive',
    project_name: 'Main archive',
    provider: 'aws',
    cloudType: 1,
    account_type_id: 1,
    serviceUrl: null,
    endpoint: null,
    billing_bucket: null,
    total_cost: storages.reduce((sum, b) => sum + b.cost, 0),
    total_bytes_used: storages.reduce((sum, b) => sum + b.size, 0),
    bucket_count: storages.length,
    storages,
    info: { access_key: '••••WXYZ', secret_key: '••••', region: 'us-east-1', endpoint: null },
    created_at: '2025-03-01T10:00:00.000Z',
    ...overrides,
  };
}

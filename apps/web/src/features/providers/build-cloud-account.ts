import {
  ACCOUNT_LIST_CLOUD_TYPE,
  ACCOUNT_TYPES,
  MASK,
  type CloudAccountView,
  type ProviderName,
} from '@cumulo/contract';

/** A cloud account as GET /api/cloud_accounts/ answers it (test factory). */
export function buildCloudAccount(overrides: Partial<CloudAccountView> = {}): CloudAccountView {
  const provider = (overrides.provider ?? 'aws') as ProviderName;
  const id = overrides.id ?? '7f0c2a52-3c1e-4f43-9a53-1d0b7f1f2a01';
  return {
    id,
    name: 'Production',
    project_name: overrides.name ?? 'Production',
    provider,
    cloudType: ACCOUNT_LIST_CLOUD_TYPE[provider],
    account_type_id: ACCOUNT_TYPES.find((t) => t.name === provider)?.id ?? 1,
    serviceUrl: null,
    endpoint: null,
    billing_bucket: null,
    total_cost: 0,
    total_bytes_used: 0,
    bucket_count: 0,
    storages: [],
    info: { access_key: `${MASK}WXYZ`, secret_key: MASK, region: 'us-east-1', endpoint: null },
    created_at: '2025-05-01T10:00:00.000Z',
    ...overrides,
  };
}

import { AzureObjectStore, S3ObjectStore } from '@cumulo/storage/adapters';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY } from '@cumulo/storage/testing';

/** s3rver and Azurite started by global-setup.ts; the server reaches aws and generic S3 at s3rver, azure at Azurite. */
export function endpoints() {
  const s3rver = process.env.E2E_S3RVER;
  const azurite = process.env.E2E_AZURITE;
  if (!s3rver || !azurite) throw new Error('global-setup.ts did not start the object stores');
  return { s3rver, azurite };
}

/** The specs' own client of the e2e s3rver: seeds buckets and checks what the product wrote. */
export function s3rverStore(): S3ObjectStore {
  return new S3ObjectStore({
    provider: 'genericS3',
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    endpoint: endpoints().s3rver,
  });
}

/** The specs' own client of the e2e Azurite. */
export function azuriteStore(): AzureObjectStore {
  return new AzureObjectStore({
    provider: 'azure',
    accountName: AZURITE_ACCOUNT,
    accountKey: AZURITE_KEY,
    endpoint: endpoints().azurite,
  });
}

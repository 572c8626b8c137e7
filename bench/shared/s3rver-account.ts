import { randomBytes, randomUUID } from 'node:crypto';
import type { StoreConfig } from '@cumulo/storage';
import { SecretBox, type CloudAccountRow, StoreRegistry } from '@cumulo/server/stores';

/**
 * A generic S3 account row for an s3rver, sealed as the server seals credentials, and the product's StoreRegistry
 * that opens it: benchmarks run the server's own code with only the database lookup kept in memory.
 */
export function s3rverAccount(endpoint: string, accessKey: string) {
  const secrets = new SecretBox(randomBytes(32));
  const config: StoreConfig = {
    provider: 'genericS3',
    endpoint,
    accessKeyId: accessKey,
    secretAccessKey: accessKey,
    forcePathStyle: true,
  };
  const now = new Date();
  const account: CloudAccountRow = {
    id: randomUUID(),
    organizationId: randomUUID(),
    provider: 'genericS3',
    name: 'bench s3rver',
    credentials: secrets.seal(JSON.stringify(config)),
    keyHint: accessKey.slice(-4),
    region: null,
    serviceUrl: endpoint,
    billingBucket: null,
    billingError: null,
    createdAt: now,
    updatedAt: now,
  };
  return { account, registry: new StoreRegistry(secrets) };
}

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../object-store.ts';
import type { S3Provider, S3StoreConfig } from '../../store-config.ts';
import { objectStoreContract, type ContractFixture } from '../../testing/object-store-contract.ts';
import { S3RVER_KEY, startS3rver } from '../../testing/servers.ts';
import { S3ObjectStore } from './s3-store.ts';

function buildS3Config(provider: S3Provider, endpoint: string, overrides: Partial<S3StoreConfig> = {}) {
  return {
    provider,
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    region: 'us-east-1',
    endpoint,
    ...overrides,
  } satisfies S3StoreConfig;
}

function fixtureFor(provider: S3Provider) {
  return async (): Promise<ContractFixture> => {
    const server = await startS3rver();
    const store = new S3ObjectStore(buildS3Config(provider, server.endpoint), { maxAttempts: 2 });
    const bucket = `cumulo-${provider.toLowerCase()}-${randomBytes(4).toString('hex')}`;
    await store.createBucket(bucket);
    return { store, bucket, missingBucket: `${bucket}-missing`, cleanup: server.stop };
  };
}

objectStoreContract('S3 adapter (genericS3) against s3rver', fixtureFor('genericS3'));
// The same adapter with the aws and wasabi endpoint rules overridden, as PROVIDER_ENDPOINTS does in tests.
objectStoreContract('S3 adapter (aws) against s3rver', fixtureFor('aws'));
objectStoreContract('S3 adapter (wasabi) against s3rver', fixtureFor('wasabi'));

describe('S3 adapter against s3rver: credentials and capabilities', () => {
  let server: Awaited<ReturnType<typeof startS3rver>>;
  beforeAll(async () => {
    server = await startS3rver();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('refuses an unknown access key with InvalidCredentials and the provider message', async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint, { accessKeyId: 'WRONGKEY' }));
    try {
      const error = await store.verify().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({
        code: 'InvalidCredentials',
        status: 403,
        provider: 'genericS3',
        message: 'The AWS Access Key Id you provided does not exist in our records.',
      });
    } finally {
      await store.close();
    }
  });

  it('stores and reads back a bucket CORS configuration, empty when none is set', async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint));
    try {
      await store.createBucket('cumulo-cors');
      const cors = store.capabilities.cors;
      expect(cors).toBeDefined();
      if (!cors) return;
      expect(await cors.getCors('cumulo-cors')).toEqual([]);
      const rule = {
        allowedOrigins: ['https://app.example.com'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 600,
      };
      await cors.putCors('cumulo-cors', [rule]);
      expect(await cors.getCors('cumulo-cors')).toEqual([rule]);
    } finally {
      await store.close();
    }
  });

  it('answers BucketAlreadyExists when the bucket name is taken', async () => {
    const store = new S3ObjectStore(buildS3Config('genericS3', server.endpoint));
    try {
      await store.createBucket('cumulo-taken');
      const error = await store.createBucket('cumulo-taken').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('BucketAlreadyExists');
    } finally {
      await store.close();
    }
  });
});

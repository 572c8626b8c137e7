import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StorageError } from '@cumulo/storage';
import { SecretBox } from '../../crypto/keys.ts';
import type { CloudAccountRow } from './cloud-accounts.repo.ts';
import { StoreRegistry } from './store-registry.ts';

const secrets = new SecretBox(randomBytes(32));

/** Only the columns the registry reads. */
function account(config: object, updatedAt = new Date('2026-11-01T00:00:00Z')) {
  return { id: 'account-1', credentials: secrets.seal(JSON.stringify(config)), updatedAt } as CloudAccountRow;
}

const s3Config = {
  provider: 'genericS3',
  endpoint: 'http://127.0.0.1:9',
  accessKeyId: 'key',
  secretAccessKey: 'secret',
  forcePathStyle: true,
};

describe('StoreRegistry', () => {
  it('keeps one store per account version and closes the old one when the account changes', async () => {
    const registry = new StoreRegistry(secrets);
    const first = await registry.storeFor(account(s3Config));
    expect(await registry.storeFor(account(s3Config))).toBe(first);
    const changed = await registry.storeFor(account(s3Config, new Date('2026-11-02T00:00:00Z')));
    expect(changed).not.toBe(first);
    await registry.closeAll();
  });

  it('does not keep a store that could not be built, and forgets or closes one without failing', async () => {
    const registry = new StoreRegistry(secrets);
    // The Google adapter refuses a key file that is not JSON when it is built.
    const broken = account({ provider: 'google', credentialsJson: '{"type": "service_account",' });
    await expect(registry.storeFor(broken)).rejects.toBeInstanceOf(StorageError);
    // Same account version: only a failure that was not kept lets the next call build afresh.
    const rebuilt = await registry.storeFor(account(s3Config));
    expect(rebuilt.provider).toBe('genericS3');
    await registry.forget('account-1');

    const failing = registry.storeFor(broken);
    await expect(failing).rejects.toBeInstanceOf(StorageError);
    await expect(registry.forget('account-1')).resolves.toBeUndefined();
    void registry.storeFor(broken).catch(() => undefined);
    await expect(registry.closeAll()).resolves.toBeUndefined();
  });
});

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectUploadRef } from '../../object-store.ts';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type TestStoreServer } from '../../testing/servers.ts';
import { blockIdOf, partNumberOf } from './azure-direct-upload.ts';
import { AzureObjectStore } from './azure-store.ts';
import { readAll } from '../../testing/objects.ts';

const MiB = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('Azure block ids', () => {
  it('are 24 characters whatever the part number, and name their part and upload', () => {
    const ids = [1, 9, 10_000].map((part) => blockIdOf('0123456789ab', part));
    expect(ids.map((id) => id.length)).toEqual([24, 24, 24]);
    expect(ids.map((id) => partNumberOf('0123456789ab', id))).toEqual([1, 9, 10_000]);
    expect(partNumberOf('ffffffffffff', ids[0] ?? '')).toBeNull();
  });
});

describe('Azure direct upload against Azurite: the browser PUTs blocks with a SAS (played by Node fetch)', () => {
  let azurite: TestStoreServer;
  let store: AzureObjectStore;
  /** A second client straight on the SDK, to look at the blob as Azure holds it. */
  let inspector: BlobServiceClient;
  const bucket = `direct-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    azurite = await startAzurite();
    const config = {
      provider: 'azure' as const,
      accountName: AZURITE_ACCOUNT,
      accountKey: AZURITE_KEY,
      endpoint: azurite.endpoint,
    };
    store = new AzureObjectStore(config, { maxAttempts: 2 });
    inspector = new BlobServiceClient(
      azurite.endpoint,
      new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY),
    );
    await store.createBucket(bucket);
  });
  afterAll(async () => {
    await store?.close();
    await azurite?.stop();
  });

  const direct = () => {
    const capability = store.capabilities.directUpload;
    if (!capability) throw new Error('the Azure adapter must declare directUpload');
    return capability;
  };
  const blockList = (key: string) =>
    inspector.getContainerClient(bucket).getBlockBlobClient(key).getBlockList('all');

  async function putParts(upload: DirectUploadRef, file: Buffer, partNumbers: number[]) {
    const targets = await direct().signParts(upload, partNumbers, { expiresInSeconds: 3600 });
    for (const target of targets) {
      const start = (target.partNumber - 1) * upload.partSize;
      const answer = await fetch(target.url, {
        method: 'PUT',
        headers: target.headers,
        body: file.subarray(start, start + upload.partSize),
      });
      expect(answer.status).toBe(201);
    }
  }

  async function open(key: string, file: Buffer, partSize = 5 * MiB): Promise<DirectUploadRef> {
    const uploadId = await direct().start(bucket, key, { size: file.length, partSize });
    return { bucket, key, uploadId, size: file.length, partSize };
  }

  it('assembles a 12 MiB file from three blocks, byte-identical, with its content type', async () => {
    const file = randomBytes(12 * MiB);
    const upload = await open('videos/clip.bin', file);
    await putParts(upload, file, [1, 2, 3]);

    await direct().complete(
      upload,
      [1, 2, 3].map((partNumber) => ({ partNumber, etag: null })),
      { contentType: 'video/mp4' },
    );

    expect(await store.stat(bucket, 'videos/clip.bin')).toMatchObject({
      size: file.length,
      contentType: 'video/mp4',
    });
    expect(sha256(await readAll(store, bucket, 'videos/clip.bin'))).toBe(sha256(file));
  });

  it('lists the blocks already staged, so a reloaded page resumes from them', async () => {
    const file = randomBytes(11 * MiB);
    const upload = await open('resume/me.bin', file);
    await putParts(upload, file, [2]);
    // Another upload of the same name stages its own blocks; they are not this upload's parts.
    const other = await open('resume/me.bin', file);
    await putParts(other, file, [1]);

    expect(await direct().listParts(upload)).toEqual([{ partNumber: 2, size: 5 * MiB, etag: null }]);

    await putParts(upload, file, [1, 3]);
    await direct().complete(
      upload,
      [1, 2, 3].map((partNumber) => ({ partNumber, etag: null })),
      {},
    );
    expect(sha256(await readAll(store, bucket, 'resume/me.bin'))).toBe(sha256(file));
    // Committing drops every block it did not name, the other upload's included.
    expect((await blockList('resume/me.bin')).uncommittedBlocks).toEqual([]);
  });

  it('answers no parts for an upload that staged nothing yet', async () => {
    const upload = await open('fresh/none.bin', randomBytes(6 * MiB));
    expect(await direct().listParts(upload)).toEqual([]);
  });

  it('abort leaves no blob and no uncommitted block behind on a new name', async () => {
    const file = randomBytes(11 * MiB);
    const upload = await open('cancel/new.bin', file);
    await putParts(upload, file, [1, 2]);
    expect((await blockList('cancel/new.bin')).uncommittedBlocks).toHaveLength(2);

    await direct().abort(upload);

    expect(await store.stat(bucket, 'cancel/new.bin')).toBeNull();
    const left = await blockList('cancel/new.bin').catch((error: { statusCode?: number }) => error);
    // Azure answers 404 for a name with neither a blob nor staged blocks.
    expect(left).toMatchObject({ statusCode: 404 });
    await direct().abort(upload);
  });

  it('abort keeps an object uploaded in blocks before, byte for byte, and drops the staged blocks', async () => {
    const before = randomBytes(7 * MiB);
    const first = await open('cancel/existing.bin', before);
    await putParts(first, before, [1, 2]);
    await direct().complete(
      first,
      [1, 2].map((partNumber) => ({ partNumber, etag: null })),
      { contentType: 'application/x-old' },
    );
    const file = randomBytes(11 * MiB);
    const upload = await open('cancel/existing.bin', file);
    await putParts(upload, file, [1]);

    await direct().abort(upload);

    const list = await blockList('cancel/existing.bin');
    expect(list.uncommittedBlocks).toEqual([]);
    expect(await store.stat(bucket, 'cancel/existing.bin')).toMatchObject({
      size: before.length,
      contentType: 'application/x-old',
    });
    expect(sha256(await readAll(store, bucket, 'cancel/existing.bin'))).toBe(sha256(before));
  });

  it('abort leaves an object written in one request untouched (its staged blocks expire with Azure)', async () => {
    const before = randomBytes(64 * 1024);
    await store.write(bucket, 'cancel/single.bin', before);
    const file = randomBytes(11 * MiB);
    const upload = await open('cancel/single.bin', file);
    await putParts(upload, file, [1]);

    await direct().abort(upload);

    expect(sha256(await readAll(store, bucket, 'cancel/single.bin'))).toBe(sha256(before));
  });

  it('takes a small file in one Put Blob with the SAS and the content type header', async () => {
    const file = randomBytes(200 * 1024);
    const target = await direct().signSingle(bucket, 'small/one.txt', {
      expiresInSeconds: 600,
      contentType: 'text/plain',
    });
    expect(target.headers).toEqual({ 'x-ms-blob-type': 'BlockBlob', 'x-ms-blob-content-type': 'text/plain' });

    const answer = await fetch(target.url, { method: 'PUT', headers: target.headers, body: file });

    expect(answer.status).toBe(201);
    expect(await store.stat(bucket, 'small/one.txt')).toMatchObject({
      size: file.length,
      contentType: 'text/plain',
    });
  });

  it('refuses a Put Block whose SAS was tampered with', async () => {
    const file = randomBytes(6 * MiB);
    const upload = await open('tamper/x.bin', file);
    const [target] = await direct().signParts(upload, [1], { expiresInSeconds: 3600 });
    const url = new URL(target?.url ?? '');
    url.searchParams.set('se', '2999-01-01T00:00:00Z');

    const answer = await fetch(url, { method: 'PUT', body: file.subarray(0, 5 * MiB) });

    expect(answer.status).toBe(403);
  });
});

import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../object-store.ts';
import { objectStoreContract } from '../../testing/object-store-contract.ts';
import {
  AZURITE_ACCOUNT as ACCOUNT_NAME,
  AZURITE_KEY as ACCOUNT_KEY,
  setAzuriteTier,
  startAzurite,
} from '../../testing/servers.ts';
import { AzureObjectStore } from './azure-store.ts';

objectStoreContract(
  'Azure adapter against Azurite',
  async () => {
    const azurite = await startAzurite();
    const store = new AzureObjectStore(
      { provider: 'azure', accountName: ACCOUNT_NAME, accountKey: ACCOUNT_KEY, endpoint: azurite.endpoint },
      { maxAttempts: 2 },
    );
    const bucket = `contract-${randomUUID().slice(0, 8)}`;
    await store.createBucket(bucket);
    return {
      store,
      bucket,
      missingBucket: `missing-${randomUUID().slice(0, 8)}`,
      cleanup: azurite.stop,
    };
  },
  { copyAnswersMd5: false },
);

describe('Azure adapter against Azurite: credentials, SAS and CORS', () => {
  let azurite: { endpoint: string; stop: () => Promise<void> };
  let store: AzureObjectStore;
  const bucket = `extra-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    azurite = await startAzurite();
    store = new AzureObjectStore(
      { provider: 'azure', accountName: ACCOUNT_NAME, accountKey: ACCOUNT_KEY, endpoint: azurite.endpoint },
      { maxAttempts: 2 },
    );
    await store.createBucket(bucket);
  });

  afterAll(async () => {
    await store?.close();
    await azurite?.stop();
  });

  it('refuses a wrong account key with InvalidCredentials and the service message', async () => {
    const wrongKey = Buffer.from('not the key of this account, 64 bytes long............').toString('base64');
    const intruder = new AzureObjectStore(
      { provider: 'azure', accountName: ACCOUNT_NAME, accountKey: wrongKey, endpoint: azurite.endpoint },
      { maxAttempts: 1 },
    );
    const error = await intruder.verify().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('InvalidCredentials');
    expect((error as StorageError).status).toBe(403);
    expect((error as StorageError).message).toMatch(/authenticate/i);
    expect((error as StorageError).message).not.toMatch(/RequestId/);
    await intruder.close();
  });

  it('reports an unreachable endpoint as a Network error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const unreachable = new AzureObjectStore(
      {
        provider: 'azure',
        accountName: ACCOUNT_NAME,
        accountKey: ACCOUNT_KEY,
        endpoint: `http://127.0.0.1:${port}/${ACCOUNT_NAME}`,
      },
      { maxAttempts: 1 },
    );
    const error = await unreachable.verify().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('Network');
  });

  it('answers 404 to a SAS GET URL for a blob that does not exist', async () => {
    const url = await store.signedUrl(bucket, 'never/written.txt', { method: 'GET', expiresInSeconds: 60 });
    const response = await fetch(url);
    expect(response.status).toBe(404);
  });

  it('serves a SAS GET URL with a download name as an attachment', async () => {
    await store.write(bucket, 'report.csv', Buffer.from('a,b\n1,2\n'), { contentType: 'text/csv' });
    const url = await store.signedUrl(bucket, 'report.csv', {
      method: 'GET',
      expiresInSeconds: 60,
      downloadName: 'Q1 report.csv',
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="Q1 report.csv"/);
    expect(await response.text()).toBe('a,b\n1,2\n');
  });

  it('reports the MD5 of a buffer written in blocks, as stat and listing show it', async () => {
    const body = Buffer.alloc(9 * 1024 * 1024, 7);
    const progress: number[] = [];
    const result = await store.write(bucket, 'blocks.bin', body, { onProgress: (n) => progress.push(n) });
    expect(result.size).toBe(body.length);
    expect(progress.at(-1)).toBe(body.length);
    const expected = createHash('md5').update(body).digest('hex');
    expect((await store.stat(bucket, 'blocks.bin'))?.md5).toBe(expected);
    const listed = [];
    for await (const page of store.list(bucket, { prefix: 'blocks' })) listed.push(...page.objects);
    expect(listed).toMatchObject([{ key: 'blocks.bin', size: body.length, md5: expected }]);
  });

  it('refuses (412) a copy whose source changed since its ETag was listed', async () => {
    await store.write(bucket, 'moving/target.txt', Buffer.from('first version'));
    const listed = await store.stat(bucket, 'moving/target.txt');
    await store.write(bucket, 'moving/target.txt', Buffer.from('second version'));

    const refused = await store
      .copy(
        { bucket, key: 'moving/target.txt' },
        { bucket, key: 'moving/copy.txt' },
        { ifMatch: listed?.etag ?? '', size: 13 },
      )
      .catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(StorageError);
    expect((refused as StorageError).status).toBe(412);
    expect(await store.stat(bucket, 'moving/copy.txt')).toBeNull();
  });

  it('refuses to read or copy a blob in the Archive tier with Archived, saying how to get it back', async () => {
    await store.write(bucket, 'cold/report.pdf', Buffer.from('archived bytes'));
    await setAzuriteTier(azurite.endpoint, bucket, 'cold/report.pdf', 'Archive');

    const expected = {
      code: 'Archived',
      status: 409,
      message: 'The blob is in the Archive tier: rehydrate it to an online tier before reading or copying it',
    };
    await expect(store.read(bucket, 'cold/report.pdf')).rejects.toMatchObject(expected);
    await expect(
      store.copy({ bucket, key: 'cold/report.pdf' }, { bucket, key: 'cold/copy.pdf' }),
    ).rejects.toMatchObject(expected);
    // Its listing and its properties stay readable: the planner and Skip Existing Files still see it.
    expect((await store.stat(bucket, 'cold/report.pdf'))?.size).toBe(14);
    expect(await store.stat(bucket, 'cold/copy.pdf')).toBeNull();
  });

  it('writes blob index tags with a blob, in one request, in blocks, from a stream and at a parts commit, and counts them on reads', async () => {
    const tags = { team: 'media ops', where: 'a/b:c=d+e_f.g' };
    const get = store.capabilities.objectTags?.get;
    await store.write(bucket, 'tagged/one.txt', Buffer.from('one request'), { tags });
    await store.write(bucket, 'tagged/blocks.bin', Buffer.alloc(9 * 1024 * 1024, 1), { tags });
    await store.write(bucket, 'tagged/stream.txt', Readable.from([Buffer.from('streamed')]), { tags });
    await store.write(bucket, 'tagged/plain.txt', Buffer.from('no tags'));
    const parts = store.capabilities.parts;
    const uploadId = (await parts?.start(bucket, 'tagged/parts.bin', { tags })) ?? '';
    const upload = { bucket, key: 'tagged/parts.bin', uploadId };
    const part = Buffer.alloc(1024, 2);
    await parts?.uploadPart(upload, 1, part, { md5: createHash('md5').update(part).digest('hex') });
    await parts?.complete(upload, [{ partNumber: 1, etag: null }], { tags });

    for (const key of ['tagged/one.txt', 'tagged/blocks.bin', 'tagged/stream.txt', 'tagged/parts.bin']) {
      expect(await get?.(bucket, key), key).toEqual(tags);
      expect((await store.stat(bucket, key))?.tagCount, key).toBe(2);
    }
    expect(await get?.(bucket, 'tagged/plain.txt')).toEqual({});
    expect((await store.stat(bucket, 'tagged/plain.txt'))?.tagCount).toBeUndefined();
    let read: { tagCount?: number } | undefined;
    for await (const chunk of await store.read(bucket, 'tagged/one.txt', { onInfo: (info) => (read = info) }))
      void chunk;
    expect(read?.tagCount).toBe(2);
    // Azure's rules are stricter than S3's: a tag with @ is refused as a whole write.
    await expect(
      store.write(bucket, 'tagged/refused.txt', Buffer.from('x'), { tags: { 'owner@example': 'x' } }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('writes an empty stream as an empty object', async () => {
    const progress: number[] = [];
    const result = await store.write(bucket, 'empty.txt', Readable.from([]), {
      onProgress: (n) => progress.push(n),
    });
    expect(result.size).toBe(0);
    expect(progress).toEqual([0]);
    expect((await store.stat(bucket, 'empty.txt'))?.size).toBe(0);
  });

  it('throws BucketNotFound when listing a container that does not exist', async () => {
    const pages = store.list('no-such-container')[Symbol.asyncIterator]();
    const error = await pages.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('BucketNotFound');
  });

  it('refuses to create a container that already exists', async () => {
    const error = await store.createBucket(bucket).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('BucketAlreadyExists');
  });

  it('sets and reads back the account CORS rules', async () => {
    const rules = [
      {
        allowedOrigins: ['https://app.example.com'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['content-type', 'x-ms-blob-type'],
        exposeHeaders: ['etag'],
        maxAgeSeconds: 600,
      },
    ];
    await store.capabilities.cors?.putCors(bucket, rules);
    expect(await store.capabilities.cors?.getCors(bucket)).toEqual(rules);
  });

  it('can be closed twice', async () => {
    const extra = new AzureObjectStore({
      provider: 'azure',
      accountName: ACCOUNT_NAME,
      accountKey: ACCOUNT_KEY,
      endpoint: azurite.endpoint,
    });
    await extra.verify();
    await extra.close();
    await extra.close();
  });
});
